// common/protocol/ptyhost_wire.hpp: the broker⇄ptyhost protocol, declared
// once (docs/ptyhost-protocol.md). Control frames carry one JSON document
// with an "op"; PTY bytes travel in Output/Input frames, serialized state in
// State frames (frame.hpp). The ptyhost speaks first (Hello); the broker
// answers HelloAck; then requests carry a broker-chosen `rid` and are
// answered by one Reply with the same rid, in any order.
// Runs in: broker (ptyhost_link.cpp), ptyhost (broker_service.cpp).
// Never: changes a struct without bumping kPtyhostWireVersion; a newer
// broker must still adopt a ptyhost that speaks kPtyhostWireMinVersion.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol/codec.hpp"

namespace signaltty::protocol::ptyhost {

inline constexpr int kPtyhostWireVersion = 1;
inline constexpr int kPtyhostWireMinVersion = 1;

// Feature bits announced in Hello/HelloAck; a side uses a feature only when
// both announce it.
enum Feature : std::uint64_t {
  kFeatureSerializeState = 1u << 0,  // op "serialize" for live upgrade
};
inline constexpr std::uint64_t kFeaturesSupported = kFeatureSerializeState;

// ---- ptyhost → broker ----------------------------------------------------

struct ExitStatus {
  Nullable<int> code;               // exit code, null after a signal
  Nullable<std::string> signal;     // signal name (e.g. "TERM"), null after exit
  static constexpr auto fields() {
    return std::tuple{opt("code", &ExitStatus::code), opt("signal", &ExitStatus::signal)};
  }
  bool operator==(const ExitStatus&) const = default;
};

// First frame on every connection. `meta` is the broker's own pane record,
// kept verbatim by the ptyhost so a broker that lost its snapshot can still
// put the pane back where it was (docs/rules.md, decision 2).
struct Hello {
  std::string op = "hello";
  int version = kPtyhostWireVersion;
  int min_version = kPtyhostWireMinVersion;
  std::uint64_t features = kFeaturesSupported;
  std::string pane_id;
  std::int64_t ptyhost_pid = 0;
  Nullable<std::int64_t> child_pid;  // null until spawned
  std::uint64_t output_offset = 0;
  int cols = 0;
  int rows = 0;
  std::string title;
  std::optional<ExitStatus> exited;  // present once the child is reaped
  bool exit_collected = false;
  Json meta;
  static constexpr auto fields() {
    using H = Hello;
    return std::tuple{req("op", &H::op), req("version", &H::version),
                      req("min_version", &H::min_version), req("features", &H::features),
                      req("pane_id", &H::pane_id), req("ptyhost_pid", &H::ptyhost_pid),
                      opt("child_pid", &H::child_pid), req("output_offset", &H::output_offset),
                      opt("cols", &H::cols), opt("rows", &H::rows), opt("title", &H::title),
                      opt("exited", &H::exited), opt("exit_collected", &H::exit_collected),
                      opt("meta", &H::meta)};
  }
};

struct WireError {
  std::string code;  // an ErrorCode wire name
  std::string message;
  Json details = Json::object();
  static constexpr auto fields() {
    return std::tuple{req("code", &WireError::code), req("message", &WireError::message),
                      opt("details", &WireError::details)};
  }
};

struct Reply {
  std::string op = "reply";
  std::uint64_t rid = 0;
  bool ok = true;
  std::optional<WireError> error;
  Json result = Json::object();
  static constexpr auto fields() {
    return std::tuple{req("op", &Reply::op), req("rid", &Reply::rid), req("ok", &Reply::ok),
                      opt("error", &Reply::error), opt("result", &Reply::result)};
  }
};

// Unsolicited: title change, OSC notification, bell, child exit.
struct Event {
  std::string op = "event";
  std::string kind;  // "title" | "notification" | "bell" | "exited"
  std::optional<std::string> title;
  std::optional<std::string> body;
  std::optional<std::string> source;  // notification: osc9 | osc99 | osc777
  std::optional<ExitStatus> exit;
  std::uint64_t output_offset = 0;    // offset at which it was seen
  static constexpr auto fields() {
    using E = Event;
    return std::tuple{req("op", &E::op),         req("kind", &E::kind),
                      opt("title", &E::title),   opt("body", &E::body),
                      opt("source", &E::source), opt("exit", &E::exit),
                      opt("output_offset", &E::output_offset)};
  }
};

// ---- broker → ptyhost ----------------------------------------------------

struct HelloAck {
  std::string op = "hello";
  int version = kPtyhostWireVersion;
  std::uint64_t features = kFeaturesSupported;
  static constexpr auto fields() {
    return std::tuple{req("op", &HelloAck::op), req("version", &HelloAck::version),
                      req("features", &HelloAck::features)};
  }
};

// Every request: {"op": <name>, "rid": N, ...its fields}. One struct per op.
struct SpawnRequest {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // complete child environment, KEY=VALUE
  std::string cwd;
  int cols = 80;
  int rows = 24;
  Json meta;
  static constexpr auto fields() {
    using R = SpawnRequest;
    return std::tuple{req("argv", &R::argv), req("env", &R::env), req("cwd", &R::cwd),
                      req("cols", &R::cols), req("rows", &R::rows), opt("meta", &R::meta)};
  }
};  // → {child_pid}; exec failure → SPAWN_FAILED with errno in details

struct ResizeRequest {
  int cols = 80;
  int rows = 24;
  static constexpr auto fields() {
    return std::tuple{req("cols", &ResizeRequest::cols), req("rows", &ResizeRequest::rows)};
  }
};  // → {}

struct SignalRequest {
  int signo = 15;
  bool group = false;
  static constexpr auto fields() {
    return std::tuple{req("signo", &SignalRequest::signo), opt("group", &SignalRequest::group)};
  }
};  // → {}; no live child → PANE_EXITED

struct ReadRequest {
  std::string mode = "tail";  // screen | tail | rendered
  int lines = 200;
  bool strip_ansi = true;
  std::uint64_t after_seq = 0;
  static constexpr auto fields() {
    using R = ReadRequest;
    return std::tuple{req("mode", &R::mode), opt("lines", &R::lines),
                      opt("strip_ansi", &R::strip_ansi), opt("after_seq", &R::after_seq)};
  }
};  // → {text, truncated, seq?, next_seq?, dropped?, scrollback_len}

// Streaming of Output frames on/off, and the attach snapshot: with
// `snapshot` the reply's State frame (same rid) holds replayable VT bytes
// covering exactly `output_offset`, and Output frames after it continue
// from there (captured atomically in the ptyhost's single thread).
struct StreamRequest {
  bool on = true;
  bool snapshot = false;
  static constexpr auto fields() {
    return std::tuple{req("on", &StreamRequest::on), opt("snapshot", &StreamRequest::snapshot)};
  }
};  // → {output_offset, cols, rows}

struct ClearRequest {
  static constexpr auto fields() { return std::tuple<>{}; }
};  // → {output_offset}: ESC[H ESC[2J ESC[3J injected in the output stream

struct CloseRequest {
  int signo = 15;
  int kill_after_ms = 5000;
  static constexpr auto fields() {
    return std::tuple{req("signo", &CloseRequest::signo),
                      opt("kill_after_ms", &CloseRequest::kill_after_ms)};
  }
};  // → {}; the group gets signo, then SIGKILL; the ptyhost exits once
    // the child is reaped and the exit collected

struct CollectExitRequest {
  static constexpr auto fields() { return std::tuple<>{}; }
};  // → {}: the broker has stored the exit status; the ptyhost may forget it

struct SetMetaRequest {
  Json meta;
  static constexpr auto fields() { return std::tuple{req("meta", &SetMetaRequest::meta)}; }
};  // → {}

// Input is an Input frame tagged with its rid whose bytes start with a u32
// LE budget in ms (what is left of the request's 5 s), then the bytes for
// the PTY. Writes are FIFO; the Reply says {written} or an error (TIMEOUT,
// PANE_EXITED, IO_ERROR) with details.written_bytes (docs/rules.md, Input).

// Every request op, for the dispatch table on the ptyhost side.
inline constexpr std::string_view kOpSpawn = "spawn";
inline constexpr std::string_view kOpResize = "resize";
inline constexpr std::string_view kOpSignal = "signal";
inline constexpr std::string_view kOpRead = "read";
inline constexpr std::string_view kOpStream = "stream";
inline constexpr std::string_view kOpClear = "clear";
inline constexpr std::string_view kOpClose = "close";
inline constexpr std::string_view kOpCollectExit = "collect_exit";
inline constexpr std::string_view kOpSetMeta = "set_meta";
inline constexpr std::string_view kOpSerialize = "serialize";  // kFeatureSerializeState

}  // namespace signaltty::protocol::ptyhost
