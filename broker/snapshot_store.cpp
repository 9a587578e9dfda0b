// broker/snapshot_store.cpp: snapshot.json on disk: strict load (corrupt →
// set aside, unknown version → refuse), durable save, and the debounced
// scheduler that builds the document on the io thread and writes it on its
// own writer thread.
// Runs in: broker. Never: overwrites an older corrupt copy, lets an older
// state land after a newer one, or stops the server over a failed save.
#include "broker/snapshot_store.hpp"

#include <fcntl.h>
#include <stdio.h>

#include <cerrno>
#include <utility>

#include <boost/asio/post.hpp>

#include "broker/snapshot_rotation.hpp"
#include "common/fs.hpp"
#include "common/ids.hpp"
#include "common/log.hpp"

namespace signaltty::broker {
namespace {

constexpr const char* kSnapshotName = "snapshot.json";
constexpr const char* kCorruptPrefix = "snapshot.corrupt-";
// Corrupt copies set aside within the same second get -2, -3 … up to this.
constexpr int kCorruptNameAttempts = 100;

Error refuse(const std::string& why) {
  return Error{ErrorCode::IoError, why + "; refusing to start so nothing is discarded"};
}

// rename(2) that never replaces an existing target.
int rename_noreplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  // A file system without RENAME_NOREPLACE: check, then rename.
  if (fs::exists(to)) {
    errno = EEXIST;
    return -1;
  }
  return ::rename(from.c_str(), to.c_str());
}

// Renames a snapshot that failed to parse to snapshot.corrupt-<UTC>.
Result<std::string> set_aside(const std::string& state_dir, const std::string& path) {
  const std::string base =
      fs::join(state_dir, kCorruptPrefix + compact_utc(std::chrono::system_clock::now()));
  for (int attempt = 1; attempt <= kCorruptNameAttempts; ++attempt) {
    std::string target = attempt == 1 ? base : base + "-" + std::to_string(attempt);
    if (rename_noreplace(path, target) == 0) {
      SIGNALTTY_RETURN_IF_ERROR(fs::fsync_dir(state_dir));
      return target;
    }
    if (errno != EEXIST) return Error::from_errno(ErrorCode::IoError, "rename", errno, path);
  }
  return refuse(path + " is corrupt and cannot be set aside (too many corrupt copies)");
}

// A present `version` other than the integer 1 is a refusal, never a
// parse error: that file may be perfectly good for a newer broker.
std::optional<Error> unknown_version(const protocol::Json& j, const std::string& path) {
  if (!j.is_object()) return std::nullopt;
  auto v = j.find("version");
  if (v == j.end()) return std::nullopt;
  if (v->is_number_integer() && v->get<std::int64_t>() == kSnapshotVersion) return std::nullopt;
  return refuse(path + " has version " + v->dump() + "; this broker understands version " +
                std::to_string(kSnapshotVersion));
}

}  // namespace

Result<std::optional<SnapshotDoc>> load_snapshot(const std::string& state_dir) {
  const std::string path = fs::join(state_dir, kSnapshotName);
  if (!fs::exists(path)) return std::optional<SnapshotDoc>{};
  auto text = fs::read_file(path, kSnapshotMaxBytes);
  if (!text.ok()) return refuse("cannot read " + path + ": " + text.error().message);
  protocol::Json j = protocol::Json::parse(*text, nullptr, false);
  if (auto refusal = unknown_version(j, path)) return std::move(*refusal);

  std::string reason = "not JSON";
  if (!j.is_discarded()) {
    auto doc = protocol::decode<SnapshotDoc>(j, "snapshot");
    if (doc.ok()) return std::optional<SnapshotDoc>(std::move(doc).value());
    reason = doc.error().message;
  }
  SIGNALTTY_TRY(std::string target, set_aside(state_dir, path));
  log::error("SNAPSHOT CORRUPT: " + path + " does not parse (" + reason + "); renamed to " +
             target + " and starting with an empty model");
  return std::optional<SnapshotDoc>{};
}

