// tests/common/check_test.cpp: check_invariant() reports a broken invariant
// loudly, says whether it held, and aborts only when asked.
#include "common/check.hpp"

#include <gtest/gtest.h>

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

TEST(CheckInvariant, HoldingResultIsSilentAndTrue) {
  testing::internal::CaptureStderr();
  EXPECT_TRUE(check_invariant(Status{}, "nothing wrong"));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(CheckInvariant, FailedResultLogsWhatAndErrorAndReturnsFalse) {
  testing::internal::CaptureStderr();
  const Status broken = Error{ErrorCode::IoError, "disk full"};
  EXPECT_FALSE(check_invariant(broken, "snapshot save"));
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("INVARIANT BROKEN"), std::string::npos) << out;
  EXPECT_NE(out.find("snapshot save"), std::string::npos) << out;
  EXPECT_NE(out.find("disk full"), std::string::npos) << out;
  EXPECT_NE(out.find("check_test.cpp"), std::string::npos) << out;
}

TEST(CheckInvariant, FalseConditionLogsAndReturnsFalse) {
  testing::internal::CaptureStderr();
  EXPECT_FALSE(check_invariant(false, "fd open"));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("fd open"), std::string::npos);
}

TEST(CheckInvariantDeathTest, AbortOnBreakStopsTheProcess) {
  EXPECT_DEATH(check_invariant(Result<int>(Error{ErrorCode::Internal, "gone"}), "must hold",
                               OnBreak::Abort),
               "must hold");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
