// common/openssl_init.cpp: see openssl_init.hpp. Runs in: broker and CLI.
#include "common/openssl_init.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/audit_chain.hpp"
#include "common/hex.hpp"

namespace signaltty {

bool openssl_ready() {
  // The first initialisation decides whether the configuration is ever
  // loaded: later implicit ones find it done.
  static const bool ready = OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) == 1;
  return ready;
}

std::string hmac_sha256_hex(std::span<const std::uint8_t> key, std::string_view data) {
  if (!openssl_ready()) return {};
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // A null key with length 0 would mean "the key set before" to OpenSSL's
  // MAC layer, and there is none: an empty key is a valid pointer.
  static constexpr unsigned char kEmptyKey = 0;
  if (HMAC(EVP_sha256(), key.empty() ? &kEmptyKey : key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len) == nullptr)
    return {};
  return to_hex(mac, len);
}

Status crypto_self_test() {
  if (!openssl_ready()) return Error{ErrorCode::Internal, "OpenSSL did not initialise"};
  // FIPS 180-2, appendix B.1.
  if (audit::sha256_hex("abc") != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    return Error{ErrorCode::Internal, "SHA-256 failed its known-answer test"};
  // RFC 4231, test case 2.
  constexpr std::string_view kKey = "Jefe";
  const std::span<const std::uint8_t> key(reinterpret_cast<const std::uint8_t*>(kKey.data()),
                                          kKey.size());
  if (hmac_sha256_hex(key, "what do ya want for nothing?") !=
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    return Error{ErrorCode::Internal, "HMAC-SHA256 failed its known-answer test"};
  return {};
}

}  // namespace signaltty
