// tests/gitworker/hostile_repo_test.cpp: repositories built to hurt the
// worker, every case through the real program confined as the launcher
// confines it (docs/gitworker.md "Sandbox"): symlink loops and symlinks
// out of the checkout, tree entries named `..`, `.git` or `../x`, a 64 MiB
// packed blob, filter/textconv/hook/fsmonitor configuration, alternates and
// a gitdir outside the granted directories, a corrupt index, a very deep
// directory. Each gets a reply within a few seconds, ok with a bounded
// result or a clear error; never a crash, a hang, a program run, content
// from outside the repository, or a file written outside the new checkout.
// Sanitizer builds: the seccomp filter logs instead of killing (and the
// address-space limit is off), so there the cases check replies, Landlock
// and the absence of side effects; they still run.
// Runs in: the gitworker tests.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/protocol/gitworker_wire.hpp"
#include "tests/gitworker/git_fixture.hpp"

namespace signaltty::gitworker::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

namespace gw = protocol::gitworker;

// Every reply must come back well inside this.
constexpr double kReplySeconds = 10.0;

gw::Request make_request(gw::Op op, const std::string& root,
                         std::optional<std::string> path = std::nullopt) {
  gw::Request r;
  r.op = op;
  r.repo = root;
  r.path = std::move(path);
  return r;
}

std::string op_name(const gw::Request& r) {
  return protocol::encode(r.op).dump() + (r.path ? " " + *r.path : "");
}

// The program answered: exit 0, a decodable reply, in time, not killed.
WorkerRun answered(const std::vector<std::string>& dirs, const gw::Request& request) {
  SCOPED_TRACE(op_name(request));
  WorkerRun worker = run_gitworker(dirs, request);
  EXPECT_FALSE(worker.run.killed_by(SIGSYS)) << "a call outside the allowlist: " << worker.run.err;
  EXPECT_TRUE(worker.run.exited_with(0))
      << describe_status(worker.run.status) << ": " << worker.run.err;
  EXPECT_TRUE(worker.reply.has_value()) << "no reply: " << worker.run.out;
  EXPECT_LT(worker.seconds, kReplySeconds);
  if (worker.reply) {
    EXPECT_NE(worker.reply->ok, worker.reply->error.has_value()) << worker.run.out;
    if (worker.reply->error) {
      EXPECT_FALSE(worker.reply->error->message.empty());
    }
  }
  return worker;
}

// Answered, ok, its result decoded as T.
template <class T>
T answered_ok(const std::vector<std::string>& dirs, const gw::Request& request) {
  const WorkerRun worker = answered(dirs, request);
  EXPECT_TRUE(worker.reply && worker.reply->ok) << op_name(request) << ": " << worker.run.out;
  if (!worker.reply || !worker.reply->result) return T{};
  auto decoded = protocol::decode<T>(*worker.reply->result);
  EXPECT_TRUE(decoded.ok()) << worker.run.out;
  return decoded.ok() ? *decoded : T{};
}

// Answered with an error whose code is `code`.
void answered_error(const std::vector<std::string>& dirs, const gw::Request& request,
                    const std::string& code) {
  const WorkerRun worker = answered(dirs, request);
  ASSERT_TRUE(worker.reply.has_value());
  EXPECT_FALSE(worker.reply->ok) << op_name(request) << ": " << worker.run.out;
  if (worker.reply->error) {
    EXPECT_EQ(worker.reply->error->code, code) << worker.run.out;
  }
}

// All of stdout and stderr, for "never shows" checks.
std::string everything(const WorkerRun& worker) { return worker.run.out + worker.run.err; }

const protocol::DiffFile* find_file(const gw::DiffResult& diff, const std::string& path) {
  for (const auto& f : diff.files)
    if (f.path == path) return &f;
  return nullptr;
}

