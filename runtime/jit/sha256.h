// SHA-256 (FIPS 180-4) for cache keys and HMAC-SHA256 (RFC 2104) for the
// entries' authentication, from OpenSSL's libcrypto: hashing is
// cryptography, so it comes from a well-kept library.
#ifndef RUNTIME_JIT_SHA256_H_
#define RUNTIME_JIT_SHA256_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

// OpenSSL's EVP_MD_CTX, declared here so that users of this header need no
// OpenSSL headers.
struct evp_md_ctx_st;

namespace tile_ir::runtime::jit {

class Sha256 {
 public:
  Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  ~Sha256();

  void Update(std::string_view data);
  // The digest; the hasher must not be updated afterwards.
  std::array<uint8_t, 32> Finish();

 private:
  struct FreeContext {
    void operator()(evp_md_ctx_st* context) const;
  };
  std::unique_ptr<evp_md_ctx_st, FreeContext> context_;
};

// The digest of `data` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

// HMAC-SHA256 of `data` under `key`, as 64 lowercase hex digits.
std::string HmacSha256Hex(std::string_view key, std::string_view data);

// Whether two strings are equal, in a time that does not depend on where
// they differ (for comparing MACs).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace tile_ir::runtime::jit

#endif  // RUNTIME_JIT_SHA256_H_
