// common/protocol/ptyhost_wire.hpp: the broker⇄ptyhost protocol, declared
// once (docs/ptyhost-protocol.md). Control frames carry one JSON document
// with an "op"; PTY bytes travel in Output/Input frames, serialized state in
// State frames (frame.hpp). The ptyhost speaks first (Hello); the broker
// answers HelloAck; then requests carry a broker-chosen `rid` and are
// answered by one Reply with the same rid, in any order.
// Every request op is declared once at the bottom (PtyhostOp: name, typed
// request, typed reply), as the client methods are in method_decl.hpp; the
// broker's link has one typed call per op and the ptyhost answers each with
// the PaneHost call of the same verb.
// Runs in: broker (ptyhost_link.cpp), ptyhost (broker_service.cpp).
// Never: changes a struct without bumping kPtyhostWireVersion; a newer
// broker must still adopt a ptyhost that speaks kPtyhostWireMinVersion.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/protocol/codec.hpp"
#include "common/protocol/method_decl.hpp"
#include "common/protocol/methods/pane.hpp"

namespace signaltty::protocol::ptyhost {

// 2: spawn's exec probe; 3: screen watch; 4: output notice
inline constexpr int kPtyhostWireVersion = 4;
inline constexpr int kPtyhostWireMinVersion = 1;

// Feature bits announced in Hello/HelloAck; a side uses a feature only when
// both announce it.
enum Feature : std::uint64_t {
  kFeatureSerializeState = 1u << 0,  // op "serialize" for live upgrade
  kFeatureExecProbe = 1u << 1,       // spawn's `probe`
  kFeatureScreenWatch = 1u << 2,     // op "screen", events screen_changed and foreground
  kFeatureOutputNotice = 1u << 3,    // event printed, once after each rendered read
};
inline constexpr std::uint64_t kFeaturesSupported =
    kFeatureSerializeState | kFeatureExecProbe | kFeatureScreenWatch | kFeatureOutputNotice;

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

// What an unsolicited Event reports. ScreenChanged and Foreground only go
// to a broker that announced kFeatureScreenWatch, Printed only to one that
// announced kFeatureOutputNotice.
enum class EventKind { Title, Notification, Bell, Exited, ScreenChanged, Foreground, Printed };

}  // namespace signaltty::protocol::ptyhost

namespace signaltty::protocol {
template <>
struct EnumNames<ptyhost::EventKind> {
  static constexpr std::array<std::pair<ptyhost::EventKind, std::string_view>, 7> names{
      {{ptyhost::EventKind::Title, "title"},
       {ptyhost::EventKind::Notification, "notification"},
       {ptyhost::EventKind::Bell, "bell"},
       {ptyhost::EventKind::Exited, "exited"},
       {ptyhost::EventKind::ScreenChanged, "screen_changed"},
       {ptyhost::EventKind::Foreground, "foreground"},
       {ptyhost::EventKind::Printed, "printed"}}};
};
}  // namespace signaltty::protocol

