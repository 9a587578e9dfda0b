// tests/cli/attach_test.cpp: the attach session against a scripted
// broker on a socketpair, with pipes (or a pty) as the user's terminal:
// setup calls, snapshot replay, the offset rules on live output, pipelined
// keyboard input, the detach key, exits, broker loss, resize and the
// terminal settings put back.
#include "cli/attach.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <future>
#include <sstream>
#include <thread>

#include "cli/exit_codes.hpp"
#include "common/base64.hpp"
#include "common/protocol/envelope.hpp"
#include "common/protocol/events.hpp"
#include "common/protocol/methods.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using protocol::Json;
using Clock = std::chrono::steady_clock;

constexpr auto kWait = std::chrono::seconds(10);
const std::string kPaneId = "pane_0123456789abcdef0123456789abcdef";

Json pane_json(std::optional<int> exit_code = std::nullopt) {
  Json pane = {{"id", kPaneId}, {"workspace_id", "ws_1"}, {"tab_id", "tab_1"}};
  if (exit_code) {
    pane["live"] = {{"state", "exited"}, {"code", *exit_code}};
    pane["exit_code"] = *exit_code;
  }
  return {{"pane", pane},
          {"wait_baseline",
           {{"pane_id", kPaneId}, {"process_instance", "p1"}, {"session_generation", 0},
            {"lifecycle_seq", 0}, {"attention_seq", 0}}}};
}

Json attach_result(std::string_view snapshot, std::uint64_t offset, bool live = true) {
  return {{"snapshot_b64", base64_encode(snapshot)}, {"output_offset", offset},
          {"size", {{"cols", 80}, {"rows", 24}}}, {"live", live},
          {"restore_state", "LIVE"}, {"lifecycle", "unknown"}, {"attention", "none"}};
}

// Waits until `fd` is readable or the deadline passes.
bool readable(int fd, Clock::time_point deadline) {
  pollfd pfd{fd, POLLIN, 0};
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return ::poll(&pfd, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0))) == 1;
}

// The broker's end of the session's connection.
class ScriptedBroker {
 public:
  explicit ScriptedBroker(UniqueFd fd) : fd_(std::move(fd)) {}