std::string run_git_with_input(const std::string& dir, std::vector<std::string> args,
                               const std::string& input) {
  args.insert(args.begin(), SIGNALTTY_GIT_PROGRAM);
  const Run run = run_program(args, dir, input);
  if (!run.exited_with(0)) throw std::runtime_error("git failed: " + run.err);
  std::string out = run.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string trimmed_git(const GitRepo& repo, std::initializer_list<std::string> args) {
  std::string out = repo.git(args);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::vector<std::string> entries_of(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// ---- symlinks ------------------------------------------------------------------

TEST(GitHostileRepo, SymlinkLoopsTrackedAndUntrackedAnswerWithoutHanging) {
  GitRepo repo;
  ASSERT_EQ(::symlink("lb", repo.path("la").c_str()), 0);
  ASSERT_EQ(::symlink("la", repo.path("lb").c_str()), 0);
  repo.commit_all("a tracked symlink loop");
  ASSERT_EQ(::symlink("b", repo.path("a").c_str()), 0);
  ASSERT_EQ(::symlink("a", repo.path("b").c_str()), 0);
  ASSERT_EQ(::symlink("self", repo.path("self").c_str()), 0);
  ASSERT_EQ(::symlink(".", repo.path("up").c_str()), 0);
  const std::vector<std::string> dirs{"--read", repo.root()};

  answered_ok<gw::StatusResult>(dirs, make_request(gw::Op::Status, repo.root()));
  const auto diff = answered_ok<gw::DiffResult>(dirs, make_request(gw::Op::Diff, repo.root()));
  for (const char* link : {"a", "b", "self", "up"}) {
    SCOPED_TRACE(link);
    const protocol::DiffFile* f = find_file(diff, link);
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->untracked && f->binary);
    EXPECT_EQ(f->added + f->removed, 0u);
  }
  EXPECT_EQ(find_file(diff, "la"), nullptr);  // unchanged
  for (const char* path : {"a", "self", "up", "la"}) {
    SCOPED_TRACE(path);
    answered_ok<gw::FileDiffResult>(dirs, make_request(gw::Op::FileDiff, repo.root(), path));
  }
  // Through a symlink to the checkout itself: not a file of the checkout.
  answered(dirs, make_request(gw::Op::FileDiff, repo.root(), "up/README"));

  // The tracked loop retargeted: a text change of the link, still no hang.
  ASSERT_EQ(::unlink(repo.path("la").c_str()), 0);
  ASSERT_EQ(::symlink("la", repo.path("la").c_str()), 0);
  const auto changed = answered_ok<gw::DiffResult>(dirs, make_request(gw::Op::Diff, repo.root()));
  EXPECT_NE(find_file(changed, "la"), nullptr);
  answered_ok<gw::FileDiffResult>(dirs, make_request(gw::Op::FileDiff, repo.root(), "la"));
  answered_ok<gw::CaptureResult>({"--read", repo.root(), "--write", repo.path(".git/objects")},
                                 make_request(gw::Op::Capture, repo.root()));
}

TEST(GitHostileRepo, SymlinksOutOfTheCheckoutNeverShowTheirTargetsContent) {
  GitRepo repo;
  TempDir outside("signaltty-gitshadow");
  const std::string secret = "SHADOW-SECRET-CONTENT";
  write_file(outside.file("shadow"), secret + " one\n");
  write_file(outside.file("shadow2"), secret + " two\n");
  repo.write("plain.txt", "a plain file\n");
  ASSERT_EQ(::symlink(outside.file("shadow").c_str(), repo.path("shadow-link").c_str()), 0);
  repo.commit_all("a tracked symlink out of the checkout");
  // Retargeted; a tracked file turned into a symlink out; untracked links
  // to /etc/passwd, to the secret, to the secret's directory.
  ASSERT_EQ(::unlink(repo.path("shadow-link").c_str()), 0);
  ASSERT_EQ(::symlink(outside.file("shadow2").c_str(), repo.path("shadow-link").c_str()), 0);
  ASSERT_EQ(::unlink(repo.path("plain.txt").c_str()), 0);
  ASSERT_EQ(::symlink(outside.file("shadow").c_str(), repo.path("plain.txt").c_str()), 0);
  ASSERT_EQ(::symlink("/etc/passwd", repo.path("passwd").c_str()), 0);
  ASSERT_EQ(::symlink(outside.file("shadow").c_str(), repo.path("untracked-shadow").c_str()), 0);
  ASSERT_EQ(::symlink(outside.path().c_str(), repo.path("outdir").c_str()), 0);
  const std::vector<std::string> dirs{"--read", repo.root()};

  std::vector<gw::Request> requests{make_request(gw::Op::Status, repo.root()),
                                    make_request(gw::Op::Diff, repo.root())};
  for (const char* path :
       {"shadow-link", "plain.txt", "passwd", "untracked-shadow", "outdir/shadow"})
    requests.push_back(make_request(gw::Op::FileDiff, repo.root(), path));
  for (const gw::Request& request : requests) {
    SCOPED_TRACE(op_name(request));
    const WorkerRun worker = answered(dirs, request);
    EXPECT_EQ(everything(worker).find(secret), std::string::npos) << worker.run.out;
    EXPECT_EQ(everything(worker).find("root:"), std::string::npos) << worker.run.out;
    if (request.path && *request.path != "outdir/shadow") {
      EXPECT_TRUE(worker.reply && worker.reply->ok) << worker.run.out;
    }
  }
}

// ---- hostile tree entries --------------------------------------------------------

struct TreeEntry {
  std::string mode;  // as git writes it: "100644", "40000", "120000"
  std::string name;
  std::string id;    // hex
};

std::string raw_id(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

// A tree object written as given, with no checks (git's own refuse these
// names): entries must already be in git's order.
std::string write_raw_tree(const GitRepo& repo, const std::vector<TreeEntry>& entries) {
  std::string bytes;
  for (const TreeEntry& e : entries) bytes += e.mode + " " + e.name + '\0' + raw_id(e.id);
  return run_git_with_input(repo.root(),
                            {"hash-object", "-w", "-t", "tree", "--literally", "--stdin"}, bytes);
}

std::string write_blob(const GitRepo& repo, const std::string& text) {
  return run_git_with_input(repo.root(), {"hash-object", "-w", "--stdin"}, text);
}

struct HostileTree {
  const char* what;
  std::vector<TreeEntry> (*entries)(const GitRepo& repo, const std::string& outside_dir);
};

// Each a root tree that also keeps README, so the rest of the checkout is
// ordinary. "x" holds PWNED: it must never appear outside the checkout.
const HostileTree kHostileTrees[] = {
    {"a directory named ..",
     [](const GitRepo& repo, const std::string&) {
       const std::string x = write_blob(repo, "PWNED\n");
       const std::string inner = write_raw_tree(repo, {{"100644", "x", x}});
       return std::vector<TreeEntry>{{"40000", "..", inner},
                                     {"100644", "README", write_blob(repo, "hello\n")}};
     }},
    {"a file named ../x",
     [](const GitRepo& repo, const std::string&) {
       return std::vector<TreeEntry>{{"100644", "../x", write_blob(repo, "PWNED\n")},
                                     {"100644", "README", write_blob(repo, "hello\n")}};
     }},
    {"a file named ../../x",
     [](const GitRepo& repo, const std::string&) {
       return std::vector<TreeEntry>{{"100644", "../../x", write_blob(repo, "PWNED\n")},
                                     {"100644", "README", write_blob(repo, "hello\n")}};
     }},
    {"a directory named .git with a config and a hook",
     [](const GitRepo& repo, const std::string&) {
       const std::string config = write_blob(repo, "[core]\n\thooksPath = /tmp\nPWNED\n");
       const std::string hook = write_blob(repo, "#!/bin/sh\necho PWNED\n");
       const std::string hooks = write_raw_tree(repo, {{"100755", "post-checkout", hook}});
       const std::string dotgit =
           write_raw_tree(repo, {{"100644", "config", config}, {"40000", "hooks", hooks}});
       return std::vector<TreeEntry>{{"40000", ".git", dotgit},
                                     {"100644", "README", write_blob(repo, "hello\n")}};
     }},
    {"a file named .git",
     [](const GitRepo& repo, const std::string& outside_dir) {
       return std::vector<TreeEntry>{
           {"100644", ".git", write_blob(repo, "gitdir: " + outside_dir + "\n")},
           {"100644", "README", write_blob(repo, "hello\n")}};
     }},
    {"a directory named .GIT",
     [](const GitRepo& repo, const std::string&) {
       const std::string inner =
           write_raw_tree(repo, {{"100644", "config", write_blob(repo, "PWNED\n")}});
       return std::vector<TreeEntry>{{"40000", ".GIT", inner},
                                     {"100644", "README", write_blob(repo, "hello\n")}};
     }},
    {"a symlink out and a directory of the same name",
     [](const GitRepo& repo, const std::string& outside_dir) {
       const std::string inner = write_raw_tree(repo, {{"100644", "x", write_blob(repo, "PWNED\n")}});
       return std::vector<TreeEntry>{{"100644", "README", write_blob(repo, "hello\n")},
                                     {"120000", "evil", write_blob(repo, outside_dir)},
                                     {"40000", "evil", inner}};
     }},
    {"an absolute name",
     [](const GitRepo& repo, const std::string& outside_dir) {
       return std::vector<TreeEntry>{{"100644", outside_dir + "/x", write_blob(repo, "PWNED\n")},
                                     {"100644", "README", write_blob(repo, "hello\n")}};
     }},
};

// No file anywhere under `dir` holds PWNED, except under `allowed`.
bool pwned_under(const std::string& dir, const std::string& allowed) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string path = it->path().string();
    if (!allowed.empty() && path.rfind(allowed, 0) == 0) continue;
    if (it->is_symlink() || !it->is_regular_file()) continue;
    if (read_file(path).find("PWNED") != std::string::npos) return true;
  }
  return false;
}

// HEAD moved onto a commit of the hostile tree (index and checkout left as
// they were): status, diff, file_diff and capture answer; worktree_add from
// that HEAD writes nothing outside its new checkout.
TEST(GitHostileRepo, HostileTreeEntryNamesNeverReachOutsideTheCheckout) {
  for (const HostileTree& hostile : kHostileTrees) {
    SCOPED_TRACE(hostile.what);
    GitRepo repo;
    TempDir parent("signaltty-githostile-parent");
    TempDir outside("signaltty-githostile-outside");
    const std::string tree = write_raw_tree(repo, hostile.entries(repo, outside.path()));
    const std::string commit =
        trimmed_git(repo, {"commit-tree", tree, "-p", "HEAD", "-m", "hostile names"});
    repo.git({"update-ref", "refs/heads/main", commit});
    const std::string config_before = read_file(repo.path(".git/config"));
    const std::vector<std::string> dirs{"--read", repo.root()};

    answered(dirs, make_request(gw::Op::Status, repo.root()));
    answered(dirs, make_request(gw::Op::Diff, repo.root()));
    answered(dirs, make_request(gw::Op::FileDiff, repo.root(), "README"));
    gw::Request against = make_request(gw::Op::Diff, repo.root());
    against.base_tree = tree;
    answered(dirs, against);
    answered({"--read", repo.root(), "--write", repo.path(".git/objects")},
             make_request(gw::Op::Capture, repo.root()));

    const std::string wt = parent.file("wt");
    gw::Request add = make_request(gw::Op::WorktreeAdd, repo.root(), wt);
    add.branch = "feature";
    const WorkerRun added = answered(
        {"--read", repo.root(), "--write", repo.path(".git"), "--write", parent.path()}, add);
    // libgit2 refuses each of these paths at checkout: an error today.
    EXPECT_TRUE(added.reply && !added.reply->ok) << added.run.out;

    const std::vector<std::string> in_parent = entries_of(parent.path());
    EXPECT_TRUE(in_parent.empty() || in_parent == std::vector<std::string>{"wt"})
        << "written next to the checkout: " << ::testing::PrintToString(in_parent);
    EXPECT_FALSE(pwned_under(parent.path(), wt + "/"));
    EXPECT_TRUE(entries_of(outside.path()).empty()) << "written to the symlink's target";
    EXPECT_FALSE(pwned_under(repo.root(), ""));
    EXPECT_EQ(read_file(repo.path(".git/config")), config_before);
    struct stat st {};
    if (::lstat((wt + "/.git").c_str(), &st) == 0) {
      EXPECT_TRUE(S_ISREG(st.st_mode)) << "the new checkout's .git is not its gitdir pointer";
    }
  }
}

// Found by the case above: a create whose checkout fails used to leave its
// directory, its registration and its new branch, a dirty checkout that
// worktree_remove refused. Like git's own `worktree add`, it now takes back
// everything it made.
TEST(GitHostileRepo, AWorktreeAddWhoseCheckoutFailsLeavesNothingBehind) {
  GitRepo repo;
  TempDir parent("signaltty-githostile-parent");
  const std::string tree =
      write_raw_tree(repo, {{"100644", "../x", write_blob(repo, "PWNED\n")},
                            {"100644", "README", write_blob(repo, "hello\n")}});
  repo.git({"update-ref", "refs/heads/main",
            trimmed_git(repo, {"commit-tree", tree, "-p", "HEAD", "-m", "hostile names"})});
  const std::string wt = parent.file("wt");
  gw::Request add = make_request(gw::Op::WorktreeAdd, repo.root(), wt);
  add.branch = "feature";
  const std::vector<std::string> dirs{"--read", repo.root(), "--write", repo.path(".git"),
                                      "--write", parent.path()};
  const WorkerRun added = answered(dirs, add);
  ASSERT_TRUE(added.reply && !added.reply->ok) << added.run.out;
  EXPECT_FALSE(std::filesystem::exists(wt));
  EXPECT_FALSE(std::filesystem::exists(repo.path(".git/worktrees/wt")));
  EXPECT_EQ(repo.git({"branch", "--list", "feature"}), "");
}

// ---- a 64 MiB packed blob -----------------------------------------------------------

// Text, so only the size rule can make it binary: a real diff of 64 MiB of
// lines would be slow and large.
std::string big_text(std::size_t bytes) {
  std::string text;
  text.reserve(bytes + 64);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  static const char kHex[] = "0123456789abcdef";
  while (text.size() < bytes) {
    for (int i = 0; i < 32; ++i) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      text.push_back(kHex[state & 15]);
    }
    text.push_back('\n');
  }
  text.resize(bytes);
  text.back() = '\n';
  return text;
}

