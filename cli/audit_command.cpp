// cli/audit_command.cpp: `signaltty audit` → the offline verifier and
// reader of the audit journal, and their report on stdout.
// Runs in: CLI. Never: connects to the broker.
#include "cli/audit_command.hpp"

#include <pwd.h>
#include <unistd.h>

#include <chrono>

#include "cli/app.hpp"
#include "cli/audit_reader.hpp"
#include "cli/exit_codes.hpp"
#include "cli/terminal_text.hpp"
#include "common/audit_verify.hpp"
#include "common/fs.hpp"

namespace signaltty::cli {
namespace {

using audit::Json;
using audit::Outcome;

// How long follow mode sleeps when the directory gives no sign (a missed
// inotify event, or none available).
constexpr int kFollowPollMs = 1000;

int status_of(Outcome outcome) {
  switch (outcome) {
    case Outcome::Clean: return kExitOk;
    case Outcome::Tampered: return kExitAuditTampered;
    case Outcome::Unreadable: return kExitAuditUnreadable;
  }
  return kExitAuditUnreadable;
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::Clean: return "clean";
    case Outcome::Tampered: return "tampered";
    case Outcome::Unreadable: return "unreadable";
  }
  return "unreadable";
}

Json report_json(const audit::VerifyReport& r) {
  Json out{{"outcome", outcome_name(r.outcome)},
           {"records", r.predecessor_records + r.current_records},
           {"predecessor_records", r.predecessor_records},
           {"current_records", r.current_records},
           {"notes", r.notes}};
  if (!r.head.empty()) {
    out["first_seq"] = r.first_seq;
    out["head"] = audit::format_head(r.head);
  }
  if (r.outcome != Outcome::Clean) out["reason"] = r.reason;
  if (r.bad_seq) out["bad_seq"] = *r.bad_seq;
  return out;
}

// "TAMPERED at seq N: why" / "UNREADABLE: why", on stdout: it is the answer.
void print_failure(const audit::VerifyReport& r, std::ostream& out) {
  out << (r.outcome == Outcome::Tampered ? "TAMPERED" : "UNREADABLE");
  if (r.bad_seq) out << " at seq " << *r.bad_seq;
  out << ": " << printable(r.reason) << '\n';
}

void print_clean(const audit::VerifyReport& r, bool anchored, std::ostream& out) {
  const auto records = r.predecessor_records + r.current_records;
  out << "OK: " << records << " records";
  if (records > 0) out << ", seq " << r.first_seq << " to " << r.head.seq;
  out << " (" << audit::kPredecessorName << ": " << r.predecessor_records << ", "
      << audit::kCurrentName << ": " << r.current_records << ")";
  if (!r.head.empty()) out << "; head " << audit::format_head(r.head);
  if (anchored) out << "; extends the anchor";
  out << '\n';
}

void print_notes(const audit::VerifyReport& r, std::ostream& err) {
  for (const auto& note : r.notes) err << "note: " << printable(note) << '\n';
}

}  // namespace

std::string default_state_dir(const EnvLookup& env) {
  if (auto xdg = env("XDG_STATE_HOME"); xdg && !xdg->empty()) return fs::join(*xdg, "signaltty");
  std::string home;
  if (auto h = env("HOME"); h && !h->empty())
    home = *h;
  else if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_dir != nullptr)
    home = pw->pw_dir;
  else
    home = "/";
  return fs::join(home, ".local/state/signaltty");
}

AuditCommand::AuditCommand(CLI::App& parent) {
  group_ = parent.add_subcommand(
      "audit",
      "Verify and read the audit journal straight from the state dir (local: needs no broker)");
  group_->require_subcommand(1);
  verify_ = group_->add_subcommand(
      "verify", "Check the hash chain, seq order, reservation and retention evidence");
  verify_->add_option("--anchor", anchor_,
                      "also prove the journal still extends this head, as `audit head` or the "
                      "system log printed it")
      ->type_name("SEQ:HASH");
  head_ = group_->add_subcommand(
      "head", "Print the chain head SEQ:HASH for a reviewer to keep (after a clean verify)");
  show_ = group_->add_subcommand("show", "Print the journal's records, one line each");
  tail_ = group_->add_subcommand("tail", "Print the last records (-n N, default 10)");
  tail_->add_option("-n,--lines", lines_, "how many of the last matching records")
      ->type_name("N");
  for (CLI::App* app : {verify_, head_, show_, tail_})
    app->add_option("--state-dir", state_dir_,
                    "the broker's state dir (default $XDG_STATE_HOME/signaltty, else "
                    "~/.local/state/signaltty)")
        ->type_name("DIR");
  add_reader_options(*show_);
  add_reader_options(*tail_);
}

