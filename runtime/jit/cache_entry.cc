// The entry file format and the artifact's sections.
#include "runtime/jit/cache_entry.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "runtime/jit/sha256.h"

namespace tile_ir::runtime::jit {
namespace {

constexpr absl::string_view kHeaderWord = "TILE-CACHE-ENTRY ";
constexpr absl::string_view kMagic = "TILE-CACHE-ENTRY 2\n";
constexpr absl::string_view kMacPrefix = "\nhmac-sha256 ";
constexpr size_t kTrailerSize = kMacPrefix.size() + 64 + 1;  // kMacPrefix, MAC, '\n'

std::string Mac(absl::string_view body, const EntrySecret& secret) {
  return HmacSha256Hex(
      std::string_view(reinterpret_cast<const char*>(secret.data()), secret.size()),
      std::string_view(body.data(), body.size()));
}

// Reads "<word> <decimal>\n" at `pos`, advancing it.
absl::StatusOr<size_t> ReadLengthLine(absl::string_view bytes, absl::string_view word,
                                      size_t& pos) {
  std::string prefix = absl::StrCat(word, " ");
  if (bytes.substr(pos, prefix.size()) != prefix) {
    return absl::DataLossError(absl::StrCat("no '", word, "' line at byte ", pos));
  }
  // The line ends after the word (a newline inside it would end it before its length).
  size_t end = bytes.find('\n', pos + prefix.size());
  if (end == absl::string_view::npos) {
    return absl::DataLossError(absl::StrCat("truncated in the '", word, "' line"));
  }
  size_t length = 0;
  absl::string_view digits = bytes.substr(pos + prefix.size(), end - pos - prefix.size());
  // Decimal digits only, as the writer writes them (SimpleAtoi also takes signs and spaces).
  const bool decimal = !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
  if (!decimal || !absl::SimpleAtoi(digits, &length)) {
    return absl::DataLossError(absl::StrCat("bad length in the '", word, "' line"));
  }
  pos = end + 1;
  return length;
}

}  // namespace

std::string SerializeEntry(const CacheContext& context, std::string_view artifact_view,
                           const EntrySecret& secret) {
  absl::string_view artifact(artifact_view.data(), artifact_view.size());
  std::string context_text = context.Serialize();
  std::string body = absl::StrCat(kMagic, context_text, "artifact ", artifact.size(), "\n");
  body.append(artifact.data(), artifact.size());
  const std::string mac = Mac(body, secret);
  absl::StrAppend(&body, kMacPrefix, mac, "\n");
  return body;
}

absl::StatusOr<ParsedEntry> ParseEntry(std::string_view bytes_view) {
  absl::string_view bytes(bytes_view.data(), bytes_view.size());
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    if (absl::StartsWith(bytes, kHeaderWord)) {
      const size_t end = bytes.find('\n');
      absl::string_view version = bytes.substr(
          kHeaderWord.size(), std::min<size_t>(end, 16 + kHeaderWord.size()) - kHeaderWord.size());
      return absl::FailedPreconditionError(absl::StrCat(
          "an entry of format '", absl::CHexEscape(version), "', not this build's format 2",
          version == "1" ? " (format 1 entries carry no authentication)" : ""));
    }
    return absl::DataLossError("not a cache entry (bad header)");
  }
  // Context lines run up to the "artifact" line (field names have no space),
  // so a hand-edited value of another length still parses and is named.
  size_t pos = kMagic.size();
  const size_t context_start = pos;
  while (pos < bytes.size() && !absl::StartsWith(bytes.substr(pos), "artifact ")) {
    size_t end = bytes.find('\n', pos);
    if (end == absl::string_view::npos) {
      return absl::DataLossError(
          absl::StrCat("truncated: ", bytes.size(), " bytes, ending inside the context"));
    }
    pos = end + 1;
  }
  absl::string_view context_text = bytes.substr(context_start, pos - context_start);
  absl::StatusOr<CacheContext> context =
      CacheContext::Parse(std::string_view(context_text.data(), context_text.size()));
  if (!context.ok()) return context.status();
  absl::StatusOr<size_t> artifact_size = ReadLengthLine(bytes, "artifact", pos);
  if (!artifact_size.ok()) return artifact_size.status();
  const size_t expected = pos + *artifact_size + kTrailerSize;
  if (bytes.size() != expected) {
    return absl::DataLossError(absl::StrCat(bytes.size() < expected ? "truncated" : "overlong",
                                            ": ", bytes.size(), " bytes, expected ", expected));
  }
  ParsedEntry entry;
  entry.context = *std::move(context);
  entry.artifact = std::string(bytes.substr(pos, *artifact_size));
  entry.authenticated_size = pos + *artifact_size;
  absl::string_view trailer = bytes.substr(entry.authenticated_size);
  if (trailer.substr(0, kMacPrefix.size()) != kMacPrefix || trailer.back() != '\n') {
    return absl::DataLossError("the hmac-sha256 line is damaged");
  }
  entry.mac = std::string(trailer.substr(kMacPrefix.size(), 64));
  return entry;
}

bool IsAuthentic(std::string_view bytes, const ParsedEntry& entry, const EntrySecret& secret) {
  if (entry.authenticated_size > bytes.size()) return false;
  absl::string_view body(bytes.data(), entry.authenticated_size);
  return ConstantTimeEquals(Mac(body, secret), entry.mac);
}

std::string PackSections(const std::vector<std::pair<std::string, std::string>>& sections) {
  std::string packed;
  for (const auto& [name, bytes] : sections) {
    absl::StrAppend(&packed, name, " ", bytes.size(), "\n");
    packed.append(bytes);
  }
  return packed;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> UnpackSections(
    std::string_view bytes_view) {
  absl::string_view bytes(bytes_view.data(), bytes_view.size());
  std::vector<std::pair<std::string, std::string>> sections;
  size_t pos = 0;
  while (pos < bytes.size()) {
    size_t space = bytes.find(' ', pos);
    if (space == absl::string_view::npos) return absl::DataLossError("bad artifact section header");
    std::string name(bytes.substr(pos, space - pos));
    if (name.empty() || name.find('\n') != std::string::npos) {
      return absl::DataLossError(absl::StrCat("bad artifact section name at byte ", pos));
    }
    absl::StatusOr<size_t> size = ReadLengthLine(bytes, name, pos);
    if (!size.ok()) return size.status();
    if (bytes.size() - pos < *size) {
      return absl::DataLossError(absl::StrCat("artifact section '", name, "' is truncated"));
    }
    sections.emplace_back(std::move(name), std::string(bytes.substr(pos, *size)));
    pos += *size;
  }
  return sections;
}

}  // namespace tile_ir::runtime::jit
