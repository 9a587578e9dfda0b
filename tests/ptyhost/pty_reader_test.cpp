// tests/ptyhost/pty_reader_test.cpp: PtyReader (ptyhost/pty_reader.hpp) on
// a real PTY pair: every byte reaches the loop in order and then EOF; a loop
// that takes nothing stops the reader and, behind it, the writer; stop()
// ends a reader waiting for output or for room.
// Runs in: the ptyhost process tests.
#include "ptyhost/pty_reader.hpp"

#include <fcntl.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <boost/asio/io_context.hpp>

#include "common/unique_fd.hpp"

namespace signaltty::ptyhost {
namespace {
namespace SIGNALTTY_UNITY_ID {

using namespace std::chrono_literals;

struct PtyPair {
  UniqueFd master;
  UniqueFd slave;
};

// Raw, so the slave's bytes reach the master unchanged.
PtyPair open_raw_pty() {
  int master = -1, slave = -1;
  EXPECT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  termios tio{};
  ::tcgetattr(slave, &tio);
  ::cfmakeraw(&tio);
  ::tcsetattr(slave, TCSANOW, &tio);
  ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
  return {UniqueFd(master), UniqueFd(slave)};
}

std::string pattern(std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<char>('a' + (i * 7 + i / 4099) % 26);
  return out;
}

// Writes everything to the slave from a thread of its own, counting what
// the kernel took; closes the slave at the end when asked.
class Writer {
 public:
  Writer(int slave, std::string bytes, bool close_after)
      : thread_([this, slave, bytes = std::move(bytes), close_after] {
          std::size_t off = 0;
          while (off < bytes.size()) {
            const ssize_t n =
                ::write(slave, bytes.data() + off, std::min<std::size_t>(8192, bytes.size() - off));
            if (n <= 0) break;
            off += static_cast<std::size_t>(n);
            written_.store(off);
          }
          if (close_after) ::close(slave);
          done_.store(true);
        }) {}
  ~Writer() { thread_.join(); }
  std::size_t written() const { return written_.load(); }
  bool done() const { return done_.load(); }

 private:
  std::atomic<std::size_t> written_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

template <class Pred>
bool wait_for(Pred pred, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// A reader started on a fresh raw PTY, its loop not running yet.
struct Rig {
  PtyPair pty = open_raw_pty();
  boost::asio::io_context io;
  PtyReader reader{io};
  Rig() { EXPECT_TRUE(reader.start(pty.master.get()).ok()); }
};

// The reader waits for room once less than a read's worth is left.
bool ring_full(const PtyReader& reader) {
  return reader.peek(kReadRingBytes).size() > kReadRingBytes - kReadRoomMin;
}

// The loop's side as the pane host runs it: take everything, then wait.
void take_until_eof(boost::asio::io_context& io, PtyReader& reader, std::string& got) {
  reader.when_ready([&] {
    for (auto bytes = reader.peek(64u << 10); !bytes.empty(); bytes = reader.peek(64u << 10)) {
      got.append(bytes);
      reader.consume(bytes.size());
    }
    if (reader.at_eof()) return io.stop();
    take_until_eof(io, reader, got);
  });
}

TEST(PtyReader, EveryByteReachesTheLoopInOrderThenEof) {
  Rig rig;
  PtyReader& reader = rig.reader;
  const std::string sent = pattern(6u << 20);  // many times round the ring
  Writer writer(rig.pty.slave.release(), sent, /*close_after=*/true);
  std::string got;
  take_until_eof(rig.io, reader, got);
  rig.io.run_for(60s);
  ASSERT_TRUE(reader.at_eof()) << "got " << got.size() << " of " << sent.size();
  EXPECT_EQ(got.size(), sent.size());
  EXPECT_TRUE(got == sent) << "the bytes differ";
}

TEST(PtyReader, ALoopThatTakesNothingHoldsTheWriterBackAndLosesNothing) {
  Rig rig;
  PtyReader& reader = rig.reader;
  const std::string sent = pattern(2u << 20);
  Writer writer(rig.pty.slave.get(), sent, /*close_after=*/false);
  // The ring fills up to its last page, and stays there.
  ASSERT_TRUE(wait_for([&] { return ring_full(reader); }))
      << "ring holds " << reader.peek(kReadRingBytes).size();
  // Then the kernel's own PTY queue fills behind it and the writer blocks,
  // well short of its 2 MiB.
  std::size_t before = 0;
  ASSERT_TRUE(wait_for([&] {
    before = writer.written();
    std::this_thread::sleep_for(50ms);
    return writer.written() == before;
  }));
  EXPECT_FALSE(writer.done());
  EXPECT_LT(before, sent.size() / 2);
  // Taking bytes lets everything through, in order.
  std::string got;
  while (got.size() < sent.size()) {
    ASSERT_TRUE(wait_for([&] { return !reader.peek(1).empty(); })) << "stuck at " << got.size();
    const std::string_view bytes = reader.peek(4096);
    got.append(bytes);
    reader.consume(bytes.size());
  }
  EXPECT_TRUE(writer.done() || wait_for([&] { return writer.done(); }));
  EXPECT_TRUE(got == sent) << "the bytes differ";
}

TEST(PtyReader, StopEndsAReaderWaitingForOutputOrForRoom) {
  {
    Rig idle;
    idle.reader.stop();  // in poll(2): nothing was written
    EXPECT_FALSE(idle.reader.running());
  }
  Rig rig;
  PtyReader& reader = rig.reader;
  Writer writer(rig.pty.slave.get(), pattern(1u << 20), /*close_after=*/false);
  ASSERT_TRUE(wait_for([&] { return ring_full(reader); }));
  reader.stop();  // waiting for room
  EXPECT_FALSE(reader.running());
  // What it read before stays readable.
  EXPECT_TRUE(ring_full(reader));
  // The writer is still blocked on the full PTY: let it go.
  ::close(rig.pty.master.release());
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::ptyhost