TEST(GitHostileRepo, A64MiBPackedBlobIsNeverDiffedAsText) {
  GitRepo repo;
  constexpr std::size_t kBig = std::size_t{64} << 20;
  write_file(repo.path("big.txt"), big_text(kBig));
  repo.write("small.txt", "one\ntwo\n");
  // Straight into a pack, uncompressed: quick to write, as large as it is.
  repo.git({"-c", "core.bigFileThreshold=1m", "-c", "core.compression=0", "add", "-A"});
  repo.git({"commit", "-q", "-m", "big"});
  repo.git({"-c", "pack.compression=0", "repack", "-adq"});
  bool packed = false;
  for (const auto& e : std::filesystem::directory_iterator(repo.path(".git/objects/pack")))
    packed = packed || (e.path().extension() == ".pack" && e.file_size() > kBig);
  ASSERT_TRUE(packed) << "the big blob is not in a pack";
  const std::vector<std::string> dirs{"--read", repo.root()};

  repo.write("small.txt", "one\ntwo\nthree\n");
  auto diff = answered_ok<gw::DiffResult>(dirs, make_request(gw::Op::Diff, repo.root()));
  ASSERT_EQ(diff.files.size(), 1u);
  EXPECT_EQ(diff.files[0].path, "small.txt");
  EXPECT_EQ(diff.files[0].added, 1u);
  const auto unchanged = answered_ok<gw::FileDiffResult>(
      dirs, make_request(gw::Op::FileDiff, repo.root(), "big.txt"));
  EXPECT_EQ(unchanged.content.value("kind", ""), "unchanged") << unchanged.content.dump();
  answered_ok<gw::StatusResult>(dirs, make_request(gw::Op::Status, repo.root()));

  {
    std::ofstream append(repo.path("big.txt"), std::ios::app | std::ios::binary);
    append << "one more line\n";
  }
  diff = answered_ok<gw::DiffResult>(dirs, make_request(gw::Op::Diff, repo.root()));
  const protocol::DiffFile* big = find_file(diff, "big.txt");
  ASSERT_NE(big, nullptr);
  EXPECT_TRUE(big->binary);
  EXPECT_EQ(big->added + big->removed, 0u);
  const auto changed = answered_ok<gw::FileDiffResult>(
      dirs, make_request(gw::Op::FileDiff, repo.root(), "big.txt"));
  EXPECT_EQ(changed.content.value("kind", ""), "binary") << changed.content.dump();
}

