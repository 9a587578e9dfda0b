// tests/cli/socket_path_test.cpp: --socket, then SIGNALTTY_SOCKET, then
// $XDG_RUNTIME_DIR/signaltty/, then /tmp/signaltty-$UID/ (docs/rules.md, Paths and environment).
#include "cli/socket_path.hpp"

#include <gtest/gtest.h>

#include <map>

#include "tests/cli/cli_runner.hpp"

namespace signaltty::cli {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::env_of;

TEST(SocketPath, FlagWinsOverEverything) {
  auto env = env_of({{"SIGNALTTY_SOCKET", "/env.sock"}, {"XDG_RUNTIME_DIR", "/run/user/7"}});
  EXPECT_EQ(resolve_socket_path("/flag.sock", env, 7), "/flag.sock");
}

TEST(SocketPath, SignalttySocketEnvWinsOverRuntimeDir) {
  auto env = env_of({{"SIGNALTTY_SOCKET", "/env.sock"}, {"XDG_RUNTIME_DIR", "/run/user/7"}});
  EXPECT_EQ(resolve_socket_path("", env, 7), "/env.sock");
}

TEST(SocketPath, RuntimeDirHoldsTheDefaultSocket) {
  auto env = env_of({{"XDG_RUNTIME_DIR", "/run/user/7"}});
  EXPECT_EQ(resolve_socket_path("", env, 7), "/run/user/7/signaltty/signaltty.sock");
}

TEST(SocketPath, WithoutRuntimeDirFallsBackToTmpPerUid) {
  EXPECT_EQ(resolve_socket_path("", env_of({}), 1234), "/tmp/signaltty-1234/signaltty.sock");
}

TEST(SocketPath, EmptyVariablesCountAsUnset) {
  auto env = env_of({{"SIGNALTTY_SOCKET", ""}, {"XDG_RUNTIME_DIR", ""}});
  EXPECT_EQ(resolve_socket_path("", env, 5), "/tmp/signaltty-5/signaltty.sock");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::cli
