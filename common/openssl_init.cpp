// common/openssl_init.cpp: see openssl_init.hpp. Runs in: broker and CLI.
#include "common/openssl_init.hpp"

#include <openssl/crypto.h>

namespace signaltty {

bool openssl_ready() {
  // The first initialisation decides whether the configuration is ever
  // loaded: later implicit ones find it done.
  static const bool ready = OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) == 1;
  return ready;
}

}  // namespace signaltty
