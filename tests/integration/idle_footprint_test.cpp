// tests/integration/idle_footprint_test.cpp: a pane that went quiet gives
// back what its bursts left resident, and its ptyhost runs without glibc's
// per-thread malloc cache (ptyhost/pane_host.hpp,
// kQuietGiveBack; ptyhost/pty_reader.hpp, kHandBackMs;
// common/page_buffer.hpp): the pages of its PTY read-ahead ring and broker
// read buffer go back to the kernel, and come back when output does.
// Runs in: the integration test binary.
#include <fstream>
#include <sstream>

#include "tests/integration/pane_support.hpp"

namespace signaltty::itest {
namespace {
namespace SIGNALTTY_UNITY_ID {

using IdleFootprint = PaneTest;

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
// Resident KiB of the ptyhost's read buffers: its anonymous mappings of
// the 256 KiB ring, the 64 KiB broker buffer, or both (the kernel merges
// adjacent ones). Its other anonymous mappings (the tail of .bss, the
// reader thread's stack, malloc's own maps, which carry a header page)
// have other sizes.
std::size_t read_buffers_resident_kib(pid_t ptyhost) {
  std::istringstream smaps(proc_file(ptyhost, "smaps"));
  std::size_t total = 0;
  bool counting = false;
  std::string line;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      std::string perms, offset, dev, inode, path;
      head >> perms >> offset >> dev >> inode >> path;
      const unsigned long size = hi - lo;
      counting = path.empty() && (size == 64u << 10 || size == 256u << 10 || size == 320u << 10);
      continue;
    }
    if (counting && line.starts_with("Rss:")) total += std::stoul(line.substr(4));
  }
  return total;
}
#endif

TEST_F(IdleFootprint, AQuietPaneGivesBackItsReadBuffersAndTakesThemAgainForOutput) {
  start();
  Client client = connect();
  // Output flows until the test lets the pane go quiet: the buffers are
  // sampled while it is certainly busy.
  const std::string stop = dirs_.home() + "/stop";
  Json pane = spawn(client, make_workspace(client)["id"],
                    {"/bin/sh", "-c",
                     "while [ ! -e " + stop + " ]; do head -c 262144 /dev/zero | tr '\\0' x; done;"
                     " echo; echo went-quiet; read line; head -c 262144 /dev/zero | tr '\\0' y;"
                     " echo; echo busy-again; exec sleep 1000"});
  const std::string id = pane["id"];
  const pid_t ptyhost = pane["ptyhost_pid"].get<pid_t>();
  wait_output(client, id, "xxxxxxxx");
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizers' allocators map regions of the same sizes of their own,
  // so the buffers cannot be told apart here; the release build checks
  // their residency, and this build that they still work afterwards.
  (void)ptyhost;
  { std::ofstream(stop).put('\n'); }
  wait_output(client, id, "went-quiet");
#else
  std::size_t busy = 0;
  // The reader goes round its ring under steady output, touching all of it.
  ASSERT_TRUE(wait_until([&] { return (busy = read_buffers_resident_kib(ptyhost)) >= 32; }))
      << "busy pane's read buffers hold " << busy << " KiB";

  { std::ofstream(stop).put('\n'); }
  wait_output(client, id, "went-quiet");
  std::size_t quiet = busy;
  EXPECT_TRUE(wait_until([&] { return (quiet = read_buffers_resident_kib(ptyhost)) == 0; },
                         deadline_after()))
      << "still " << quiet << " KiB resident after the pane went quiet";
#endif

  // The buffers are usable as before: the next burst arrives whole.
  input(client, id, "\n");
  wait_output(client, id, "busy-again");
  const Json tail = client.call("pane.read", {{"pane_id", id}, {"lines", 3}});
  EXPECT_NE(tail.dump().find("yyyyyyyy"), std::string::npos) << tail.dump();
}

// broker/launcher_process.cpp, kPtyhostEnvMalloc: the ptyhost runs without
// glibc's per-thread cache; the program in the pane is not touched by it.
// Until the program's exec, /proc shows the environment its ptyhost forked
// it with, so the test reads it once `sleep` runs.
TEST_F(IdleFootprint, OnlyThePtyhostRunsWithoutGlibcsPerThreadMallocCache) {
  start();
  Client client = connect();
  Json pane = spawn(client, make_workspace(client)["id"], {"/bin/sh", "-c", "exec sleep 1000"});
  const pid_t ptyhost = pane["ptyhost_pid"].get<pid_t>();
  const pid_t program = pane["pid"].get<pid_t>();
  const std::string ptyhost_env = proc_file(ptyhost, "environ");
  EXPECT_NE(ptyhost_env.find(std::string("GLIBC_TUNABLES=glibc.malloc.tcache_count=0") + '\0'),
            std::string::npos);
  ASSERT_TRUE(wait_until([&] { return proc_file(program, "cmdline").rfind("sleep", 0) == 0; }))
      << "the pane's program never ran sleep";
  const std::string program_env = proc_file(program, "environ");
  ASSERT_FALSE(program_env.empty());
  EXPECT_EQ(program_env.find("GLIBC_TUNABLES"), std::string::npos);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::itest
