// tests/broker/git_runner_test.cpp: the broker's half of a gitworker run,
// for real: a forked launcher starts the real signaltty-gitworker under its
// supervisor; the runner decodes the reply, kills the worker's group at the
// deadline through its pidfd and answers TIMEOUT, reports a sandbox that
// cannot be entered and a SIGSYS death as such; finding a checkout's
// directories without reading the repository, hostile `.git` files
// included; and the launcher codec of a git request.
#include "broker/git/git_runner.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <sstream>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "broker/git/git_launch.hpp"
#include "broker/git/git_merge.hpp"
#include "broker/git/git_service.hpp"
#include "broker/git/repo_paths.hpp"
#include "broker/launcher.hpp"
#include "broker/launcher_process.hpp"
#include "broker/supervised_run.hpp"
#include "tests/broker/temp_dir.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::broker::git {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using signaltty::broker::testing::TempDir;
using signaltty::broker::testing::write_file;
using ::testing::HasSubstr;

// A real launcher that starts the gitworker of this build, and a loop.
struct Rig {
  TempDir dir{"signaltty-gitrun"};
  boost::asio::io_context io;
  std::unique_ptr<Launcher> launcher;
  std::unique_ptr<GitRunner> runner;
  std::optional<Result<Json>> result;
  Rig() {
    ::signal(SIGPIPE, SIG_IGN);
    LauncherConfig config{"/nonexistent/ptyhost", dir.path(), dir.path() + "/broker.sock", "", {},
                          SIGNALTTY_GITWORKER};
    auto started = Launcher::start(io, config);
    EXPECT_TRUE(started.ok());
    if (started.ok()) launcher = std::move(*started);
    runner = std::make_unique<GitRunner>(io, *launcher);
  }
  Result<Json> run(GitJob job, std::chrono::seconds limit = std::chrono::seconds(20)) {
    result.reset();
    runner->run(std::move(job), [this](Result<Json> r) { result = std::move(r); });
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!result && std::chrono::steady_clock::now() < deadline) io.run_one_until(deadline);
    if (!result) return Error{ErrorCode::Internal, "no answer in time"};
    return std::move(*result);
  }
};

GitJob status_job(const std::string& dir) {
  GitJob job;
  job.request.op = gw::Op::Status;
  job.request.repo = dir;
  job.read_dirs = {dir};
  return job;
}

TEST(GitRunner, AStatusOutsideAnyRepositoryComesBackAsAnEmptyResult) {
  Rig rig;
  auto result = rig.run(status_job(rig.dir.path()));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_FALSE(result->contains("root")) << result->dump();
}

// Processes whose command line names `marker` (the test's own directory):
// the workers this test started, and nobody else's.
std::vector<pid_t> processes_naming(const std::string& marker) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = signaltty::broker::testing::read_file(entry.path().string() + "/cmdline");
    if (cmdline.find(marker) != std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

// Children of `parent` that have exited and wait to be reaped.
std::vector<pid_t> zombie_children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = signaltty::broker::testing::read_file(entry.path().string() + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos || close + 4 >= stat.size()) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state == 'Z') out.push_back(std::stoi(name));
  }
  return out;
}

TEST(GitRunner, TheDeadlineKillsTheWorkerAndAnswersTimeout) {
  Rig rig;
  const std::string marker = rig.dir.path() + "/stall-here";
  std::filesystem::create_directories(marker);
  GitJob job = status_job(marker);
  job.request.op = gw::Op::Stall;
  job.request.stall_ms = 60000;
  job.deadline = std::chrono::milliseconds(400);
  const auto started = std::chrono::steady_clock::now();
  auto result = rig.run(std::move(job));
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::Timeout) << result.error().message;
  // The whole request, worker start included, within the deadline + 250 ms
  // (well before the supervisor's own, later deadline: the broker killed it).
  EXPECT_LT(took, std::chrono::milliseconds(400 + 250));
  // Killed and reaped: no process with the worker's command line is left,
  // and within a second no zombie under the launcher either.
  EXPECT_TRUE(processes_naming(marker).empty());
  const auto settle = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!zombie_children_of(rig.launcher->pid()).empty() && std::chrono::steady_clock::now() < settle)
    rig.io.run_one_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(zombie_children_of(rig.launcher->pid()).empty());
  // The runner is free for the next request.
  EXPECT_TRUE(rig.run(status_job(rig.dir.path())).ok());
}

