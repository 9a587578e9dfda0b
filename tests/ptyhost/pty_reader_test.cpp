// tests/ptyhost/pty_reader_test.cpp: PtyReader (ptyhost/pty_reader.hpp) on
// a real PTY pair: a keystroke is read by the loop, a burst by the thread,
// and the reads come back to the loop after it; every byte reaches the loop
// in order and then EOF, across hand-offs; a loop that takes nothing stops
// the reader and, behind it, the writer; stop() ends a reader waiting for
// the reads, for output or for room.
// Runs in: the ptyhost process tests.
#include "ptyhost/pty_reader.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
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

  void write(std::string_view bytes) {
    for (std::size_t off = 0; off < bytes.size(); off += 1024) {
      const std::size_t n = std::min<std::size_t>(1024, bytes.size() - off);
      ASSERT_EQ(::write(pty.slave.get(), bytes.data() + off, n), static_cast<ssize_t>(n));
    }
  }

  // Writes `bytes` to the slave a KiB at a time (an unread raw PTY takes
  // about 20 KiB) and waits until the master's line discipline holds a full
  // buffer or all of them: the loop's next wakeup then reads all it holds.
  void write_and_settle(std::string_view bytes) {
    write(bytes);
    ASSERT_TRUE(wait_for([&] {
      int queued = 0;
      ::ioctl(pty.master.get(), FIONREAD, &queued);
      return static_cast<std::size_t>(queued) >= std::min(bytes.size(), kBulkBytes);
    }));
  }

  // Runs the loop until `pred` holds, at most 10 s.
  template <class Pred>
  bool run_until(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!pred()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      io.restart();
      io.run_for(2ms);
    }
    return true;
  }
};

// The reader waits for room once less than a read's worth is left.
bool ring_full(const PtyReader& reader) {
  return reader.peek(kReadRingBytes).size() > kReadRingBytes - kReadRoomMin;
}

// The loop's side as the pane host runs it: take everything, then wait
// again, until EOF (which stops the loop).
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

TEST(PtyReader, AKeystrokeIsReadByTheLoopABurstByTheThreadAndTheReadsComeBack) {
  Rig rig;
  PtyReader& reader = rig.reader;
  std::string got;
  take_until_eof(rig.io, reader, got);

  rig.write_and_settle("k");
  ASSERT_TRUE(rig.run_until([&] { return got == "k"; }));
  EXPECT_FALSE(reader.thread_reads());
  EXPECT_EQ(reader.hand_offs(), 0u);

  const std::string burst = pattern(12u << 10);
  rig.write_and_settle(burst);
  ASSERT_TRUE(rig.run_until([&] { return reader.hand_offs() == 1; }));
  ASSERT_TRUE(rig.run_until([&] { return got.size() == 1 + burst.size(); }));
  // Quiet, with every byte taken: the reads come back.
  ASSERT_TRUE(rig.run_until([&] { return !reader.thread_reads(); }));

  rig.write_and_settle("j");
  ASSERT_TRUE(rig.run_until([&] { return got.size() == 2 + burst.size(); }));
  EXPECT_EQ(reader.hand_offs(), 1u);
  EXPECT_TRUE(got == "k" + burst + "j") << "the bytes differ";
}

TEST(PtyReader, BytesKeepTheirOrderAcrossHandOffs) {
  Rig rig;
  PtyReader& reader = rig.reader;
  std::string got, sent;
  take_until_eof(rig.io, reader, got);
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; ++round) {
    // A burst the loop hands to the thread, bytes the thread reads, then a
    // drop after the reads came back.
    const std::string burst = pattern(12u << 10).substr(static_cast<std::size_t>(round));
    rig.write_and_settle(burst);
    sent += burst;
    ASSERT_TRUE(rig.run_until([&] { return reader.hand_offs() == static_cast<unsigned>(round + 1); }));
    const std::string more = pattern(3000 + static_cast<std::size_t>(round));
    rig.write(more);  // the thread reads them as they come
    sent += more;
    ASSERT_TRUE(rig.run_until([&] { return got.size() == sent.size() && !reader.thread_reads(); }))
        << "round " << round << ": got " << got.size() << " of " << sent.size();
    const std::string drop = "drop " + std::to_string(round) + "\n";
    rig.write_and_settle(drop);
    sent += drop;
    ASSERT_TRUE(rig.run_until([&] { return got.size() == sent.size(); }));
  }
  EXPECT_EQ(reader.hand_offs(), static_cast<unsigned>(kRounds));
  ::close(rig.pty.slave.release());
  ASSERT_TRUE(rig.run_until([&] { return reader.at_eof(); }));
  EXPECT_TRUE(got == sent) << "the bytes differ";
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
  EXPECT_GE(reader.hand_offs(), 1u);
  EXPECT_EQ(got.size(), sent.size());
  EXPECT_TRUE(got == sent) << "the bytes differ";
}

constexpr std::size_t kFirstBurst = 12u << 10;

// Hands the reads to the thread with a burst, and leaves the loop waiting
// for nothing: the thread alone reads from here on, and keeps the reads
// while the burst stays in the ring untaken.
void hand_to_thread(Rig& rig) {
  rig.write_and_settle(pattern(kFirstBurst));
  bool called = false;
  rig.reader.when_ready([&] { called = true; });
  ASSERT_TRUE(rig.run_until([&] { return called; }));
  ASSERT_TRUE(rig.reader.thread_reads());
  ASSERT_TRUE(wait_for([&] { return rig.reader.peek(kReadRingBytes).size() == kFirstBurst; }));
}

TEST(PtyReader, ALoopThatTakesNothingHoldsTheWriterBackAndLosesNothing) {
  Rig rig;
  PtyReader& reader = rig.reader;
  hand_to_thread(rig);
  const std::string body = pattern(2u << 20);
  Writer writer(rig.pty.slave.get(), body, /*close_after=*/false);
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
  EXPECT_LT(before, body.size() / 2);
  // Taking bytes lets everything through, in order.
  const std::string sent = pattern(kFirstBurst) + body;
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

TEST(PtyReader, StopEndsAReaderWaitingForTheReadsForOutputOrForRoom) {
  {
    Rig idle;
    idle.reader.stop();  // waiting for the reads: the loop has them
    EXPECT_FALSE(idle.reader.running());
  }
  {
    Rig polling;
    hand_to_thread(polling);
    polling.reader.stop();  // in poll(2), inside kHandBackMs or after it
    EXPECT_FALSE(polling.reader.running());
  }
  Rig rig;
  PtyReader& reader = rig.reader;
  hand_to_thread(rig);
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
