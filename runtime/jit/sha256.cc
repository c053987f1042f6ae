// Sha256 over libcrypto's EVP digest interface (the low-level SHA256_* calls
// are deprecated in OpenSSL 3.0).
#include "runtime/jit/sha256.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>
#include <cstdlib>

namespace tile_ir::runtime::jit {
namespace {

// libcrypto fails here only when it cannot allocate or has no SHA-256 at all
// (a broken installation), never because of the data: no caller could do
// anything but stop, and a wrong cache key must never be returned.
[[noreturn]] void DieOnOpenSslError(const char* call) {
  char reason[256] = "no error queued";
  if (unsigned long code = ERR_get_error()) ERR_error_string_n(code, reason, sizeof reason);
  std::fprintf(stderr, "sha256: OpenSSL's %s failed: %s\n", call, reason);
  std::abort();
}

std::string Hex(const uint8_t* bytes, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (size_t i = 0; i < size; ++i) {
    hex.push_back(kHex[bytes[i] >> 4]);
    hex.push_back(kHex[bytes[i] & 15]);
  }
  return hex;
}

}  // namespace

void Sha256::FreeContext::operator()(evp_md_ctx_st* context) const { EVP_MD_CTX_free(context); }

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr) DieOnOpenSslError("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1)
    DieOnOpenSslError("EVP_DigestInit_ex(sha256)");
}

Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;
Sha256::~Sha256() = default;

void Sha256::Update(std::string_view data) {
  if (EVP_DigestUpdate(context_.get(), data.data(), data.size()) != 1)
    DieOnOpenSslError("EVP_DigestUpdate");
}

std::array<uint8_t, 32> Sha256::Finish() {
  std::array<uint8_t, 32> digest;
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context_.get(), digest.data(), &size) != 1 || size != digest.size())
    DieOnOpenSslError("EVP_DigestFinal_ex");
  return digest;
}

std::string Sha256Hex(std::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  const std::array<uint8_t, 32> digest = hasher.Finish();
  return Hex(digest.data(), digest.size());
}

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  uint8_t mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac,
           &size) == nullptr ||
      size != 32) {
    DieOnOpenSslError("HMAC(sha256)");
  }
  return Hex(mac, size);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace tile_ir::runtime::jit
