// ptyhost/main.cpp: signaltty-ptyhost, one per pane.
//   signaltty-ptyhost --pane <pane_id> --dir <panes_dir> [--broker-socket <path>]
//   signaltty-ptyhost --version
// Runs in: ptyhost, started by the broker's launcher in a session of its own
// with fds 0-2 on /dev/null. Exits non-zero when its socket cannot be
// published (bad dir, or a live ptyhost already serves the pane).
// Never: parses more than its arguments; the pane lives in PaneHost.
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>

#include "common/ids.hpp"
#include "common/log.hpp"
#include "common/tsan_options.hpp"
#include "common/version.hpp"
#include "ptyhost/pane_host.hpp"
#include "ptyhost/pane_socket.hpp"

namespace {

using namespace signaltty;

constexpr int kExitUsage = 2;
constexpr int kExitSocket = 3;

struct Args {
  std::string pane_id;
  std::string dir;
  std::string broker_socket;  // informational only; never connected to
};

std::optional<Args> parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--pane") args.pane_id = argv[i + 1];
    else if (flag == "--dir") args.dir = argv[i + 1];
    else if (flag == "--broker-socket") args.broker_socket = argv[i + 1];
    else return std::nullopt;
  }
  if (argc % 2 != 1 || args.pane_id.empty() || args.dir.empty()) return std::nullopt;
  return args;
}

// A launcher gives us 0-2 on /dev/null; anyone else might not, and a
// socket landing on fd 2 would receive our log lines.
void ensure_std_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0) continue;
    const int opened = ::open("/dev/null", O_RDWR);
    if (opened >= 0 && opened != fd) {
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--version")
    return std::puts(version_line("signaltty-ptyhost").c_str()) >= 0 ? 0 : kExitUsage;
  ensure_std_fds();
  log::init("signaltty-ptyhost", log::Level::Info);
  auto args = parse_args(argc, argv);
  if (!args) {
    log::error("usage: signaltty-ptyhost --pane <pane_id> --dir <dir> [--broker-socket <path>]");
    return kExitUsage;
  }
  if (!is_pane_id(args->pane_id)) {
    log::error("invalid pane id: " + args->pane_id);
    return kExitUsage;
  }
  std::signal(SIGPIPE, SIG_IGN);
#if !defined(__SANITIZE_ADDRESS__)
  // PTY contents may be secret: no core dumps, no ptrace by other processes.
  // (Sanitizer builds stay dumpable: LeakSanitizer ptraces us at exit.)
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#endif

  auto socket = ptyhost::open_pane_socket(args->dir, args->pane_id);
  if (!socket.ok()) {
    log::error("control socket: " + socket.error().message);
    return kExitSocket;
  }
  boost::asio::io_context io(1);
  ptyhost::PaneHost host(io, args->pane_id, std::move(socket).value());
  host.start();
  log::info("serving " + args->pane_id);
  io.run();
  return host.exit_status();
}