// ---- configuration that would run programs -----------------------------------------

TEST(GitHostileRepo, FiltersTextconvHooksAndFsmonitorNeverRun) {
  GitRepo repo;
  TempDir outside("signaltty-githostile-evil");
  TempDir parent("signaltty-githostile-parent");
  const std::string marker = outside.file("marker");
  const std::string evil = outside.file("evil.sh");
  write_file(evil, "#!/bin/sh\necho \"$0 $*\" >> " + marker + "\ncat\n", 0755);
  std::filesystem::create_directories(outside.file("hooks"));
  for (const char* hook : {"post-checkout", "pre-commit", "post-commit", "post-index-change",
                           "reference-transaction", "fsmonitor-watchman", "pre-auto-gc"})
    write_file(outside.file(std::string("hooks/") + hook),
               "#!/bin/sh\necho \"$0\" >> " + marker + "\n", 0755);
  repo.write(".gitattributes", "* filter=evil diff=evil merge=evil\n");
  repo.write("file.txt", "one\ntwo\n");
  repo.commit_all("attributes");
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{
           {"filter.evil.clean", evil + " clean"},
           {"filter.evil.smudge", evil + " smudge"},
           {"filter.evil.required", "true"},
           {"diff.evil.textconv", evil + " textconv"},
           {"diff.evil.command", evil + " command"},
           {"merge.evil.driver", evil + " merge"},
           {"core.fsmonitor", evil},
           {"core.hooksPath", outside.file("hooks")},
           {"core.pager", evil},
           {"core.editor", evil},
           {"core.sshCommand", evil}})
    repo.git({"config", key, value});
  repo.write("file.txt", "one\n2\n");
  repo.write("new.txt", "untracked\n");
  const std::vector<std::string> dirs{"--read", repo.root()};

  answered_ok<gw::StatusResult>(dirs, make_request(gw::Op::Status, repo.root()));
  answered_ok<gw::DiffResult>(dirs, make_request(gw::Op::Diff, repo.root()));
  for (const char* path : {"file.txt", "new.txt", ".gitattributes"})
    answered_ok<gw::FileDiffResult>(dirs, make_request(gw::Op::FileDiff, repo.root(), path));
  answered_ok<gw::CaptureResult>({"--read", repo.root(), "--write", repo.path(".git/objects")},
                                 make_request(gw::Op::Capture, repo.root()));
  const std::vector<std::string> write_dirs{"--read", repo.root(), "--write", repo.path(".git"),
                                            "--write", parent.path()};
  gw::Request add = make_request(gw::Op::WorktreeAdd, repo.root(), parent.file("wt"));
  add.branch = "feature";
  answered(write_dirs, add);
  answered_ok<gw::WorktreeListResult>(dirs, make_request(gw::Op::WorktreeList, repo.root()));
  answered(write_dirs, make_request(gw::Op::WorktreeRemove, repo.root(), parent.file("wt")));
  EXPECT_FALSE(std::filesystem::exists(marker)) << read_file(marker);

  // The configuration is live: git itself runs it.
  run_program({SIGNALTTY_GIT_PROGRAM, "diff"}, repo.root());
  EXPECT_TRUE(std::filesystem::exists(marker)) << "the hostile configuration proves nothing";
}