TEST(GitRunner, ASandboxThatCannotBeEnteredIsAnIoErrorSayingSo) {
  Rig rig;
  GitJob job = status_job(rig.dir.path());
  job.read_dirs = {rig.dir.path() + "/does-not-exist"};
  auto result = rig.run(std::move(job));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::IoError);
  EXPECT_THAT(result.error().message, HasSubstr("sandbox unavailable"));
}

TEST(GitRunner, AForbiddenCallKillsTheWorkerAndIsReportedAsASandboxViolation) {
#if defined(__SANITIZE_ADDRESS__) || defined(SIGNALTTY_SANITIZE) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer build: the seccomp filter logs instead of killing";
#endif
  Rig rig;
  GitJob job = status_job(rig.dir.path());
  job.request.op = gw::Op::Violate;
  auto result = rig.run(std::move(job));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::IoError);
  EXPECT_THAT(result.error().message, HasSubstr("sandbox violation"));
}

TEST(GitRunner, TheWorkersOwnErrorsKeepTheirCode) {
  Rig rig;
  GitJob job = status_job(rig.dir.path());
  job.request.op = gw::Op::Diff;  // not a repository
  auto result = rig.run(std::move(job));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::BadParams) << result.error().message;
}

TEST(GitRunner, ManyRequestsAtOnceAllAnswer) {
  Rig rig;
  int answered = 0, ok = 0;
  for (int i = 0; i < 12; ++i)
    rig.runner->run(status_job(rig.dir.path()), [&](Result<Json> r) {
      ++answered;
      ok += r.ok() ? 1 : 0;
    });
  EXPECT_LE(rig.runner->running(), kGitRunningMax);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (answered < 12 && std::chrono::steady_clock::now() < deadline) rig.io.run_one_until(deadline);
  EXPECT_EQ(answered, 12);
  EXPECT_EQ(ok, 12);
}

RunOutcome ended(ChildEnd end, std::string out = {}, std::string err = {}) {
  RunOutcome outcome;
  outcome.report.end = end;
  outcome.out = std::move(out);
  outcome.err = std::move(err);
  return outcome;
}

TEST(GitWorkerEnd, ASigsysDeathIsReportedAsASandboxViolation) {
  auto r = interpret_worker(ended({ChildEnd::Kind::Signaled, SIGSYS, ""}), false,
                            std::chrono::seconds(8));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::IoError);
  EXPECT_THAT(r.error().message, HasSubstr("sandbox violation"));
}

TEST(GitWorkerEnd, GarbageOrAnOversizedReplyIsAnIoErrorNeverAResult) {
  const ChildEnd ok{ChildEnd::Kind::Exited, 0, ""};
  for (const std::string& out : std::vector<std::string>{"", "not json", "{\"ok\":true}", "[1,2]", "{\"ok\":1}",
                                std::string(200, '[')}) {
    auto r = interpret_worker(ended(ok, out), false, std::chrono::seconds(8));
    ASSERT_FALSE(r.ok()) << out;
    EXPECT_EQ(r.error().code, ErrorCode::IoError) << out;
  }
  RunOutcome cut = ended(ok, "{\"ok\":true,\"result\":{}}");
  cut.out_cut = true;
  EXPECT_FALSE(interpret_worker(cut, false, std::chrono::seconds(8)).ok());
  // An error code the protocol does not know becomes IO_ERROR.
  auto unknown = interpret_worker(
      ended(ok, R"({"ok":false,"error":{"code":"NOPE","message":"m"}})"), false,
      std::chrono::seconds(8));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::IoError);
}

