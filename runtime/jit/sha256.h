// SHA-256 (FIPS 180-4), for cache keys and entry checksums: no library of
// ours or of the GPU machine's bundle provides one without LLVM or OpenSSL.
#ifndef RUNTIME_JIT_SHA256_H_
#define RUNTIME_JIT_SHA256_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tile_ir::runtime::jit {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  // The digest; the hasher must not be updated afterwards.
  std::array<uint8_t, 32> Finish();

 private:
  void Block(const uint8_t* block);

  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

// The digest of `data` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_SHA256_H_