Status save_snapshot(const std::string& state_dir, const SnapshotDoc& doc,
                     std::chrono::system_clock::time_point now) {
  protocol::Json j = protocol::encode(doc);
  if (doc.saved_at.empty()) j["saved_at"] = rfc3339_utc(now);
  const std::string text =
      j.dump(-1, ' ', false, protocol::Json::error_handler_t::replace) + "\n";
  SIGNALTTY_RETURN_IF_ERROR(fs::write_file_durable(fs::join(state_dir, kSnapshotName), text, 0600));
  if (auto copied = keep_rotating_copy(state_dir, doc, text, now); !copied.ok())
    log::warn("snapshot: rotating copy not kept: " + copied.error().message);
  return {};
}

// ---- scheduler ----------------------------------------------------------

SnapshotScheduler::SnapshotScheduler(boost::asio::io_context& io, std::string state_dir,
                                     Provider provider, Revision revision,
                                     std::chrono::milliseconds debounce, WallClock wall_clock)
    : io_(io),
      state_dir_(std::move(state_dir)),
      provider_(std::move(provider)),
      revision_(std::move(revision)),
      debounce_(debounce),
      wall_clock_(std::move(wall_clock)),
      timer_(io) {}

SnapshotScheduler::~SnapshotScheduler() {
  timer_.cancel();
  writer_.join();
  busy_.reset();
}

void SnapshotScheduler::mark_dirty() {
  if (armed_) return;
  if (writing_) {
    dirty_while_writing_ = true;
    return;
  }
  armed_ = true;
  timer_.expires_after(debounce_);
  timer_.async_wait([this, alive = std::weak_ptr<int>(alive_),
                     generation = timer_generation_](const boost::system::error_code& ec) {
    if (ec || alive.expired() || generation != timer_generation_) return;
    on_timer();
  });
}

void SnapshotScheduler::mark_if_changed() {
  if (saved_revision_ == revision_()) return;
  mark_dirty();
}

void SnapshotScheduler::on_timer() {
  armed_ = false;
  ++timer_generation_;
  if (writing_) {
    dirty_while_writing_ = true;
    return;
  }
  const std::uint64_t revision = revision_();
  if (saved_revision_ == revision) return;
  SnapshotDoc doc = provider_();
  const std::uint64_t generation = ++next_generation_;
  writing_ = true;
  busy_.emplace(io_.get_executor());
  boost::asio::post(writer_, [this, alive = std::weak_ptr<int>(alive_), generation, revision,
                              doc = std::move(doc)] {
    Status status = write_generation(generation, doc);
    boost::asio::post(io_, [this, alive, generation, revision, status] {
      if (alive.expired()) return;
      write_finished(generation, revision, status);
    });
  });
}

Status SnapshotScheduler::write_generation(std::uint64_t generation, const SnapshotDoc& doc) {
  std::lock_guard lock(write_mu_);
  if (generation <= written_generation_) return {};  // a newer state already landed
  SIGNALTTY_RETURN_IF_ERROR(save_snapshot(state_dir_, doc, wall_clock_()));
  written_generation_ = generation;
  if (on_saved_ && doc.journal_seq) on_saved_(*doc.journal_seq);
  return {};
}

void SnapshotScheduler::write_finished(std::uint64_t generation, std::uint64_t revision,
                                       const Status& status) {
  writing_ = false;
  busy_.reset();
  if (status.ok()) {
    ++saves_completed_;
    if (generation > recorded_generation_) {
      recorded_generation_ = generation;
      saved_revision_ = revision;
    }
  } else {
    ++saves_failed_;
    log::error("snapshot: save failed, the server keeps running and retries: " +
               status.error().message);
    dirty_while_writing_ = true;  // still pending: the next interval tries again
  }
  if (dirty_while_writing_) {
    dirty_while_writing_ = false;
    mark_dirty();
  }
}

Status SnapshotScheduler::save_now() {
  timer_.cancel();
  armed_ = false;
  ++timer_generation_;
  const std::uint64_t revision = revision_();
  const SnapshotDoc doc = provider_();
  const std::uint64_t generation = ++next_generation_;
  Status status = write_generation(generation, doc);
  if (!status.ok()) {
    ++saves_failed_;
    log::error("snapshot: save failed: " + status.error().message);
    return status;
  }
  ++saves_completed_;
  recorded_generation_ = generation;
  saved_revision_ = revision;
  return status;
}

void SnapshotScheduler::save_now_or_retry() {
  if (save_now().ok()) return;  // save_now logged the error
  log::error("snapshot: the change stays pending and is retried");
  mark_dirty();
}

}  // namespace signaltty::broker