TEST(GitWorkerEnd, ExitStatusesReadAsTheirMeaning) {
  auto sandbox = interpret_worker(ended({ChildEnd::Kind::Exited, gw::kExitSandboxUnavailable, ""},
                                        "", "landlock: no\n"),
                                  false, std::chrono::seconds(8));
  EXPECT_THAT(sandbox.error().message, HasSubstr("sandbox unavailable: landlock: no"));
  auto timeout = interpret_worker(ended({ChildEnd::Kind::Signaled, SIGKILL, ""}), true,
                                  std::chrono::seconds(8));
  EXPECT_EQ(timeout.error().code, ErrorCode::Timeout);
  EXPECT_THAT(timeout.error().message, HasSubstr("8s"));
  RunOutcome none;
  EXPECT_EQ(interpret_worker(none, false, std::chrono::seconds(8)).error().code, ErrorCode::IoError);
}

TEST(GitLaunchCodec, RoundTripsAndRefusesWhatTheChannelCannotCarry) {
  GitLaunch launch{std::chrono::milliseconds(8000), {"/repo", "/repo with space/.git"}, {"/w"}};
  EXPECT_EQ(decode_git_launch(encode_git_launch(launch)), launch);
  for (const std::string& bad : std::vector<std::string>{"", "0\n", "-5\n", "x\n", "100\nr relative\n", "100\nq /x\n",
                                "100\nr /x", "100\nr\n", std::string("100\nr /a\0b\n", 11)})
    EXPECT_FALSE(decode_git_launch(bad).has_value()) << bad;
  std::string many = "100\n";
  for (std::size_t i = 0; i <= kGitMaxDirs; ++i) many += "r /d" + std::to_string(i) + "\n";
  EXPECT_FALSE(decode_git_launch(many).has_value());
  EXPECT_FALSE(is_passable_dir("/a\nb"));
  EXPECT_FALSE(is_passable_dir("/" + std::string(kGitMaxPath, 'a')));
  LaunchRequest request{7, {}, std::nullopt, launch};
  auto decoded = decode_launch_request(encode_launch_request(request));
  ASSERT_TRUE(decoded && decoded->git);
  EXPECT_EQ(*decoded->git, launch);
}

TEST(RepoPaths, AMainCheckoutALinkedOneAndNoneAreToldApart) {
  TempDir dir("signaltty-repopaths");
  const std::string root = std::filesystem::canonical(dir.path()).string();
  std::filesystem::create_directories(root + "/main/.git");
  std::filesystem::create_directories(root + "/main/src/deep");
  auto found = find_repo(root + "/main/src/deep");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->root, root + "/main");
  EXPECT_EQ((*found)->git_dir, root + "/main/.git");
  EXPECT_EQ((*found)->common_dir, root + "/main/.git");

  std::filesystem::create_directories(root + "/main/.git/worktrees/wt");
  write_file(root + "/main/.git/worktrees/wt/commondir", "../..\n");
  std::filesystem::create_directories(root + "/wt");
  write_file(root + "/wt/.git", "gitdir: " + root + "/main/.git/worktrees/wt\n");
  auto linked = find_repo(root + "/wt");
  ASSERT_TRUE(linked.ok() && linked->has_value());
  EXPECT_EQ((*linked)->git_dir, root + "/main/.git/worktrees/wt");
  EXPECT_EQ((*linked)->common_dir, root + "/main/.git");

  std::filesystem::create_directories(root + "/plain");
  // A temp dir may itself sit in a checkout; only check that none is found
  // below the test's own root.
  auto none = find_repo(root + "/plain");
  ASSERT_TRUE(none.ok());
  if (none->has_value()) {
    EXPECT_FALSE(path_within((*none)->root, root));
  }
  EXPECT_EQ(find_repo(root + "/missing").error().code, ErrorCode::BadParams);
}

