// common/protocol/methods/subscribe.hpp: subscribe (docs/rules.md:
// Events, Replay). Runs in: every process.
#pragma once

#include "common/protocol/method_decl.hpp"

namespace signaltty::protocol {

struct SubscribeParams {
  std::optional<std::vector<std::string>> events;
  std::optional<std::uint64_t> from_seq;
  std::optional<std::vector<std::string>> task_ids;
  static constexpr auto fields() {
    using P = SubscribeParams;
    return std::tuple{
        opt("events", &P::events, "event names or globs (`*`, `agent.*`, ...); default all"),
        opt("from_seq", &P::from_seq, "replay state events with seq > from_seq first"),
        opt("task_ids", &P::task_ids, "only events whose payload task_id matches")};
  }
};

enum class ReplayStatus { Complete, HistoryLost, Truncated, Unavailable, CursorAhead };
template <>
struct EnumNames<ReplayStatus> {
  static constexpr std::array<std::pair<ReplayStatus, std::string_view>, 5> names{
      {{ReplayStatus::Complete, "complete"},
       {ReplayStatus::HistoryLost, "history_lost"},
       {ReplayStatus::Truncated, "truncated"},
       {ReplayStatus::Unavailable, "unavailable"},
       {ReplayStatus::CursorAhead, "cursor_ahead"}}};
};

inline constexpr std::string_view kRecoverySnapshotThenResubscribe = "snapshot_then_resubscribe";

struct ReplayInfo {
  ReplayStatus status = ReplayStatus::Complete;
  std::uint64_t requested_after = 0;
  std::uint64_t retained_after = 0;
  std::uint64_t through = 0;
  std::uint64_t returned = 0;
  std::optional<std::string> recovery;
  static constexpr auto fields() {
    using R = ReplayInfo;
    return std::tuple{req("status", &R::status), req("requested_after", &R::requested_after),
                      req("retained_after", &R::retained_after), req("through", &R::through),
                      req("returned", &R::returned), opt("recovery", &R::recovery)};
  }
};

struct SubscribeResult {
  bool subscribed = true;
  std::uint64_t seq = 0;
  std::optional<ReplayInfo> replay;
  static constexpr auto fields() {
    using R = SubscribeResult;
    return std::tuple{req("subscribed", &R::subscribed),
                      req("seq", &R::seq, "handoff fence: live events follow with seq > this"),
                      opt("replay", &R::replay)};
  }
};

using Subscribe =
    MethodDecl<"subscribe", "Stream state events, optionally replaying from a seq", SubscribeParams,
               SubscribeResult, kConnectionBound>;

}  // namespace signaltty::protocol
