// common/openssl_init.hpp: OpenSSL, set up once per process before its first
// digest or MAC, without a configuration file; HMAC-SHA256; and the
// known-answer tests the broker runs before it serves. Random bytes come
// from the kernel (fill_random in common/ids.hpp), not from OpenSSL.
// Runs in: broker and CLI (the audit chain, pane tokens).
// Never: reads OPENSSL_CONF or the system openssl.cnf. Such a file can load
// provider modules into the process or make every digest fail, and loading
// it left the broker about 0.4 MiB larger: SHA-256 and HMAC need only the
// default provider, which OpenSSL loads on first use.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty {

// True once OpenSSL is initialised; every call after the first is a load.
bool openssl_ready();

// HMAC-SHA256 of `data` under `key` as 64 lowercase hex digits; empty when
// OpenSSL fails (it fails only on allocation failure once ready).
std::string hmac_sha256_hex(std::span<const std::uint8_t> key, std::string_view data);

// SHA-256 (the audit chain) and HMAC-SHA256 (pane tokens) against
// published vectors. The broker runs this before it serves: a libcrypto
// that computes either wrongly, or not at all, stops it at start with this
// error instead of failing request by request. OpenSSL's one-time set-up
// (its default provider) happens here too, so it is part of the broker's
// start-up cost and not of its first pane's.
Status crypto_self_test();

}  // namespace signaltty