// ---- repositories reaching outside the granted directories -----------------------------

TEST(GitHostileRepo, AlternatesOutsideTheReadDirsAreNeverRead) {
  GitRepo source;
  source.write("secret.txt", "ALTERNATE-SECRET\nline two\n");
  source.commit_all("secret");
  TempDir clone_dir("signaltty-githostile-alt");
  const std::string clone = clone_dir.file("clone");
  testing::git(clone_dir.path(), {"clone", "-q", "--shared", source.root(), clone});
  ASSERT_TRUE(std::filesystem::exists(clone + "/.git/objects/info/alternates"));
  write_file(clone + "/secret.txt", "replaced\nline two\n");
  const std::vector<std::string> dirs{"--read", clone};

  for (const gw::Request& request :
       {make_request(gw::Op::Status, clone), make_request(gw::Op::Diff, clone),
        make_request(gw::Op::FileDiff, clone, "secret.txt"),
        make_request(gw::Op::WorktreeList, clone)}) {
    SCOPED_TRACE(op_name(request));
    const WorkerRun worker = answered(dirs, request);
    EXPECT_EQ(everything(worker).find("ALTERNATE-SECRET"), std::string::npos) << worker.run.out;
  }
  gw::Request file = make_request(gw::Op::FileDiff, clone, "secret.txt");
  const WorkerRun worker = answered(dirs, file);
  if (worker.reply && !worker.reply->ok && worker.reply->error) {
    EXPECT_EQ(worker.reply->error->code, "IO_ERROR") << worker.run.out;
  }
}

