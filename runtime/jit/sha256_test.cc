// Sha256 against the published vectors: FIPS 180-2 appendix B (one block,
// two blocks, one million 'a') and NIST's examples (empty, 896 bits);
// HmacSha256Hex against RFC 4231's test cases 1, 2 and 6.
#include "runtime/jit/sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace tile_ir::runtime::jit {
namespace {

TEST(Sha256Test, PublishedVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                      "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// The million 'a' in pieces that straddle the 64-byte blocks.
TEST(Sha256Test, MillionAInPieces) {
  Sha256 hasher;
  const std::string piece(1000, 'a');
  for (int i = 0; i < 1000; ++i) hasher.Update(piece);
  std::string hex;
  static constexpr char kHex[] = "0123456789abcdef";
  for (uint8_t byte : hasher.Finish()) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 15]);
  }
  EXPECT_EQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalUpdatesMatchOneShot) {
  std::string data(300, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  Sha256 hasher;
  for (size_t i = 0; i < data.size(); i += 37) hasher.Update(std::string_view(data).substr(i, 37));
  std::array<uint8_t, 32> a = hasher.Finish();
  Sha256 one;
  one.Update(data);
  EXPECT_EQ(a, one.Finish());
}

TEST(Sha256Test, MovedHasherKeepsItsState) {
  Sha256 first;
  first.Update("ab");
  Sha256 moved = std::move(first);
  moved.Update("c");
  Sha256 abc;
  abc.Update("abc");
  EXPECT_EQ(moved.Finish(), abc.Finish());
}

TEST(HmacSha256Test, Rfc4231Vectors) {
  EXPECT_EQ(HmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HmacSha256Hex(std::string(131, '\xaa'),
                          "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256Test, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
}

}  // namespace
}  // namespace tile_ir::runtime::jit
