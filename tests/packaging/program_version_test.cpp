// tests/packaging/program_version_test.cpp: every program answers
// --version with its name and the project version, and exits 0.
// Runs in: tests only (ctest label `packaging`).
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "common/protocol/schema.hpp"
#include "common/version.hpp"

namespace signaltty::testing {
namespace {
namespace SIGNALTTY_UNITY_ID {

struct Output {
  std::string text;
  int status = -1;
};

// Runs `program --version` with stdin closed; its stdout and exit status.
Output version_of(const std::string& program) {
  const std::string command = std::string(SIGNALTTY_BIN_DIR) + "/" + program + " --version </dev/null";
  Output out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char chunk[256];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;) out.text.append(chunk, n);
  const int status = ::pclose(pipe);
  out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(ProgramVersion, EveryProgramPrintsItsNameAndTheProjectVersion) {
  for (const char* program :
       {"signaltty", "signaltty-broker", "signaltty-ptyhost", "signaltty-hookrelay"}) {
    const Output out = version_of(program);
    EXPECT_EQ(out.status, 0) << program;
    EXPECT_EQ(out.text, std::string(program) + " " + SIGNALTTY_PROJECT_VERSION + "\n") << program;
  }
}

TEST(ProgramVersion, TheVersionIsTheCMakeProjectVersionAndTheOneServerStatusReports) {
  EXPECT_EQ(kReleaseVersion, SIGNALTTY_PROJECT_VERSION);
  EXPECT_EQ(protocol::kVersion, kReleaseVersion);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::testing
