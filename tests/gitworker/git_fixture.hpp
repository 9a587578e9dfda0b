// tests/gitworker/git_fixture.hpp: real repositories for the gitworker
// tests, built in a fresh temp dir with the git CLI (tests only: the
// product never runs git), and the worker program run as the broker runs
// it: request on stdin, reply on stdout.
// Runs in: the gitworker tests.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "../broker/temp_dir.hpp"
#include "common/protocol/gitworker_wire.hpp"
#include "common/protocol/json_parse.hpp"

namespace signaltty::gitworker::testing {

using broker::testing::read_file;
using broker::testing::TempDir;
using broker::testing::write_file;

struct Run {
  int status = -1;  // as waitpid reports it
  std::string out;
  std::string err;
  bool exited_with(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
  bool killed_by(int signo) const { return WIFSIGNALED(status) && WTERMSIG(status) == signo; }
};

// Runs argv (argv[0] a path) in `cwd` with `input` on stdin; collects
// stdout and stderr. A fixed environment: no user or system git config, a
// fixed identity and dates, so every test sees the same git.
inline Run run_program(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::string& input = {}) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    static const char* env[] = {"PATH=/usr/bin:/bin",
                                "HOME=/nonexistent",
                                "GIT_CONFIG_NOSYSTEM=1",
                                "GIT_CONFIG_GLOBAL=/dev/null",
                                "GIT_AUTHOR_NAME=Test",
                                "GIT_AUTHOR_EMAIL=test@example.invalid",
                                "GIT_COMMITTER_NAME=Test",
                                "GIT_COMMITTER_EMAIL=test@example.invalid",
                                "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
                                "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
                                "LC_ALL=C",
                                nullptr};
    ::execve(args[0], args.data(), const_cast<char**>(env));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  Run run;
  std::size_t written = 0;
  int in_fd = in[1];
  if (input.empty()) {
    ::close(in_fd);
    in_fd = -1;
  }
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  if (in_fd >= 0) ::fcntl(in_fd, F_SETFL, O_NONBLOCK);
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in_fd, POLLOUT, 0}};
    ::poll(fds, in_fd >= 0 ? 3 : 2, -1);
    char buf[65536];
    for (int i = 0; i < 2; ++i) {
      bool& open = i == 0 ? out_open : err_open;
      if (!open || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0)
        (i == 0 ? run.out : run.err).append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EAGAIN)
        open = false;
    }
    if (in_fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = ::write(in_fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 || written == input.size()) {
        ::close(in_fd);
        in_fd = -1;
      }
    }
  }
  if (in_fd >= 0) ::close(in_fd);
  ::close(out[0]);
  ::close(err[0]);
  while (::waitpid(pid, &run.status, 0) < 0 && errno == EINTR) {
  }
  return run;
}

// git with `args` in `dir`; throws (a test failure) when git fails.
inline std::string git(const std::string& dir, std::initializer_list<std::string> args) {
  std::vector<std::string> argv{SIGNALTTY_GIT_PROGRAM};
  argv.insert(argv.end(), args.begin(), args.end());
  Run run = run_program(argv, dir);
  if (!run.exited_with(0)) {
    std::string cmd;
    for (const auto& a : argv) cmd += a + " ";
    throw std::runtime_error(cmd + "failed: " + run.err);
  }
  return run.out;
}

// A fresh repository with one commit of `README` on branch main, in its
// own temp dir; root() is the checkout.
class GitRepo {
 public:
  GitRepo() : dir_("signaltty-gitrepo") {
    testing::git(dir_.path(), {"init", "-q", "-b", "main", "."});
    write("README", "hello\n");
    commit_all("initial");
  }
  const std::string& root() const { return dir_.path(); }
  std::string path(const std::string& rel) const { return dir_.path() + "/" + rel; }
  void write(const std::string& rel, std::string_view text) const {
    const std::string full = path(rel);
    const auto slash = full.rfind('/');
    std::filesystem::create_directories(full.substr(0, slash));
    write_file(full, text);
  }
  std::string git(std::initializer_list<std::string> args) const {
    return testing::git(dir_.path(), args);
  }
  void commit_all(const std::string& message) const {
    git({"add", "-A"});
    git({"commit", "-q", "--allow-empty", "-m", message});
  }

 private:
  TempDir dir_;
};

// ---- two branches to merge ----------------------------------------------

inline std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// main: README; feature (from main): adds feature.txt and changes README's
// second line; main then gets its own commit touching other.txt, so the
// merge is a true one. `conflict` makes main change README's second line too.
struct Branches {
  GitRepo repo;
  std::string base, feature, main;
  explicit Branches(bool diverge = true, bool conflict = false) {
    repo.write("README", "hello\nline two\n");
    repo.commit_all("base");
    base = head();
    repo.git({"checkout", "-q", "-b", "feature"});
    repo.write("feature.txt", "new\n");
    repo.write("README", "hello\nline two, from feature\n");
    repo.commit_all("feature work");
    feature = head();
    repo.git({"checkout", "-q", "main"});
    if (diverge) {
      repo.write("other.txt", "main's own\n");
      if (conflict) repo.write("README", "hello\nline two, from main\n");
      repo.commit_all("main work");
    }
    main = head();
  }
  std::string head() const { return trim(repo.git({"rev-parse", "HEAD"})); }
  std::string status() const { return repo.git({"status", "--porcelain"}); }
};

// ---- the worker program, confined -------------------------------------------

// One run of the real program: its wait status and streams, the Reply its
// stdout decoded to (nullopt when it did not), and how long it took.
struct WorkerRun {
  Run run;
  std::optional<protocol::gitworker::Reply> reply;
  double seconds = 0;
};

// `signaltty-gitworker <dir_args...>` in cwd "/" as the launcher starts it,
// `request` on stdin. dir_args: "--read", DIR, "--write", DIR, ...
inline WorkerRun run_gitworker(const std::vector<std::string>& dir_args,
                               const protocol::gitworker::Request& request) {
  std::vector<std::string> argv{SIGNALTTY_GITWORKER};
  argv.insert(argv.end(), dir_args.begin(), dir_args.end());
  WorkerRun worker;
  const auto start = std::chrono::steady_clock::now();
  worker.run = run_program(argv, "/", protocol::encode(request).dump());
  worker.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (auto doc = protocol::parse_json(worker.run.out); doc.ok())
    if (auto reply = protocol::decode<protocol::gitworker::Reply>(*doc); reply.ok())
      worker.reply = std::move(*reply);
  return worker;
}

// A wait status as words, for failure messages.
inline std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace signaltty::gitworker::testing