TEST(GitHostileRepo, AGitdirOutsideTheReadDirsIsAnError) {
  GitRepo elsewhere;
  elsewhere.git({"checkout", "-q", "-b", "secret-branch-name"});
  TempDir checkout("signaltty-githostile-gitfile");
  write_file(checkout.file(".git"), "gitdir: " + elsewhere.path(".git") + "\n");
  write_file(checkout.file("README"), "changed\n");
  const std::vector<std::string> dirs{"--read", checkout.path()};
  for (const gw::Request& request :
       {make_request(gw::Op::Status, checkout.path()), make_request(gw::Op::Diff, checkout.path()),
        make_request(gw::Op::FileDiff, checkout.path(), "README"),
        make_request(gw::Op::WorktreeList, checkout.path())}) {
    SCOPED_TRACE(op_name(request));
    const WorkerRun worker = answered(dirs, request);
    ASSERT_TRUE(worker.reply.has_value());
    EXPECT_FALSE(worker.reply->ok) << worker.run.out;
    EXPECT_EQ(everything(worker).find("secret-branch-name"), std::string::npos) << worker.run.out;
  }
}

// ---- a corrupt index ------------------------------------------------------------------

TEST(GitHostileRepo, ACorruptIndexIsAnIoError) {
  struct Corruption {
    const char* what;
    std::string (*corrupt)(const std::string& index);
  };
  const Corruption corruptions[] = {
      {"truncated", [](const std::string& index) { return index.substr(0, 30); }},
      {"garbage", [](const std::string&) { return std::string(4096, '\xA5'); }},
      {"a header claiming 4 billion entries",
       [](const std::string&) {
         return std::string("DIRC\0\0\0\2\xff\xff\xff\xff", 12) + std::string(64, 'x');
       }},
      {"a flipped byte (bad checksum)",
       [](const std::string& index) {
         std::string bad = index;
         bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x40);
         return bad;
       }},
  };
  for (const Corruption& corruption : corruptions) {
    SCOPED_TRACE(corruption.what);
    GitRepo repo;
    repo.write("more.txt", "text\n");
    repo.commit_all("more");
    repo.write("README", "edited\n");
    write_file(repo.path(".git/index"), corruption.corrupt(read_file(repo.path(".git/index"))));
    const std::vector<std::string> dirs{"--read", repo.root()};
    answered_error(dirs, make_request(gw::Op::Status, repo.root()), "IO_ERROR");
    answered_error(dirs, make_request(gw::Op::Diff, repo.root()), "IO_ERROR");
    answered_error(dirs, make_request(gw::Op::FileDiff, repo.root(), "README"), "IO_ERROR");
    answered_error({"--read", repo.root(), "--write", repo.path(".git/objects")},
                   make_request(gw::Op::Capture, repo.root()), "IO_ERROR");
  }
}

