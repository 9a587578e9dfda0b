// broker/supervisor_tails.cpp: each pane's scrollback tail on disk,
// `history/<pane_id>.tail` (docs/rules.md, Tails: ≤64 KiB of rendered
// lines, 0600; none for `redact` workspaces, decision 22), refreshed from
// live ptyhosts when their rendered head moved, and the reads of a pane
// whose ptyhost is gone, served from it.
// Runs in: broker (io thread; the files are written on a worker thread).
// Never: writes a tail for a redact workspace, or keeps one for a pane
// that no longer exists.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/post.hpp>

#include "broker/store.hpp"
#include "broker/supervisor.hpp"
#include "common/fs.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};


constexpr std::string_view kHistoryDir = "history";
constexpr std::string_view kTailSuffix = ".tail";
// A tail is the last kTailMaxBytes of the ring. It is asked for in at most
// two reads: kTailFirstLines, which at the 60-odd bytes of a typical line
// fill it, and the whole ring only when those fell short and there is more
// (short lines). Asking for the whole ring each time made the ptyhost render
// all of it (5000 lines, some 600 KB) every time a busy pane's history
// moved, and left it holding about 0.7 MiB more once idle.
constexpr int kTailFirstLines = 1024;
constexpr int kTailReadLines = static_cast<int>(protocol::kReadLinesMax);
// save_tails_now gives up waiting after this long.
constexpr std::chrono::milliseconds kSaveTailsBudget{1500};

// The last kTailMaxBytes of `text`, cut at a line start.
std::string last_lines_within(std::string text) {
  if (text.size() <= kTailMaxBytes) return text;
  std::size_t start = text.size() - kTailMaxBytes;
  const std::size_t nl = text.find('\n', start);
  start = nl == std::string::npos ? start : nl + 1;
  return text.substr(start);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  if (text.empty()) return lines;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::string join(const std::vector<std::string>& lines, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) {
    if (i > from) out += '\n';
    out += lines[i];
  }
  return out;
}

}  // namespace

std::string Supervisor::tail_path_of(const std::string& pane_id) const {
  return fs::join(fs::join(config_.state_dir, kHistoryDir), pane_id + std::string(kTailSuffix));
}

std::optional<std::string> Supervisor::saved_tail(const std::string& pane_id) {
  if (auto it = saved_tails_.find(pane_id); it != saved_tails_.end()) return it->second;
  auto text = fs::read_file(tail_path_of(pane_id), kTailMaxBytes * 2);
  if (!text.ok()) return std::nullopt;
  saved_tails_[pane_id] = *text;
  return *text;
}

// docs/rules.md "Restore" 3 and "Rendered ring": the surface is filled from
// the tail, its lines take seqs 1..n, and the restart itself takes seq n+1 as
// the dropped floor (as pane.clear does in a ptyhost). The head is therefore
// n+1: a cursor from before the restart reads as dropped even when it happens
// to equal the tail's line count, and a cursor taken from a read after the
// restart (next_seq = n+1) reads as valid.
Result<protocol::PaneReadResult> Supervisor::read_saved(const std::string& pane_id,
                                                        const ReadSpec& spec) {
  SIGNALTTY_TRY(const protocol::Pane* pane, store_.find_pane(pane_id));
  const std::vector<std::string> lines = split_lines(saved_tail(pane_id).value_or(""));
  const std::size_t n = lines.size();
  const std::size_t want = std::min<std::size_t>(spec.lines, protocol::kReadLinesMax);
  protocol::PaneReadResult out;
  switch (spec.mode) {
    case protocol::ReadMode::Screen: {
      const std::size_t rows = static_cast<std::size_t>(std::max(pane->pty_size.rows, 1));
      out.text = join(lines, n > rows ? n - rows : 0);
      return out;
    }
    case protocol::ReadMode::Tail:
      out.text = join(lines, n > want ? n - want : 0);
      out.truncated = n > want;
      return out;
    case protocol::ReadMode::Rendered: {
      const std::uint64_t head = static_cast<std::uint64_t>(n) + 1;
      const bool dropped = spec.after_seq != 0 && spec.after_seq != head;
      std::size_t from = spec.after_seq == head ? n : 0;
      out.truncated = n - from > want;
      if (out.truncated) from = n - want;
      out.text = join(lines, from);
      out.seq = from < n ? from + 1 : head;
      out.next_seq = head;
      out.dropped = dropped;
      return out;
    }
  }
  return out;
}

// ---- keeping tails fresh ---------------------------------------------------------

void Supervisor::start_tail_refresh() {
  tail_refresh_started_ = true;
  want_tail_refresh();
}

void Supervisor::note_printed(const std::string& pane_id) {
  if (Host* h = host(pane_id)) h->tail_stale = true;
  want_tail_refresh();
}

// The timer runs only while a pane printed since its last probe, or while
// a ptyhost cannot say when it prints (no kFeatureOutputNotice): quiet
// panes cost neither the broker nor their ptyhost a wakeup.
void Supervisor::want_tail_refresh() {
  if (!tail_refresh_started_ || tail_timer_armed_) return;
  tail_timer_armed_ = true;
  tail_timer_.expires_after(kTailRefreshInterval);
  std::weak_ptr<int> alive = alive_;
  tail_timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    tail_timer_armed_ = false;
    refresh_tails();
  });
}

