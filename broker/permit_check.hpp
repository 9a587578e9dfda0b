// broker/permit_check.hpp: the router's check of one request against the
// (method, role) table of common/protocol/permits.hpp, before the method's
// params are decoded (docs/security.md, "Roles on the socket").
// Runs in: broker (io thread).
// Never: lets a connection that presented a pane's token act for another
// pane, answer a decision, or drive a pane outside its lineage; reveals or
// logs a token.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "common/protocol/codec.hpp"

namespace signaltty::broker {

class Session;
class Store;
class PaneTokens;

// Binds `session` to the pane of `token` when one is given (FORBIDDEN for a
// token that does not verify, whose pane is gone, or that differs from the
// one the connection already presented), then applies the pane role's
// permit for `method`: FORBIDDEN when refused; for OwnPane and SpawnChild
// rules `params` gets the token's pane filled in where it names none. A
// connection with no token is the `user` role and passes unchanged.
Status authorize(const Store& store, const PaneTokens& tokens, Session& session,
                 std::string_view method, const std::optional<std::string>& token,
                 protocol::Json& params);

// True iff `target` is `own` or was spawned from it, directly or through
// its children (parent_pane_id), both given as pane ids. (The permit check
// also lets a pane drive the panes of a `shared_control` workspace it is in.)
bool in_lineage(const Store& store, std::string_view own, std::string_view target);

}  // namespace signaltty::broker
