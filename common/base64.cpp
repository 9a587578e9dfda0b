// common/base64.cpp: base64 via EVP_EncodeBlock/EVP_DecodeBlock.
// Runs in: broker, CLI.
#include "common/base64.hpp"

#include <openssl/evp.h>

#include <climits>

namespace signaltty {

std::string base64_encode(std::string_view bytes) {
  std::string out;
  base64_append(out, bytes);
  return out;
}

void base64_append(std::string& out, std::string_view bytes) {
  if (bytes.empty()) return;
  const std::size_t at = out.size();
  out.resize(at + 4 * ((bytes.size() + 2) / 3));
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data() + at),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(at + static_cast<std::size_t>(n));
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.empty()) return std::string();
  if (text.size() % 4 != 0 || text.size() > static_cast<std::size_t>(INT_MAX)) return std::nullopt;
  std::string out(3 * (text.size() / 4), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock keeps the padding's zero bytes: drop them.
  std::size_t pad = 0;
  if (text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

}  // namespace signaltty