  // The next request line, parsed; fails the test on timeout.
  Json next_request() {
    const auto deadline = Clock::now() + kWait;
    for (;;) {
      if (auto newline = buffer_.find('\n'); newline != std::string::npos) {
        Json request = Json::parse(buffer_.substr(0, newline));
        buffer_.erase(0, newline + 1);
        return request;
      }
      if (!readable(fd_.get(), deadline)) {
        ADD_FAILURE() << "no request from the session";
        return Json::object();
      }
      char chunk[4096];
      const ssize_t n = ::read(fd_.get(), chunk, sizeof(chunk));
      if (n <= 0) {
        ADD_FAILURE() << "the session closed the connection";
        return Json::object();
      }
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // The next request, which must be `method`.
  Json expect(std::string_view method) {
    Json request = next_request();
    EXPECT_EQ(request.value("method", ""), method) << request.dump();
    return request;
  }
  void reply(const Json& request, const Json& result) {
    write(protocol::encode_ok(request["id"], result));
  }
  void reply_error(const Json& request, ErrorCode code) {
    write(protocol::encode_error(request["id"], Error{code, "scripted"}));
  }
  void event(std::string_view name, const Json& payload) {
    write(protocol::encode_event(name, ++seq_, payload));
  }
  void output(std::string_view bytes, std::uint64_t end_offset) {
    event(protocol::ev::PtyData::name,
          {{"pane_id", kPaneId}, {"data_b64", base64_encode(bytes)}, {"output_offset", end_offset}});
  }
  // The pane.get and subscribe every session starts with.
  void answer_setup() {
    Json get = expect(protocol::PaneGet::name);
    reply(get, pane_json());
    Json subscribe = expect(protocol::Subscribe::name);
    reply(subscribe, {{"subscribed", true}, {"seq", seq_}});
  }
  // Setup, then the attach with this snapshot; returns the attach request.
  Json attach_with(std::string_view snapshot, std::uint64_t offset) {
    answer_setup();
    Json attach = expect(protocol::PaneAttach::name);
    reply(attach, attach_result(snapshot, offset));
    return attach;
  }
  void close() { fd_.reset(); }

 private:
  void write(std::string_view line) {
    while (!line.empty()) {
      const ssize_t n = ::send(fd_.get(), line.data(), line.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      line.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  UniqueFd fd_;
  std::string buffer_;
  std::uint64_t seq_ = 0;
};

// The user's side: keyboard and screen, as pipes or as a pty.
struct Terminal {
  UniqueFd session_in, keyboard;  // the session reads session_in
  UniqueFd screen, session_out;   // the session writes session_out

  static Terminal pipes() {
    int in[2], out[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    return {UniqueFd(in[0]), UniqueFd(in[1]), UniqueFd(out[0]), UniqueFd(out[1])};
  }
  // Both session ends are the pty's slave; the test types into and reads
  // from the master.
  static Terminal pty(int cols, int rows) {
    int master = -1, slave = -1;
    winsize ws{};
    ws.ws_col = static_cast<unsigned short>(cols);
    ws.ws_row = static_cast<unsigned short>(rows);
    EXPECT_EQ(::openpty(&master, &slave, nullptr, nullptr, &ws), 0);
    return {UniqueFd(slave), UniqueFd(::dup(master)), UniqueFd(master), UniqueFd(::dup(slave))};
  }

  void type(std::string_view bytes) {
    ASSERT_EQ(::write(keyboard.get(), bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }
  // Reads the screen until it shows `text`; returns everything read so far.
  std::string wait_for(std::string_view text) {
    const auto deadline = Clock::now() + kWait;
    while (shown.find(text) == std::string::npos) {
      if (!readable(screen.get(), deadline)) {
        ADD_FAILURE() << "the screen never showed '" << text << "'; it shows: " << shown;
        break;
      }
      char chunk[4096];
      const ssize_t n = ::read(screen.get(), chunk, sizeof(chunk));
      if (n <= 0) break;
      shown.append(chunk, static_cast<std::size_t>(n));
    }
    return shown;
  }
  std::string shown;
};

// One session on its own thread, against a scripted broker.
class AttachSessionTest : public ::testing::Test {
 protected:
  void start(AttachOptions options = {kPaneId}) {
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    broker_ = std::make_unique<ScriptedBroker>(UniqueFd(pair[0]));
    link_ = std::make_unique<AttachLink>(AttachLink::adopt(UniqueFd(pair[1])));
    options_ = std::move(options);
    status_ = std::async(std::launch::async, [this] {
      return run_attach(*link_, options_,
                        TerminalIo{terminal_.session_in.get(), terminal_.session_out.get(), err_});
    });
  }
  int finish() {
    if (status_.wait_for(kWait) != std::future_status::ready) {
      ADD_FAILURE() << "the session did not end";
      broker_->close();
    }
    return status_.get();
  }
  void TearDown() override {
    if (status_.valid()) {
      broker_->close();
      status_.wait();
    }
  }

  Terminal terminal_ = Terminal::pipes();
  std::unique_ptr<ScriptedBroker> broker_;
  std::unique_ptr<AttachLink> link_;
  AttachOptions options_;
  std::ostringstream err_;
  std::future<int> status_;
};

TEST_F(AttachSessionTest, SetupFindsThePaneAndSubscribesToItsEnd) {
  start({"my-pane"});
  Json get = broker_->expect(protocol::PaneGet::name);
  EXPECT_EQ(get["params"]["pane_id"], "my-pane");
  broker_->reply(get, pane_json());
  Json subscribe = broker_->expect(protocol::Subscribe::name);
  EXPECT_EQ(subscribe["params"]["events"],
            Json({protocol::ev::PaneExited::name, protocol::ev::PaneClosed::name,
                  protocol::ev::ServerWillShutdown::name}));
  broker_->reply(subscribe, {{"subscribed", true}, {"seq", 0}});
  Json attach = broker_->expect(protocol::PaneAttach::name);
  EXPECT_EQ(attach["params"]["pane_id"], kPaneId) << "the real id, not the name";
  EXPECT_EQ(attach["params"]["mark_seen"], true);
  EXPECT_FALSE(attach["params"].contains("cols")) << "a pipe has no size";
  broker_->close();
  EXPECT_EQ(finish(), kExitBrokerNotRunning);
}

TEST_F(AttachSessionTest, ReplaysTheSnapshotOnACleanScreen) {
  start();
  broker_->attach_with("\x1b" "c$ hello", 8);
  EXPECT_EQ(terminal_.wait_for("hello"), "\x1b[H\x1b[2J\x1b" "c$ hello");
}

TEST_F(AttachSessionTest, LiveOutputIsTrimmedToWhatTheSnapshotDoesNotShow) {
  start();
  broker_->attach_with("snap", 10);
  broker_->output("0123456789", 10);
  broker_->output("89AB", 12);
  broker_->output("CD", 14);
  broker_->output("END", 17);
  const std::string shown = terminal_.wait_for("END");
  EXPECT_EQ(shown.substr(shown.find("snap")), "snapABCDEND");
}

TEST_F(AttachSessionTest, AForwardGapReattachesForAFreshSnapshot) {
  start();
  broker_->attach_with("old", 10);
  broker_->output("XY", 20);  // bytes 10-18 never arrived
  Json again = broker_->expect(protocol::PaneAttach::name);
  EXPECT_EQ(again["params"]["pane_id"], kPaneId);
  broker_->output("QQ", 22);  // before the reply: covered by the coming snapshot
  broker_->reply(again, attach_result("fresh", 22));
  broker_->output("Z", 23);
  const std::string shown = terminal_.wait_for("Z");
  EXPECT_EQ(shown, "\x1b[H\x1b[2Jold\x1b[H\x1b[2JfreshZ");
}

TEST_F(AttachSessionTest, KeyboardBytesArePipelinedAsPaneInput) {
  start();
  broker_->attach_with("", 0);
  terminal_.type("ls");
  Json first = broker_->expect(protocol::PaneInput::name);
  EXPECT_EQ(first["params"]["pane_id"], kPaneId);
  EXPECT_EQ(base64_decode(first["params"]["data_b64"].get<std::string>()), "ls");
  terminal_.type("\r");
  Json second = broker_->expect(protocol::PaneInput::name);  // first still unanswered
  EXPECT_EQ(base64_decode(second["params"]["data_b64"].get<std::string>()), "\r");
  broker_->reply(second, {{"written", 1}});
  broker_->reply(first, {{"written", 2}});
  broker_->output("ok", 2);
  terminal_.wait_for("ok");
}

TEST_F(AttachSessionTest, DetachKeySendsPaneDetachAndPrintsTheNote) {
  start();
  broker_->attach_with("", 0);
  terminal_.type("\x1c" "d");
  Json detach = broker_->expect(protocol::PaneDetach::name);
  EXPECT_EQ(detach["params"]["pane_id"], kPaneId);
  broker_->reply(detach, {{"detached", true}});
  EXPECT_EQ(finish(), kExitOk);
  terminal_.wait_for("[detached from " + kPaneId + "]");
}

TEST_F(AttachSessionTest, DetachKeyTwiceSendsOneLiteralCtrlBackslash) {
  start();
  broker_->attach_with("", 0);
  terminal_.type("\x1c\x1c");
  Json input = broker_->expect(protocol::PaneInput::name);
  EXPECT_EQ(base64_decode(input["params"]["data_b64"].get<std::string>()), "\x1c");
}

TEST_F(AttachSessionTest, ACustomDetachKeyIsHonoured) {
  start({kPaneId, DetachKey{0x01}});
  broker_->attach_with("", 0);
  terminal_.type("\x1c" "d");
  Json input = broker_->expect(protocol::PaneInput::name);
  EXPECT_EQ(base64_decode(input["params"]["data_b64"].get<std::string>()), "\x1c" "d");
  terminal_.type("\x01" "d");
  broker_->reply(broker_->expect(protocol::PaneDetach::name), {{"detached", true}});
  EXPECT_EQ(finish(), kExitOk);
}

TEST_F(AttachSessionTest, PaneExitEndsTheSessionWithItsCode) {
  start();
  broker_->attach_with("", 0);
  broker_->output("bye", 3);
  broker_->event(protocol::ev::PaneExited::name, {{"pane_id", kPaneId}, {"code", 3}, {"signal", nullptr}});
  EXPECT_EQ(finish(), kExitOk);
  const std::string shown = terminal_.wait_for("[pane exited: code 3]");
  EXPECT_LT(shown.find("bye"), shown.find("[pane exited")) << "output first, then the note";
}

TEST_F(AttachSessionTest, EventsOfOtherPanesAreIgnored) {
  start();
  broker_->attach_with("", 0);
  broker_->event(protocol::ev::PaneExited::name, {{"pane_id", "pane_other"}, {"code", 1}});
  broker_->event(protocol::ev::PaneClosed::name, {{"pane_id", "pane_other"}});
  broker_->output("still here", 10);
  terminal_.wait_for("still here");
  EXPECT_EQ(status_.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
}

TEST_F(AttachSessionTest, PaneExitedInputErrorLooksUpTheExitCode) {
  start();
  broker_->attach_with("", 0);
  terminal_.type("x");
  broker_->reply_error(broker_->expect(protocol::PaneInput::name), ErrorCode::PaneExited);
  Json get = broker_->expect(protocol::PaneGet::name);
  broker_->reply(get, pane_json(0));
  EXPECT_EQ(finish(), kExitOk);
  terminal_.wait_for("[pane exited: code 0]");
}

TEST_F(AttachSessionTest, AttachingToAnExitedPaneShowsItsScreenThenTheExit) {
  start();
  broker_->answer_setup();
  broker_->reply(broker_->expect(protocol::PaneAttach::name), attach_result("last words", 10, false));
  broker_->reply(broker_->expect(protocol::PaneGet::name), pane_json(7));
  EXPECT_EQ(finish(), kExitOk);
  const std::string shown = terminal_.wait_for("[pane exited: code 7]");
  EXPECT_NE(shown.find("last words"), std::string::npos);
}

TEST_F(AttachSessionTest, PaneClosedEndsTheSession) {
  start();
  broker_->attach_with("", 0);
  broker_->event(protocol::ev::PaneClosed::name, {{"pane_id", kPaneId}});
  EXPECT_EQ(finish(), kExitOk);
  terminal_.wait_for("[pane closed]");
}

TEST_F(AttachSessionTest, BrokerGoingAwayIsBrokerNotRunning) {
  start();
  broker_->attach_with("", 0);
  broker_->close();
  EXPECT_EQ(finish(), kExitBrokerNotRunning);
  EXPECT_NE(err_.str().find("NO_SUCH_SERVER"), std::string::npos) << err_.str();
  EXPECT_NE(err_.str().find("signaltty attach " + kPaneId), std::string::npos) << err_.str();
}

TEST_F(AttachSessionTest, AnUnknownPaneFailsBeforeAttaching) {
  start({"nope"});
  broker_->reply_error(broker_->expect(protocol::PaneGet::name), ErrorCode::NoSuchPane);
  EXPECT_EQ(finish(), kExitError);
  EXPECT_NE(err_.str().find("NO_SUCH_PANE"), std::string::npos) << err_.str();
}

TEST_F(AttachSessionTest, ARefusedAttachEndsWithTheError) {
  start();
  broker_->answer_setup();
  broker_->reply_error(broker_->expect(protocol::PaneAttach::name), ErrorCode::Internal);
  EXPECT_EQ(finish(), kExitError);
  EXPECT_NE(err_.str().find("INTERNAL"), std::string::npos) << err_.str();
}

TEST_F(AttachSessionTest, SigtermEndsTheSessionWithTheSignalStatus) {
  start();
  broker_->attach_with("ready", 5);
  terminal_.wait_for("ready");
  ::kill(::getpid(), SIGTERM);
  EXPECT_EQ(finish(), 128 + SIGTERM);
}

// On a real terminal (a pty): raw mode while attached, the size sent with
// attach and on SIGWINCH, and the settings put back afterwards.
class AttachOnAPty : public AttachSessionTest {
 protected:
  void SetUp() override { terminal_ = Terminal::pty(100, 30); }
};

TEST_F(AttachOnAPty, SendsTheTerminalSizeAndResizesOnSigwinch) {
  start();
  broker_->answer_setup();
  Json attach = broker_->expect(protocol::PaneAttach::name);
  EXPECT_EQ(attach["params"]["cols"], 100);
  EXPECT_EQ(attach["params"]["rows"], 30);
  broker_->reply(attach, attach_result("ready", 5));
  terminal_.wait_for("ready");
  winsize ws{};
  ws.ws_col = 120;
  ws.ws_row = 40;
  ASSERT_EQ(::ioctl(terminal_.screen.get(), TIOCSWINSZ, &ws), 0);
  ::kill(::getpid(), SIGWINCH);
  Json resize = broker_->expect(protocol::PaneResize::name);
  EXPECT_EQ(resize["params"], Json({{"pane_id", kPaneId}, {"cols", 120}, {"rows", 40}}));
}

TEST_F(AttachOnAPty, TheTerminalIsRawWhileAttachedAndRestoredAfter) {
  termios before{};
  ASSERT_EQ(::tcgetattr(terminal_.session_in.get(), &before), 0);
  ASSERT_TRUE(before.c_lflag & ICANON);
  start();
  broker_->attach_with("ready", 5);
  terminal_.wait_for("ready");
  termios during{};
  ASSERT_EQ(::tcgetattr(terminal_.session_in.get(), &during), 0);
  EXPECT_FALSE(during.c_lflag & (ICANON | ECHO | ISIG));
  terminal_.type("\x1c" "d");
  broker_->reply(broker_->expect(protocol::PaneDetach::name), {{"detached", true}});
  EXPECT_EQ(finish(), kExitOk);
  const std::string shown = terminal_.wait_for("[detached from");
  termios after{};
  ASSERT_EQ(::tcgetattr(terminal_.session_in.get(), &after), 0);
  EXPECT_EQ(after.c_lflag, before.c_lflag);
  EXPECT_EQ(after.c_iflag, before.c_iflag);
  EXPECT_EQ(after.c_oflag, before.c_oflag);
  EXPECT_NE(shown.find("\x1b[?1049l"), std::string::npos) << "output modes reset";
  EXPECT_LT(shown.find("\x1b[?1049l"), shown.find("[detached from")) << "reset, then the note";
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
