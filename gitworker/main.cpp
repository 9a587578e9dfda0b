// gitworker/main.cpp: signaltty-gitworker, one repository operation per
// process (docs/gitworker.md). The launcher starts it in a process group of
// its own with the directories it may touch on the command line:
//   signaltty-gitworker [--read DIR]... [--write DIR]...
// It enters its sandbox first, then reads one Request from stdin, performs
// it, writes one Reply to stdout and exits 0. A bad command line or request
// exits 2, a sandbox that cannot be entered 3; either with one line on
// stderr and nothing on stdout.
// Runs in: gitworker. Never: reads its request, or a repository, before the
// sandbox is in force.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <string_view>

#include "common/fs.hpp"
#include "common/protocol/gitworker_wire.hpp"
#include "common/protocol/json_parse.hpp"
#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "gitworker/sandbox.hpp"

namespace gw = signaltty::protocol::gitworker;
using signaltty::Error;
using signaltty::Result;

#if defined(__SANITIZE_ADDRESS__) || defined(SIGNALTTY_SANITIZE)
// Sanitizer builds only: Debian's libgit2 1.5 leaks a few allocations (its
// own and pcre2 match data) on error paths that hostile repositories reach;
// the worker exits right after, and a leak report would turn its exit 0
// into LeakSanitizer's. Leaks in our own code are still reported.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libgit2.so\nleak:libpcre2-8.so\n";
}
#endif

namespace {

[[noreturn]] void fail(int status, std::string_view message) {
  std::fprintf(stderr, "signaltty-gitworker: %.*s\n", static_cast<int>(message.size()),
               message.data());
  std::_Exit(status);
}

Result<signaltty::gitworker::SandboxPlan> parse_args(int argc, char** argv) {
  signaltty::gitworker::SandboxPlan plan;
#ifdef SIGNALTTY_GITWORKER_TEST_OPS
  plan.allow_sleep = true;
#endif
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return Error{signaltty::ErrorCode::BadParams, std::string(flag) + " needs a directory"};
    std::string dir = argv[i + 1];
    if (dir.empty() || dir.front() != '/')
      return Error{signaltty::ErrorCode::BadParams, "not an absolute directory: " + dir};
    if (flag == gw::kArgRead)
      plan.read_dirs.push_back(std::move(dir));
    else if (flag == gw::kArgWrite)
      plan.write_dirs.push_back(std::move(dir));
    else
      return Error{signaltty::ErrorCode::BadParams, "unknown argument " + std::string(flag)};
  }
  return plan;
}

// stdin to EOF, at most kMaxRequestBytes.
Result<std::string> read_request() {
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{signaltty::ErrorCode::IoError, "reading the request"};
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > gw::kMaxRequestBytes)
      return Error{signaltty::ErrorCode::BadParams, "the request is over its size limit"};
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto plan = parse_args(argc, argv);
  if (!plan.ok()) fail(gw::kExitUsage, plan.error().message);
  // libgit2 first: its global state (and the allocations it makes once)
  // set up before the filter narrows what the process may call.
  signaltty::gitworker::init_libgit2();
  if (auto confined = signaltty::gitworker::enter_sandbox(*plan); !confined.ok())
    fail(gw::kExitSandboxUnavailable, confined.error().message);

  auto text = read_request();
  if (!text.ok()) fail(gw::kExitUsage, text.error().message);
  auto doc = signaltty::protocol::parse_json(*text);
  if (!doc.ok()) fail(gw::kExitUsage, "the request is not JSON: " + doc.error().message);
  auto request = signaltty::protocol::decode<gw::Request>(*doc);
  if (!request.ok()) fail(gw::kExitUsage, "bad request: " + request.error().message);

  gw::Reply reply;
  auto result = signaltty::gitworker::run_op(*request);
  if (result.ok()) {
    reply.ok = true;
    reply.result = std::move(*result);
  } else {
    reply.error = gw::ReplyError{std::string(signaltty::wire_name(result.error().code)),
                                 result.error().message, std::nullopt};
    if (result.error().details.is_object() && !result.error().details.empty())
      reply.error->details = result.error().details;
  }
  const std::string out = signaltty::protocol::encode(reply).dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!signaltty::fs::write_all(STDOUT_FILENO, out, "stdout").ok()) return 1;
  return gw::kExitReplied;
}
