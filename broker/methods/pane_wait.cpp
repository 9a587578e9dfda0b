// broker/methods/pane_wait.cpp: pane.wait_for_output
// (docs/rules.md "Reads"): re-read every 100 ms with pane.read's mode, lines and
// strip_ansi until one line contains `match` (or matches it as an RE2
// pattern); rendered mode reads the whole ring past its cursor each time
// and advances the cursor; an exited pane gets one last read, then
// PANE_EXITED; the deadline gives TIMEOUT; the client leaving cancels.
// Runs in: broker (io thread). Never: compiles a client's pattern with
// anything but RE2 (linear time).
#include <cmath>

#include <boost/asio/steady_timer.hpp>
#include <re2/re2.h>

#include "broker/handlers.hpp"
#include "broker/store.hpp"
#include "broker/supervisor.hpp"

namespace signaltty::broker {
namespace {

using SteadyClock = std::chrono::steady_clock;

// docs/rules.md, Reads: rendered waits read up to the ring's cap per poll.
constexpr std::uint32_t kRenderedPollLines = p::kReadLinesMax;
// Ours: a timeout past this is as good as forever (and keeps the clock sane).
constexpr double kOutputWaitTimeoutMaxS = 365.0 * 24 * 3600;

class OutputWait : public std::enable_shared_from_this<OutputWait> {
 public:
  OutputWait(Services& services, std::shared_ptr<Session> session, std::string pane_id,
             p::PaneWaitForOutputParams params, std::unique_ptr<RE2> regex,
             Reply<p::PaneWaitForOutputResult> reply)
      : services_(services),
        session_(std::move(session)),
        pane_id_(std::move(pane_id)),
        params_(std::move(params)),
        regex_(std::move(regex)),
        reply_(std::move(reply)),
        timer_(services.io),
        deadline_(SteadyClock::now() + std::chrono::milliseconds(
                                     static_cast<std::int64_t>(params_.timeout_s * 1000))) {
    spec_ = ReadSpec{params_.mode, params_.lines, params_.strip_ansi, params_.after_seq};
    if (spec_.mode == p::ReadMode::Rendered) spec_.lines = kRenderedPollLines;
  }

  void poll() {
    auto session = session_.lock();
    if (!session || session->closed()) return;  // cancelled: nobody to answer
    auto pane = services_.store.find_pane(pane_id_);
    if (!pane.ok()) return reply_(std::move(pane).error());
    const bool exited = (*pane)->live.state != "live";
    services_.supervisor.read(pane_id_, spec_,
                              [self = shared_from_this(), exited](Result<p::PaneReadResult> r) {
                                self->on_read(std::move(r), exited);
                              });
  }

 private:
  void on_read(Result<p::PaneReadResult> read, bool exited) {
    if (!read.ok()) return reply_(std::move(read).error());
    if (auto line = first_match(read->text)) {
      p::PaneWaitForOutputResult out{std::move(read->text), read->truncated, read->seq,
                                     read->next_seq,        read->dropped,   std::move(*line)};
      return reply_(std::move(out));
    }
    if (exited) {
      Error e{ErrorCode::PaneExited, "pane '" + pane_id_ + "' exited before the output appeared"};
      e.details = {{"pane_id", pane_id_}};
      return reply_(std::move(e));
    }
    if (spec_.mode == p::ReadMode::Rendered && read->next_seq) spec_.after_seq = *read->next_seq;
    if (SteadyClock::now() >= deadline_) {
      Error e{ErrorCode::Timeout, "no matching output within the timeout"};
      e.details = {{"pane_id", pane_id_}, {"timeout_s", params_.timeout_s}};
      return reply_(std::move(e));
    }
    timer_.expires_after(std::min<SteadyClock::duration>(p::kOutputWaitPoll, deadline_ - SteadyClock::now()));
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->poll();
    });
  }

  std::optional<std::string> first_match(const std::string& text) const {
    std::size_t pos = 0;
    while (pos <= text.size()) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      const std::string_view line(text.data() + pos, nl - pos);
      const bool hit = regex_ ? RE2::PartialMatch(line, *regex_)
                              : line.find(params_.match) != std::string_view::npos;
      if (hit) return std::string(line);
      pos = nl + 1;
    }
    return std::nullopt;
  }

  Services& services_;
  std::weak_ptr<Session> session_;
  std::string pane_id_;
  p::PaneWaitForOutputParams params_;
  std::unique_ptr<RE2> regex_;
  Reply<p::PaneWaitForOutputResult> reply_;
  boost::asio::steady_timer timer_;
  SteadyClock::time_point deadline_;
  ReadSpec spec_;
};

}  // namespace

void handle(p::PaneWaitForOutput, Ctx& ctx, p::PaneWaitForOutputParams&& params,
            Reply<p::PaneWaitForOutputResult> reply) {
  if (!std::isfinite(params.timeout_s) || params.timeout_s < 0) {
    Error e = bad_params("timeout_s: must be a non-negative number");
    e.details = {{"field", "timeout_s"}};
    return reply(std::move(e));
  }
  params.timeout_s = std::min(params.timeout_s, kOutputWaitTimeoutMaxS);
  if (params.lines == 0 || params.match.empty()) {
    Error e = bad_params(params.match.empty() ? "match: must not be empty" : "lines: at least 1");
    e.details = {{"field", params.match.empty() ? "match" : "lines"}};
    return reply(std::move(e));
  }
  params.lines = std::min(params.lines, p::kReadLinesMax);
  std::unique_ptr<RE2> regex;
  if (params.regex) {
    RE2::Options options;
    options.set_log_errors(false);
    regex = std::make_unique<RE2>(params.match, options);
    if (!regex->ok()) {
      Error e = bad_params("match: invalid regex: " + regex->error());
      e.details = {{"field", "match"}};
      return reply(std::move(e));
    }
  }
  auto pane = ctx.services.store.find_pane(params.pane_id);
  if (!pane.ok()) return reply(std::move(pane).error());
  auto wait = std::make_shared<OutputWait>(ctx.services, ctx.session, (*pane)->id,
                                           std::move(params), std::move(regex), std::move(reply));
  wait->poll();
}

}  // namespace signaltty::broker