TEST(RepoPaths, HostileGitFilesAreErrorsAndNeverBlock) {
  TempDir dir("signaltty-repopaths");
  const std::string root = std::filesystem::canonical(dir.path()).string();
  for (const std::string& body : std::vector<std::string>{"garbage\n", "gitdir: \n", "gitdir: /nonexistent/x\n",
                                 std::string(8192, 'a')}) {
    std::filesystem::create_directories(root + "/r");
    write_file(root + "/r/.git", body);
    auto found = find_repo(root + "/r");
    ASSERT_FALSE(found.ok()) << body.substr(0, 20);
    EXPECT_EQ(found.error().code, ErrorCode::IoError);
    std::filesystem::remove_all(root + "/r");
  }
  // A FIFO where `commondir` should be: refused without blocking.
  std::filesystem::create_directories(root + "/f/.git");
  ASSERT_EQ(::mkfifo((root + "/f/.git/commondir").c_str(), 0600), 0);
  auto fifo = find_repo(root + "/f");
  ASSERT_TRUE(fifo.ok());  // not a regular file: the git dir is its own common dir
  EXPECT_EQ((*fifo)->common_dir, root + "/f/.git");
}

TEST(PathReservations, OverlappingCheckoutsCannotBothBeHeld) {
  PathReservations held;
  EXPECT_TRUE(held.reserve("/w/a"));
  EXPECT_FALSE(held.reserve("/w/a"));
  EXPECT_FALSE(held.reserve("/w/a/sub"));  // inside one held
  EXPECT_FALSE(held.reserve("/w"));        // holding one
  EXPECT_TRUE(held.reserve("/w/ab"));      // a sibling sharing a prefix
  EXPECT_TRUE(held.covers("/w/a/deep/dir"));
  EXPECT_FALSE(held.covers("/w/abc"));
  held.release("/w/a");
  EXPECT_FALSE(held.covers("/w/a/deep/dir"));
  EXPECT_TRUE(held.reserve("/w/a"));
}

TEST(RepoPaths, PathWithinComparesWholeComponents) {
  EXPECT_TRUE(path_within("/a/b", "/a"));
  EXPECT_TRUE(path_within("/a", "/a"));
  EXPECT_FALSE(path_within("/ab", "/a"));
  EXPECT_TRUE(path_within("/x", "/"));
}


// ---- merges (broker/git/git_merge): status, merge, restore ----------------

using gitworker::testing::Branches;
using gitworker::testing::trim;

// `meanwhile` runs between the loop's turns (at least every 20 ms).
Result<gw::MergeResult> merge_in(Rig& rig, MergeRequest request,
                                 const std::function<void()>& meanwhile = {}) {
  std::optional<Result<gw::MergeResult>> got;
  run_merge(*rig.runner, std::move(request), [&](Result<gw::MergeResult> m) { got = std::move(m); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!got && std::chrono::steady_clock::now() < deadline) {
    rig.io.run_one_for(std::chrono::milliseconds(20));
    if (meanwhile) meanwhile();
  }
  if (!got) return Error{ErrorCode::Internal, "no answer in time"};
  return std::move(*got);
}

MergeRequest merge_of(const Branches& r) {
  MergeRequest request;
  request.checkout = r.repo.root();
  request.source = r.feature;
  request.author_name = "Merger";
  request.author_email = "merger@example.invalid";
  return request;
}

TEST(GitMerge, AMergeLandsThroughTheLauncherAndAConflictTouchesNothing) {
  Rig rig;
  Branches r;
  auto merged = merge_in(rig, merge_of(r));
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(r.head(), merged->sha);
  EXPECT_EQ(trim(r.repo.git({"rev-list", "--parents", "-n", "1", "HEAD"})),
            merged->sha + " " + r.main + " " + r.feature);
  EXPECT_EQ(r.status(), "");

  Branches c(true, true);
  merged = merge_in(rig, merge_of(c));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::MergeConflict) << merged.error().message;
  EXPECT_EQ(merged.error().details["conflicted"], Json::array({"README"}));
  EXPECT_EQ(c.head(), c.main);
  EXPECT_EQ(c.status(), "");
}

