// broker/pane_tokens.hpp: each pane's SIGNALTTY_TOKEN, the secret a process
// in that pane presents on the socket to act as the pane (docs/security.md,
// "Roles on the socket"). A token is "stp1.<pane_id>.<hex>" where <hex> is
// HMAC-SHA256 of the pane id under a per-state-dir key: the broker keeps no
// token anywhere, so a pane spawned just before a crash is recognised after
// it, and a pane that is gone can never be named by one.
// Runs in: broker (io thread). Never: logs, journals or stores a token; the
// key file is the only secret at rest (0600 in the state dir).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::broker {

class PaneTokens {
 public:
  static constexpr std::size_t kKeyBytes = 32;
  using Key = std::array<std::uint8_t, kKeyBytes>;

  explicit PaneTokens(const Key& key) : key_(key) {}
  // Reads <state_dir>/pane-token.key, or creates it (32 random bytes, 0600,
  // durable) when it is missing. A key file of another size is replaced
  // with a warning: the tokens of running panes then stop being accepted.
  static Result<PaneTokens> load_or_create(const std::string& state_dir);

  // The token injected into `pane_id`'s environment.
  std::string token_for(std::string_view pane_id) const;
  // The pane a token was made for, when its MAC verifies (constant time);
  // nullopt for anything else. Whether that pane still exists is the
  // caller's question.
  std::optional<std::string> pane_of(std::string_view token) const;

 private:
  std::string mac_hex(std::string_view pane_id) const;
  Key key_;
};

}  // namespace signaltty::broker
