// tests/gitworker/sandboxed_parity_test.cpp: every gitworker op run twice
// on the same non-trivial repository, in-process (the op function) and
// through the real program confined to the directories the launcher grants
// it (docs/gitworker.md "Process"): the program's reply is ok and its
// result is exactly the encoded in-process result. So the sandbox changes
// nothing an op answers, in a main checkout and in a linked worktree.
// Sanitizer builds: the seccomp filter logs calls outside the allowlist
// instead of killing, so there these tests check parity under Landlock and
// the rlimits the build keeps, not the filter's kill; they still run.
// Runs in: the gitworker tests.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "common/protocol/gitworker_wire.hpp"
#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::gitworker::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::string lines(int n, const std::string& word) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += word + " " + std::to_string(i) + "\n";
  return s;
}

// Committed, then changed in every way the diff ops tell apart: edits,
// staged and unstaged on one file, a deletion, binary, CRLF, a rename, a
// mode change, a new directory, untracked and ignored files, a file that
// loses its last newline.
void build_corpus(const GitRepo& repo) {
  repo.write("edit.txt", lines(30, "line"));
  repo.write("both.txt", lines(20, "line"));
  repo.write("gone.txt", lines(5, "line"));
  repo.write("bin.dat", std::string("a\0b\0c", 5));
  repo.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
  repo.write("old-name.txt", lines(8, "moving"));
  repo.write("mode.sh", "echo hi\n");
  repo.write("tail.txt", "ends\nwith a newline\n");
  repo.write("dir/nested.txt", "x\n");
  repo.write(".gitignore", "*.log\n");
  repo.commit_all("corpus");

  std::string edit = lines(30, "line");
  edit.replace(edit.find("line 7\n"), 7, "seven\nand more\n");
  repo.write("edit.txt", edit);
  repo.write("both.txt", "staged\n" + lines(20, "line"));
  repo.git({"add", "both.txt"});
  repo.write("both.txt", "staged\n" + lines(19, "line") + "unstaged tail\n");
  ::unlink(repo.path("gone.txt").c_str());
  repo.write("bin.dat", std::string("a\0b\0d\0e", 7));
  repo.write("crlf.txt", "one\r\n2\r\nthree\r\nfour\r\n");
  repo.git({"mv", "old-name.txt", "new-name.txt"});
  ::chmod(repo.path("mode.sh").c_str(), 0755);
  repo.write("tail.txt", "ends\nwithout one");
  repo.write("dir/nested.txt", "x\ny\n");
  repo.write("newdir/deep/added.txt", "brand\nnew\n");
  repo.write("staged-new.txt", "new\nfile\n");
  repo.git({"add", "staged-new.txt"});
  repo.write("untracked.txt", "one\ntwo\nthree\n");
  repo.write("untracked-nonl.txt", "no newline");
  write_file(repo.path("untracked.bin"), std::string("\0\1\2\3", 4));
  repo.write("debug.log", "ignored\n");
}

// What file_diff is asked about: each kind of change, and files that are
// unchanged, ignored, or only in the base.
const std::vector<std::string> kFileDiffPaths = {
    "edit.txt",     "both.txt",         "gone.txt",       "bin.dat",         "crlf.txt",
    "old-name.txt", "new-name.txt",     "mode.sh",        "tail.txt",        "dir/nested.txt",
    "README",       "newdir/deep/added.txt", "staged-new.txt", "untracked.txt",
    "untracked-nonl.txt", "untracked.bin", "debug.log"};

gw::Request make_request(gw::Op op, const std::string& root) {
  gw::Request r;
  r.op = op;
  r.repo = root;
  return r;
}

