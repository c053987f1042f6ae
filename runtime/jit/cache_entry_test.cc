#include "runtime/jit/cache_entry.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tile_ir::runtime::jit {
namespace {

constexpr EntrySecret kSecret = {1, 2, 3, 4, 5, 6, 7, 8};

CacheContext Context() {
  CacheContext context;
  context.Set("kernel", "gemm");
  context.Set("target", "cpu");
  context.Set("arch", "znver3");
  return context;
}

TEST(CacheEntryTest, RoundTrips) {
  std::string artifact("\0binary\nbytes", 13);
  const std::string bytes = SerializeEntry(Context(), artifact, kSecret);
  absl::StatusOr<ParsedEntry> entry = ParseEntry(bytes);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_TRUE(IsAuthentic(bytes, *entry, kSecret));
  EXPECT_EQ(entry->artifact, artifact);
  EXPECT_EQ(entry->context, Context());
}

TEST(CacheEntryTest, EveryTruncationIsDetected) {
  std::string bytes = SerializeEntry(Context(), "artifact", kSecret);
  for (size_t size = 0; size < bytes.size(); ++size) {
    const std::string truncated = bytes.substr(0, size);
    absl::StatusOr<ParsedEntry> entry = ParseEntry(truncated);
    EXPECT_FALSE(entry.ok() && IsAuthentic(truncated, *entry, kSecret)) << "truncated to " << size;
  }
  absl::StatusOr<ParsedEntry> short_by_one = ParseEntry(bytes.substr(0, bytes.size() - 1));
  ASSERT_FALSE(short_by_one.ok());
  EXPECT_NE(short_by_one.status().message().find("truncated"), std::string::npos);
}

TEST(CacheEntryTest, AFlippedArtifactByteFailsTheMac) {
  std::string bytes = SerializeEntry(Context(), "artifact", kSecret);
  bytes[bytes.size() - 79] ^= 1;  // the artifact's last byte, before the hmac-sha256 line
  absl::StatusOr<ParsedEntry> entry = ParseEntry(bytes);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(entry->artifact, "artifacu");
  EXPECT_FALSE(IsAuthentic(bytes, *entry, kSecret));
}

// The attack of issue 37: whoever writes an entry without the user's secret
// (another user's cache, a recomputed checksum) makes one that does not
// authenticate, however well-formed.
TEST(CacheEntryTest, AnEntryUnderAnotherSecretIsNotAuthentic) {
  EntrySecret other = kSecret;
  other[31] ^= 1;
  const std::string bytes = SerializeEntry(Context(), "artifact", other);
  absl::StatusOr<ParsedEntry> entry = ParseEntry(bytes);
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_FALSE(IsAuthentic(bytes, *entry, kSecret));
  EXPECT_TRUE(IsAuthentic(bytes, *entry, other));
}

// A format-1 entry (a plain SHA-256 anyone can recompute) is refused by name.
TEST(CacheEntryTest, FormatOneEntriesAreRefusedAsUnauthenticated) {
  std::string bytes = SerializeEntry(Context(), "artifact", kSecret);
  bytes[std::string("TILE-CACHE-ENTRY ").size()] = '1';
  absl::StatusOr<ParsedEntry> entry = ParseEntry(bytes);
  ASSERT_FALSE(entry.ok());
  EXPECT_EQ(entry.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(entry.status().message().find("format 1 entries carry no authentication"),
            std::string::npos)
      << entry.status();
}

TEST(CacheContextTest, KeyFollowsEveryFieldAndMismatchNamesIt) {
  CacheContext other = Context();
  other.Set("arch", "icelake-server");
  EXPECT_NE(Context().Key(), other.Key());
  EXPECT_EQ(Context().Key(), Context().Key());
  EXPECT_EQ(Context().Key().size(), 32u);
  std::optional<std::string> mismatch = FirstMismatch(other, Context());
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_EQ(*mismatch, "arch: the entry has 'icelake-server', this process 'znver3'");
  EXPECT_FALSE(FirstMismatch(Context(), Context()).has_value());
}

TEST(CacheContextTest, NewlinesInValuesAreEscaped) {
  CacheContext context;
  context.Set("pipeline", "a\nb");
  absl::StatusOr<CacheContext> parsed = CacheContext::Parse(context.Serialize());
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->Get("pipeline"), "a\\nb");
}

TEST(CacheEntryTest, SectionsRoundTrip) {
  std::string packed = PackSections({{"lowered", "kernel k"},
                                     {"object", std::string("\x7f"
                                                            "ELF\0",
                                                            5)}});
  auto sections = UnpackSections(packed);
  ASSERT_TRUE(sections.ok());
  ASSERT_EQ(sections->size(), 2u);
  EXPECT_EQ((*sections)[1].second, std::string("\x7f"
                                               "ELF\0",
                                               5));
  EXPECT_FALSE(UnpackSections(packed.substr(0, packed.size() - 1)).ok());
}

// Found by the fuzz campaign of 2026-12-03 (fuzz/corpus/cache_entry/): a section name holding
// a newline made the length line end inside the name, so a repacked artifact read otherwise.
// Names with newlines, and lengths that are not plain decimal digits, are damage.
TEST(CacheEntryTest, SectionHeadersAreReadAsTheyAreWritten) {
  EXPECT_FALSE(UnpackSections("\n\n 1\nx").ok());
  EXPECT_FALSE(UnpackSections("a\nb 1\nx").ok());
  EXPECT_FALSE(UnpackSections(" 1\nx").ok());
  for (const char* length : {"+1", " 1", "1 ", "-1", "0x1", ""}) {
    SCOPED_TRACE(length);
    EXPECT_FALSE(UnpackSections(absl::StrCat("lowered ", length, "\nx")).ok());
  }
  auto sections = UnpackSections("lowered 1\nxobject 0\n");
  ASSERT_TRUE(sections.ok()) << sections.status();
  ASSERT_EQ(sections->size(), 2u);
  EXPECT_EQ(UnpackSections(PackSections(*sections)).value(), *sections);
}

}  // namespace
}  // namespace tile_ir::runtime::jit