namespace signaltty::protocol::ptyhost {

// Unsolicited: title change, OSC notification, bell, child exit; with
// kFeatureScreenWatch also the screen changing (once after each `screen`
// request that rearmed it: the broker then asks for the screen when it
// wants it) and the terminal's foreground process group changing; with
// kFeatureOutputNotice the pane printing (once after each `read` in
// rendered mode: the broker, which sees no output of a pane nobody views,
// then reads the rendered head for the pane's saved tail).
struct Event {
  std::string op = "event";
  EventKind kind = EventKind::Bell;
  std::optional<std::string> title;
  std::optional<std::string> body;
  std::optional<std::string> source;  // notification: osc9 | osc99 | osc777
  std::optional<ExitStatus> exit;
  std::optional<std::int64_t> pgid;   // foreground: the new foreground process group
  std::uint64_t output_offset = 0;    // offset at which it was seen
  static constexpr auto fields() {
    using E = Event;
    return std::tuple{req("op", &E::op),         req("kind", &E::kind),
                      opt("title", &E::title),   opt("body", &E::body),
                      opt("source", &E::source), opt("exit", &E::exit),
                      opt("pgid", &E::pgid),     opt("output_offset", &E::output_offset)};
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
// Before the program: run `probe` with the same env and cwd, in its own
// process group, on /dev/null; exit 0 within timeout_ms means the program
// runs as `argv_if_passed` instead of `argv`. A probe past its time has
// its whole group killed. (Codex's --no-daemon, docs/rules.md.)
inline constexpr int kExecProbeTimeoutMaxMs = 10000;
struct ExecProbe {
  std::vector<std::string> probe;
  std::vector<std::string> argv_if_passed;
  int timeout_ms = 3000;  // 1..kExecProbeTimeoutMaxMs
  static constexpr auto fields() {
    return std::tuple{req("probe", &ExecProbe::probe),
                      req("argv_if_passed", &ExecProbe::argv_if_passed),
                      req("timeout_ms", &ExecProbe::timeout_ms)};
  }
};

struct SpawnRequest {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // complete child environment, KEY=VALUE
  std::string cwd;
  int cols = 80;
  int rows = 24;
  Json meta;
  std::optional<ExecProbe> probe;  // only when both sides have kFeatureExecProbe
  static constexpr auto fields() {
    using R = SpawnRequest;
    return std::tuple{req("argv", &R::argv), req("env", &R::env),   req("cwd", &R::cwd),
                      req("cols", &R::cols), req("rows", &R::rows), opt("meta", &R::meta),
                      opt("probe", &R::probe)};
  }
};  // exec failure → SPAWN_FAILED with errno in details
struct SpawnReply {
  std::int64_t child_pid = 0;
  std::optional<bool> probe_passed;  // present when the request had a probe
  static constexpr auto fields() {
    return std::tuple{req("child_pid", &SpawnReply::child_pid),
                      opt("probe_passed", &SpawnReply::probe_passed)};
  }
};

struct ResizeRequest {
  int cols = 80;
  int rows = 24;
  static constexpr auto fields() {
    return std::tuple{req("cols", &ResizeRequest::cols), req("rows", &ResizeRequest::rows)};
  }
};
struct ResizeReply {  // the size the ptyhost applied (clamped)
  int cols = 0;
  int rows = 0;
  static constexpr auto fields() {
    return std::tuple{opt("cols", &ResizeReply::cols), opt("rows", &ResizeReply::rows)};
  }
};

struct SignalRequest {
  int signo = 15;
  bool group = false;
  static constexpr auto fields() {
    return std::tuple{req("signo", &SignalRequest::signo), opt("group", &SignalRequest::group)};
  }
};  // → Empty; no live child → PANE_EXITED

struct ReadRequest {
  ReadMode mode = ReadMode::Tail;
  int lines = 200;
  bool strip_ansi = true;
  std::uint64_t after_seq = 0;
  static constexpr auto fields() {
    using R = ReadRequest;
    return std::tuple{req("mode", &R::mode), opt("lines", &R::lines),
                      opt("strip_ansi", &R::strip_ansi), opt("after_seq", &R::after_seq)};
  }
};
struct ReadReply {
  std::string text;
  bool truncated = false;
  std::optional<std::uint64_t> seq;       // rendered only
  std::optional<std::uint64_t> next_seq;  // rendered only
  std::optional<bool> dropped;            // rendered only
  std::uint64_t scrollback_len = 0;
  static constexpr auto fields() {
    using R = ReadReply;
    return std::tuple{req("text", &R::text),         opt("truncated", &R::truncated),
                      opt("seq", &R::seq),           opt("next_seq", &R::next_seq),
                      opt("dropped", &R::dropped),   opt("scrollback_len", &R::scrollback_len)};
  }
};

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
};
struct StreamReply {
  std::uint64_t output_offset = 0;
  int cols = 0;
  int rows = 0;
  static constexpr auto fields() {
    return std::tuple{req("output_offset", &StreamReply::output_offset),
                      req("cols", &StreamReply::cols), req("rows", &StreamReply::rows)};
  }
};

struct ClearRequest {
  static constexpr auto fields() { return std::tuple<>{}; }
};  // ESC[H ESC[2J ESC[3J injected in the output stream
struct ClearReply {
  std::uint64_t output_offset = 0;
  static constexpr auto fields() {
    return std::tuple{opt("output_offset", &ClearReply::output_offset)};
  }
};

struct CloseRequest {
  int signo = 15;
  int kill_after_ms = 5000;
  static constexpr auto fields() {
    return std::tuple{req("signo", &CloseRequest::signo),
                      opt("kill_after_ms", &CloseRequest::kill_after_ms)};
  }
};  // → Empty; the group gets signo, then SIGKILL; the ptyhost exits once
    // the child is reaped and the exit collected

struct CollectExitRequest {
  static constexpr auto fields() { return std::tuple<>{}; }
};  // → Empty: the broker has stored the exit status; the ptyhost may forget it

struct SetMetaRequest {
  Json meta;
  static constexpr auto fields() { return std::tuple{req("meta", &SetMetaRequest::meta)}; }
};  // → Empty

// kFeatureSerializeState: the State frame (same rid) holds the blob.
struct SerializeRequest {
  static constexpr auto fields() { return std::tuple<>{}; }
};
struct SerializeReply {
  std::uint64_t bytes = 0;
  std::uint64_t output_offset = 0;
  static constexpr auto fields() {
    return std::tuple{req("bytes", &SerializeReply::bytes),
                      req("output_offset", &SerializeReply::output_offset)};
  }
};

// kFeatureScreenWatch: the visible screen as plain text, one string per
// row (trailing blanks trimmed), and the title. `rearm` lets the next
// change send one screen_changed event again; a read-only look (pane.explain)
// leaves the watch as it is.
struct ScreenRequest {
  bool rearm = true;
  static constexpr auto fields() { return std::tuple{opt("rearm", &ScreenRequest::rearm)}; }
};
struct ScreenReply {
  std::string title;
  std::vector<std::string> rows;
  bool alt_screen = false;
  static constexpr auto fields() {
    return std::tuple{req("title", &ScreenReply::title), req("rows", &ScreenReply::rows),
                      opt("alt_screen", &ScreenReply::alt_screen)};
  }
};

// Input is an Input frame tagged with its rid whose bytes start with a u32
// LE budget in ms (what is left of the request's 5 s), then the bytes for
// the PTY. Writes are FIFO; the Reply says {written} or an error (TIMEOUT,
// PANE_EXITED, IO_ERROR) with details.written_bytes (docs/rules.md, Input).

struct InputReply {
  std::uint64_t written = 0;
  static constexpr auto fields() { return std::tuple{req("written", &InputReply::written)}; }
};

// ---- the table of request ops ----------------------------------------------

// One request op: its name on the wire, its request and its reply.
template <FixedString Name, class Req, class Rep>
struct PtyhostOp {
  static constexpr std::string_view name = Name.view();
  using Request = Req;
  using Reply = Rep;
};

using OpSpawn = PtyhostOp<"spawn", SpawnRequest, SpawnReply>;
using OpResize = PtyhostOp<"resize", ResizeRequest, ResizeReply>;
using OpSignal = PtyhostOp<"signal", SignalRequest, Empty>;
using OpRead = PtyhostOp<"read", ReadRequest, ReadReply>;
using OpStream = PtyhostOp<"stream", StreamRequest, StreamReply>;
using OpClear = PtyhostOp<"clear", ClearRequest, ClearReply>;
using OpClose = PtyhostOp<"close", CloseRequest, Empty>;
using OpCollectExit = PtyhostOp<"collect_exit", CollectExitRequest, Empty>;
using OpSetMeta = PtyhostOp<"set_meta", SetMetaRequest, Empty>;
using OpSerialize = PtyhostOp<"serialize", SerializeRequest, SerializeReply>;
using OpScreen = PtyhostOp<"screen", ScreenRequest, ScreenReply>;

using PtyhostOps = TypeList<OpSpawn, OpResize, OpSignal, OpRead, OpStream, OpClear, OpClose,
                            OpCollectExit, OpSetMeta, OpSerialize, OpScreen>;

}  // namespace signaltty::protocol::ptyhost