// The op in this process, encoded as run_op encodes it (errors as a
// "code: message" string, so a failing op also compares).
std::string in_process(const gw::Request& request) {
  init_libgit2();
  auto result = run_op(request);
  if (!result.ok())
    return "error " + std::string(wire_name(result.error().code)) + ": " + result.error().message;
  return result->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The op through the confined program, in the same form.
std::string confined(const std::vector<std::string>& dirs, const gw::Request& request) {
  const WorkerRun worker = run_gitworker(dirs, request);
  EXPECT_FALSE(worker.run.killed_by(SIGSYS)) << "a call outside the allowlist: " << worker.run.err;
  EXPECT_TRUE(worker.run.exited_with(0)) << describe_status(worker.run.status) << ": "
                                         << worker.run.err;
  if (!worker.reply) return "undecodable reply: " + worker.run.out;
  if (!worker.reply->ok)
    return worker.reply->error ? "error " + worker.reply->error->code + ": " +
                                     worker.reply->error->message
                               : "error without an error";
  if (!worker.reply->result) return "ok without a result";
  return worker.reply->result->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Both ways; the program's answer must be ok and equal the in-process one.
void expect_parity(const std::vector<std::string>& dirs, const gw::Request& request) {
  const std::string local = in_process(request);
  EXPECT_EQ(local.rfind("error ", 0), std::string::npos) << "in-process: " << local;
  EXPECT_EQ(confined(dirs, request), local);
}

class GitSandboxedParity : public ::testing::Test {
 protected:
  GitSandboxedParity() { build_corpus(repo_); }
  std::vector<std::string> read_dirs() const { return {"--read", repo_.root()}; }
  std::vector<std::string> capture_dirs() const {
    return {"--read", repo_.root(), "--write", repo_.path(".git/objects")};
  }
  gw::Request request(gw::Op op) const { return make_request(op, repo_.root()); }

  GitRepo repo_;
};

TEST_F(GitSandboxedParity, Status) { expect_parity(read_dirs(), request(gw::Op::Status)); }

TEST_F(GitSandboxedParity, StatusFromASubdirectory) {
  gw::Request r = request(gw::Op::Status);
  r.repo = repo_.path("dir");
  expect_parity(read_dirs(), r);
}

TEST_F(GitSandboxedParity, DiffAgainstHead) { expect_parity(read_dirs(), request(gw::Op::Diff)); }

TEST_F(GitSandboxedParity, FileDiffAgainstHead) {
  for (const std::string& path : kFileDiffPaths) {
    SCOPED_TRACE(path);
    gw::Request r = request(gw::Op::FileDiff);
    r.path = path;
    expect_parity(read_dirs(), r);
  }
}

// The confined capture writes the same tree the in-process one does (the
// object store is content-addressed), and both diff ops against that
// baseline agree after further changes.
TEST_F(GitSandboxedParity, CaptureThenDiffAndFileDiffAgainstIt) {
  const std::string local = in_process(request(gw::Op::Capture));
  const std::string sandboxed = confined(capture_dirs(), request(gw::Op::Capture));
  ASSERT_EQ(sandboxed, local);
  auto doc = protocol::parse_json(sandboxed);
  ASSERT_TRUE(doc.ok()) << sandboxed;
  auto captured = protocol::decode<gw::CaptureResult>(*doc);
  ASSERT_TRUE(captured.ok()) << sandboxed;

  repo_.write("edit.txt", "rewritten after the baseline\n");
  repo_.write("after.txt", "added after the baseline\n");
  ::unlink(repo_.path("crlf.txt").c_str());
  gw::Request diff = request(gw::Op::Diff);
  diff.base_tree = captured->tree;
  expect_parity(read_dirs(), diff);
  for (const char* path :
       {"edit.txt", "after.txt", "crlf.txt", "untracked.txt", "tail.txt", "bin.dat", "README"}) {
    SCOPED_TRACE(path);
    gw::Request r = request(gw::Op::FileDiff);
    r.path = path;
    r.base_tree = captured->tree;
    expect_parity(read_dirs(), r);
  }
}

TEST_F(GitSandboxedParity, WorktreeList) {
  TempDir parent("signaltty-gitparity-wt");
  repo_.git({"worktree", "add", "-q", "-b", "side", parent.file("side")});
  expect_parity(read_dirs(), request(gw::Op::WorktreeList));
}

// A linked worktree: its checkout and the common git dir, as the launcher
// grants them.
TEST_F(GitSandboxedParity, LinkedWorktreeOps) {
  TempDir parent("signaltty-gitparity-wt");
  const std::string wt = parent.file("linked");
  repo_.git({"worktree", "add", "-q", "-b", "linked", wt});
  write_file(wt + "/edit.txt", "changed in the linked worktree\n");
  write_file(wt + "/fresh.txt", "untracked there\n");
  ::unlink((wt + "/gone.txt").c_str());
  const std::vector<std::string> dirs{"--read", wt, "--read", repo_.path(".git")};
  for (gw::Op op : {gw::Op::Status, gw::Op::Diff, gw::Op::WorktreeList}) {
    SCOPED_TRACE(protocol::encode(op).dump());
    expect_parity(dirs, make_request(op, wt));
  }
  for (const char* path : {"edit.txt", "fresh.txt", "gone.txt", "README"}) {
    SCOPED_TRACE(path);
    gw::Request r = make_request(gw::Op::FileDiff, wt);
    r.path = path;
    expect_parity(dirs, r);
  }
  const std::vector<std::string> capture{"--read", wt, "--read", repo_.path(".git"), "--write",
                                         repo_.path(".git/objects")};
  const gw::Request r = make_request(gw::Op::Capture, wt);
  const std::string local = in_process(r);
  EXPECT_EQ(confined(capture, r), local);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker::testing
