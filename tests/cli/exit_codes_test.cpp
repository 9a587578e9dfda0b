// tests/cli/exit_codes_test.cpp: errors map onto the documented exit
// statuses and print as one stderr line.
#include "cli/exit_codes.hpp"

#include <gtest/gtest.h>

#include <set>

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(ExitCodes, StatusesAreDistinct) {
  std::set<int> codes{kExitOk, kExitError, kExitUsage, kExitBrokerNotRunning,
                      kExitReplayIncomplete, kExitUntrustedSocket};
  EXPECT_EQ(codes.size(), 6u);
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitUsage, 2);
}

TEST(ExitCodes, BrokerNotRunningHasItsOwnStatus) {
  EXPECT_EQ(exit_code_for(Error{ErrorCode::NoSuchServer, "x"}), kExitBrokerNotRunning);
}

TEST(ExitCodes, EveryOtherErrorCodeIsStatusOne) {
  for (const auto& [code, name] : kErrorCodeNames) {
    if (code == ErrorCode::NoSuchServer) continue;
    EXPECT_EQ(exit_code_for(Error{code, "x"}), kExitError) << name;
  }
}

TEST(ExitCodes, RefusingTheSocketHasItsOwnStatus) {
  EXPECT_EQ(exit_code_for(untrusted_socket("/tmp/x/s.sock", "not ours")), kExitUntrustedSocket);
}

TEST(ExitCodes, AForbiddenReplyFromTheBrokerIsStillStatusOne) {
  EXPECT_EQ(exit_code_for(Error{ErrorCode::Forbidden, "not allowed"}), kExitError);
}

TEST(ExitCodes, ErrorLineNamesCodeAndMessage) {
  EXPECT_EQ(error_line(Error{ErrorCode::NoSuchWorkspace, "no workspace 'x'"}),
            "error: NO_SUCH_WORKSPACE: no workspace 'x'");
}

TEST(ExitCodes, ErrorLineStaysOneLine) {
  EXPECT_EQ(error_line(Error{ErrorCode::Internal, "a\nb\tc"}), "error: INTERNAL: a b c");
}

TEST(ExitCodes, ErrorLineEscapesControlSequences) {
  EXPECT_EQ(error_line(Error{ErrorCode::Internal, "a\x1b]0;t\x07" "b\xc2\x9b" "c"}),
            "error: INTERNAL: a\\x1b]0;t\\x07b\\u009bc");
}

TEST(ExitCodes, FooterListsEveryStatus) {
  const std::string footer = exit_status_footer();
  for (int code : {kExitOk, kExitError, kExitUsage, kExitBrokerNotRunning, kExitReplayIncomplete,
                   kExitUntrustedSocket})
    EXPECT_NE(footer.find("  " + std::to_string(code) + "  "), std::string::npos) << code;
  EXPECT_NE(footer.find("signaltty-broker"), std::string::npos);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
