// common/openssl_init.hpp: OpenSSL, set up once per process before its first
// digest, MAC or random draw, without a configuration file.
// Runs in: broker and CLI (the audit chain, pane tokens).
// Never: reads OPENSSL_CONF or the system openssl.cnf. Such a file can load
// provider modules into the process or make every digest fail, and loading
// it left the broker about 0.4 MiB larger: SHA-256, HMAC and the DRBG need
// only the default provider, which OpenSSL loads on first use.
#pragma once

namespace signaltty {

// True once OpenSSL is initialised; every call after the first is a load.
bool openssl_ready();

}  // namespace signaltty
