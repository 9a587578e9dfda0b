// common/base64.hpp: standard base64 (RFC 4648, with padding) over OpenSSL
// libcrypto, for PTY bytes at the client edge. Runs in: broker, CLI.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace signaltty {

std::string base64_encode(std::string_view bytes);
// Appends the encoding of `bytes` to `out`, with no copy between.
void base64_append(std::string& out, std::string_view bytes);
// nullopt for anything that is not canonical padded base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace signaltty