TEST(GitMerge, TheDeadlineKillsTheMergeRestoresTheTargetAndAnswersTimeout) {
  Rig rig;
  Branches r;
  r.repo.write("notes.txt", "untracked, the user's\n");
  MergeRequest request = merge_of(r);
  request.deadline = std::chrono::milliseconds(1500);
  request.test_pause_ms = 60000;  // the worker stops after writing the checkout
  const auto started = std::chrono::steady_clock::now();
  auto merged = merge_in(rig, request);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::Timeout) << merged.error().message;
  EXPECT_THAT(merged.error().message, HasSubstr("restored to " + r.main));
  EXPECT_EQ(merged.error().details["target_dirty"], false);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  EXPECT_EQ(r.head(), r.main);
  EXPECT_EQ(r.status(), "?? notes.txt\n");
  EXPECT_FALSE(std::filesystem::exists(r.repo.path("feature.txt")));
  EXPECT_FALSE(std::filesystem::exists(r.repo.path(".git/SIGNALTTY_MERGE")));
  EXPECT_TRUE(processes_naming(r.repo.root()).empty());  // killed and reaped
  EXPECT_EQ(rig.runner->running(), 0u);

  merged = merge_in(rig, merge_of(r));  // and the target takes the merge after
  ASSERT_TRUE(merged.ok()) << merged.error().message;
}

TEST(GitMerge, ATargetThatCannotBeRestoredIsAnIoErrorSayingItIsDirty) {
  Rig rig;
  Branches r;
  MergeRequest request = merge_of(r);
  request.deadline = std::chrono::milliseconds(1500);
  request.test_pause_ms = 60000;
  // While the merge waits after its checkout, its marker is defaced: the
  // restore after the deadline cannot know what to put back.
  const std::string marker = r.repo.path(".git/SIGNALTTY_MERGE");
  bool defaced = false;
  auto merged = merge_in(rig, request, [&] {
    if (!defaced && std::filesystem::exists(r.repo.path("feature.txt")) &&
        std::filesystem::exists(marker)) {
      write_file(marker, "scribbled over");
      defaced = true;
    }
  });
  ASSERT_TRUE(defaced);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::IoError) << merged.error().message;
  EXPECT_EQ(merged.error().details["target_dirty"], true) << merged.error().message;
  EXPECT_THAT(merged.error().message, HasSubstr("restoring the target failed"));
  EXPECT_TRUE(processes_naming(r.repo.root()).empty());
}

TEST(GitMerge, AnotherGitsLockStopsTheMergeBeforeItWrites) {
  Rig rig;
  Branches r;
  const std::string lock = r.repo.path(".git/index.lock");
  write_file(lock, "");
  auto merged = merge_in(rig, merge_of(r));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::IoError) << merged.error().message;
  EXPECT_EQ(merged.error().details["target_dirty"], false) << merged.error().message;
  EXPECT_TRUE(std::filesystem::exists(lock));
  ::unlink(lock.c_str());
  EXPECT_EQ(r.head(), r.main);
  EXPECT_EQ(r.status(), "");
}

TEST(GitMerge, ANonRepositoryADetachedOrDirtyTargetAreRefused) {
  Rig rig;
  MergeRequest request;
  request.checkout = rig.dir.path();
  request.source = std::string(40, 'a');
  auto merged = merge_in(rig, request);
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::BadParams) << merged.error().message;

  Branches r;
  r.repo.write("README", "changed\n");
  merged = merge_in(rig, merge_of(r));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::BadParams) << merged.error().message;
  r.repo.git({"checkout", "-q", "--", "README"});
  r.repo.git({"checkout", "-q", "--detach"});
  merged = merge_in(rig, merge_of(r));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().code, ErrorCode::BadParams) << merged.error().message;
  EXPECT_EQ(r.head(), r.main);
}

TEST(GitMerge, TheTimeoutSettingTakesMillisecondsAndIgnoresNonsense) {
  EXPECT_EQ(merge_deadline_from(nullptr), kMergeDeadline);
  EXPECT_EQ(merge_deadline_from("5000"), std::chrono::milliseconds(5000));
  EXPECT_EQ(merge_deadline_from("1"), std::chrono::milliseconds(1));
  EXPECT_EQ(merge_deadline_from("3600000"), kMergeDeadlineMax);
  for (const char* bad : {"", "0", "-5", "5s", " 5", "3600001", "99999999999999999999", "1e3"})
    EXPECT_EQ(merge_deadline_from(bad), kMergeDeadline) << bad;
}
}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker::git