// ---- a deep directory -------------------------------------------------------------------

// `levels` nested directories named `name` under `root`, made with *at
// calls (the whole path may exceed PATH_MAX), and a file at the bottom.
void make_deep(const std::string& root, const std::string& name, int levels) {
  int fd = ::open(root.c_str(), O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < levels; ++i) {
    ASSERT_EQ(::mkdirat(fd, name.c_str(), 0755), 0);
    const int next = ::openat(fd, name.c_str(), O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    ASSERT_GE(next, 0);
    fd = next;
  }
  const int file = ::openat(fd, "bottom.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ::close(fd);
  ASSERT_GE(file, 0);
  ASSERT_EQ(::write(file, "deep\n", 5), 5);
  ::close(file);
}

// Removes `name` in `dirfd` and everything under it with *at calls.
void remove_deep(int dirfd, const std::string& name) {
  const int fd = ::openat(dirfd, name.c_str(), O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    ::unlinkat(dirfd, name.c_str(), 0);
    return;
  }
  ::unlinkat(fd, "bottom.txt", 0);
  remove_deep(fd, name);
  ::close(fd);
  ::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR);
}

TEST(GitHostileRepo, DeepUntrackedDirectoriesAnswer) {
  struct Deep {
    const char* what;
    std::string name;
    int levels;
  };
  // 200 levels of "d" (400 bytes of path); 200 of 30 bytes (over PATH_MAX).
  // Today every op answers IO_ERROR "directory nesting too deep (100)":
  // libgit2's directory iterator stops at 100 levels.
  const Deep cases[] = {{"200 levels", "d", 200},
                        {"a path over PATH_MAX", std::string(30, 'n'), 200}};
  for (const Deep& deep : cases) {
    SCOPED_TRACE(deep.what);
    GitRepo repo;
    make_deep(repo.root(), deep.name, deep.levels);
    const std::vector<std::string> dirs{"--read", repo.root()};
    answered(dirs, make_request(gw::Op::Status, repo.root()));
    answered(dirs, make_request(gw::Op::Diff, repo.root()));
    std::string path;
    for (int i = 0; i < deep.levels; ++i) path += deep.name + "/";
    answered(dirs, make_request(gw::Op::FileDiff, repo.root(), path + "bottom.txt"));
    answered({"--read", repo.root(), "--write", repo.path(".git/objects")},
             make_request(gw::Op::Capture, repo.root()));
    const int root = ::open(repo.root().c_str(), O_DIRECTORY | O_CLOEXEC);
    remove_deep(root, deep.name);
    ::close(root);
  }
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::gitworker::testing