void AuditCommand::add_reader_options(CLI::App& app) {
  app.add_flag("-f,--follow", follow_, "keep printing records as they are written, across rotation");
  auto* since = app.add_option("--since", since_,
                               "records at or after this UTC time (2026-03-01T10:00:00Z or a "
                               "prefix) or this long ago (90s, 15m, 2h, 7d)")
                    ->type_name("TIME");
  auto* from = app.add_option("--from-seq", from_seq_, "records with seq N or later")->type_name("N");
  since->excludes(from);
  app.add_option("--pane", pane_, "records whose payload names this pane id")->type_name("ID");
  app.add_option("--workspace", workspace_, "records whose payload names this workspace id")
      ->type_name("ID");
  app.add_option("--event", event_, "records whose event name matches this glob (pane.*)")
      ->type_name("GLOB");
}

std::string AuditCommand::state_dir(const CliIo& io) const {
  return state_dir_.empty() ? default_state_dir(io.env) : state_dir_;
}

int AuditCommand::run(std::optional<JsonStyle> json, const CliIo& io) const {
  if (verify_->parsed()) return run_verify(json, io);
  if (head_->parsed()) return run_head(json, io);
  return run_read(tail_->parsed(), json, io);
}

int AuditCommand::run_verify(std::optional<JsonStyle> json, const CliIo& io) const {
  std::optional<audit::ChainHead> anchor;
  if (!anchor_.empty()) {
    anchor = audit::parse_head(anchor_);
    if (!anchor) {
      io.err << error_line(Error{ErrorCode::BadParams,
                                 "--anchor: want SEQ:HASH (a seq, a colon, 64 hex digits)"})
             << '\n';
      return kExitUsage;
    }
  }
  const audit::VerifyReport report = audit::verify_state_dir(state_dir(io), anchor);
  if (json) {
    Json out = report_json(report);
    if (anchor) out["anchor_extended"] = report.anchor_extended;
    render_json(out, *json, io.out);
  } else if (report.outcome == Outcome::Clean) {
    print_clean(report, anchor.has_value(), io.out);
    print_notes(report, io.err);
  } else {
    print_failure(report, io.out);
    print_notes(report, io.err);
  }
  io.out.flush();
  return status_of(report.outcome);
}

int AuditCommand::run_head(std::optional<JsonStyle> json, const CliIo& io) const {
  audit::VerifyReport report = audit::verify_state_dir(state_dir(io));
  if (report.outcome == Outcome::Clean && report.head.empty()) {
    report.outcome = Outcome::Unreadable;
    report.reason = "the journal holds no record yet";
  }
  if (report.outcome != Outcome::Clean) {
    print_failure(report, io.err);
    return status_of(report.outcome);
  }
  if (json)
    render_json(Json{{"seq", report.head.seq}, {"hash", report.head.hash},
                     {"head", audit::format_head(report.head)}},
                *json, io.out);
  else
    io.out << audit::format_head(report.head) << '\n';
  io.out.flush();
  return kExitOk;
}

int AuditCommand::run_read(bool tail, std::optional<JsonStyle> json, const CliIo& io) const {
  AuditFilter filter{{}, from_seq_, pane_, workspace_, event_};
  if (!since_.empty()) {
    auto bound = since_bound(since_, std::chrono::system_clock::now());
    if (!bound.ok()) {
      io.err << error_line(bound.error()) << '\n';
      return kExitUsage;
    }
    filter.since = *bound;
  }
  const std::string dir = state_dir(io);
  if (!follow_ && !fs::exists(fs::join(dir, audit::kCurrentName)) &&
      !fs::exists(fs::join(dir, audit::kPredecessorName))) {
    io.err << error_line(Error{ErrorCode::IoError, "no audit journal in " + dir}) << '\n';
    return kExitAuditUnreadable;
  }
  AuditFollower follower(dir);
  auto print = [&](const AuditLine& line) {
    if (json) io.out << line.raw << '\n';
    else io.out << format_row(line.record) << '\n';
  };
  auto lines = follower.read_new_lines();
  if (!lines.ok()) {
    io.err << error_line(lines.error()) << '\n';
    return kExitAuditUnreadable;
  }
  std::vector<const AuditLine*> kept;
  for (const auto& line : *lines)
    if (filter.matches(line.record)) kept.push_back(&line);
  const std::size_t skip = tail && kept.size() > lines_ ? kept.size() - lines_ : 0;
  for (std::size_t i = skip; i < kept.size(); ++i) print(*kept[i]);
  io.out.flush();
  while (follow_ && io.out.good()) {
    follower.wait_for_change(kFollowPollMs);
    auto more = follower.read_new_lines();
    if (!more.ok()) {
      io.err << error_line(more.error()) << '\n';
      return kExitAuditUnreadable;
    }
    for (const auto& line : *more)
      if (filter.matches(line.record)) print(line);
    io.out.flush();
  }
  return kExitOk;
}

}  // namespace signaltty::cli
