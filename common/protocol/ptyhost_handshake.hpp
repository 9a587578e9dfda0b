// common/protocol/ptyhost_handshake.hpp: who may speak to a ptyhost, and how
// long a connection may take to prove it (docs/ptyhost-protocol.md,
// "Who may connect").
// Runs in: broker (holds the lock) and ptyhost (checks every peer against it).
// Never: carries a secret; the proof is the kernel's own record of which
// process holds the panes directory's lock and which process connected.
//
// The one broker serving a panes directory holds a POSIX record lock
// (fcntl F_SETLK, write) on `<panes>/broker.lock` for its whole life; the
// same lock keeps a second broker off that directory. A ptyhost opens the
// file at start and, for each connection it accepts, compares the peer's
// SO_PEERCRED {uid, pid} with our uid and the lock holder's pid (F_GETLK).
// Anyone else, a pane's own program included, is closed before a byte is
// sent. A broker restarted after a crash takes the lock anew and is
// accepted by every ptyhost still running: the proof needs nothing the old
// broker knew.
//
// A peer that passes the check is sent Hello and must answer HelloAck within
// kPtyhostHandshakeTimeout, or it is dropped; a silent peer never delays a
// broker that answers.
#pragma once

#include <chrono>
#include <string_view>

namespace signaltty::protocol::ptyhost {

// In the panes directory; created 0600 by whichever side opens it first.
inline constexpr std::string_view kBrokerLockName = "broker.lock";

// From accept to HelloAck. A broker answers Hello on its next loop turn;
// this is the same bound the broker gives a ptyhost's Hello on adoption.
inline constexpr std::chrono::milliseconds kPtyhostHandshakeTimeout{3000};

}  // namespace signaltty::protocol::ptyhost