void Supervisor::refresh_tails() {
  std::vector<std::string> ids;
  bool again = false;
  for (auto& [id, host] : hosts_) {
    if (!host.published || !host.link->ready()) continue;
    if (!(host.link->features() & wire::kFeatureOutputNotice)) again = true;
    else if (!host.tail_stale) continue;
    host.tail_stale = false;  // a notice from here on asks again
    ids.push_back(id);
  }
  for (const std::string& id : ids) refresh_tail(id, false);
  if (again) want_tail_refresh();
}

// Probes the rendered head; when it moved (or `force`), reads the ring's
// tail and writes it.
void Supervisor::refresh_tail(const std::string& pane_id, bool force, std::function<void()> done) {
  if (!done) done = [] {};
  Host* h = host(pane_id);
  auto pane = store_.find_pane(pane_id);
  if (!h || !pane.ok() || !h->link->ready()) return done();
  auto ws = store_.find_workspace((*pane)->workspace_id);
  if (ws.ok() && (*ws)->redact) {
    delete_tail(pane_id);
    return done();
  }
  std::weak_ptr<int> alive = alive_;
  const wire::ReadRequest probe{protocol::ReadMode::Rendered, 1, true, h->tail_head.value_or(0)};
  h->link->read(probe, [this, alive, pane_id, force, done](Result<wire::ReadReply> r, std::string) {
    Host* h = alive.expired() ? nullptr : host(pane_id);
    if (h && !r.ok()) note_printed(pane_id);  // probe again at the next refresh
    if (!h || !r.ok()) return done();
    const std::uint64_t head = r->next_seq.value_or(0);
    // New rendered lines: the pane printed since the last look.
    if (h->tail_head && *h->tail_head != head)
      store_.note_output(pane_id, std::chrono::steady_clock::now());
    if (!force && h->tail_head == head) return done();
    read_tail(pane_id, head, kTailFirstLines, std::move(done));
  });
}

void Supervisor::read_tail(const std::string& pane_id, std::uint64_t head, int lines,
                           std::function<void()> done) {
  Host* h = host(pane_id);
  if (!h || !h->link->ready()) return done();
  std::weak_ptr<int> alive = alive_;
  const wire::ReadRequest tail{protocol::ReadMode::Tail, lines, true, 0};
  h->link->read(tail, [this, alive, pane_id, head, lines, done](Result<wire::ReadReply> t,
                                                                std::string) {
    Host* h = alive.expired() ? nullptr : host(pane_id);
    if (!h || !t.ok()) return done();
    if (t->truncated && t->text.size() < kTailMaxBytes && lines < kTailReadLines)
      return read_tail(pane_id, head, kTailReadLines, done);
    h->tail_head = head;
    write_tail(pane_id, last_lines_within(std::move(t->text)));
    done();
  });
}

void Supervisor::write_tail(const std::string& pane_id, std::string text) {
  saved_tails_[pane_id] = text;
  const std::string dir = fs::join(config_.state_dir, kHistoryDir);
  const std::string path = tail_path_of(pane_id);
  boost::asio::post(tail_writer_, [dir, path, text = std::move(text)] {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      log::warn("tail: mkdir " + dir + " failed");
      return;
    }
    if (Status s = fs::write_file_atomic(path, text, 0600); !s.ok())
      log::warn("tail: " + s.error().message);
  });
}

void Supervisor::delete_tail(const std::string& pane_id) {
  boost::asio::post(tail_writer_, [path = tail_path_of(pane_id)] { ::unlink(path.c_str()); });
}

void Supervisor::delete_orphan_tails() {
  const std::string dir = fs::join(config_.state_dir, kHistoryDir);
  std::unique_ptr<DIR, DirCloser> d(::opendir(dir.c_str()));
  if (!d) return;
  while (const dirent* entry = ::readdir(d.get())) {
    std::string_view name = entry->d_name;
    if (name.size() <= kTailSuffix.size() ||
        name.substr(name.size() - kTailSuffix.size()) != kTailSuffix)
      continue;
    const std::string id(name.substr(0, name.size() - kTailSuffix.size()));
    if (!store_.find_pane(id).ok() || id.rfind("pane_", 0) != 0) delete_tail(id);
  }
}

void Supervisor::save_tails_now(std::function<void()> done) {
  struct Wait {
    std::size_t outstanding = 1;
    std::function<void()> done;
    std::unique_ptr<boost::asio::steady_timer> deadline;
  };
  auto wait = std::make_shared<Wait>();
  wait->done = std::move(done);
  wait->deadline = std::make_unique<boost::asio::steady_timer>(io_, kSaveTailsBudget);
  auto finish = [this, wait] {
    if (--wait->outstanding > 0) return;
    // Every write is queued; the writer's next turn comes after them.
    boost::asio::post(tail_writer_, [this, wait] {
      boost::asio::post(io_, [wait] {
        wait->deadline->cancel();
        if (auto fn = std::exchange(wait->done, nullptr)) fn();
      });
    });
  };
  wait->deadline->async_wait([wait](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto fn = std::exchange(wait->done, nullptr)) fn();
  });
  std::vector<std::string> ids;
  for (const auto& [id, host] : hosts_)
    if (host.published) ids.push_back(id);
  wait->outstanding += ids.size();
  for (const std::string& id : ids) refresh_tail(id, false, finish);
  finish();
}

}  // namespace signaltty::broker
