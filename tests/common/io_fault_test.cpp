// tests/common/io_fault_test.cpp: the I/O fault seam: a strict parser, the
// file-name targets and the once / from-N-on counts.
#include "common/io_fault.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include "common/unique_fd.hpp"

namespace signaltty::io_fault {
namespace {

class IoFault : public ::testing::Test {
 protected:
  void TearDown() override { disarm(); }
  // An unnamed file: the calls succeed on it unless the fault fires.
  UniqueFd null_{::open(::testing::TempDir().c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)};
};

TEST_F(IoFault, ParsesEveryFieldStrictly) {
  auto f = parse("snapshot:rename:2:ENOSPC:from");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->target, Target::Snapshot);
  EXPECT_EQ(f->op, Op::Rename);
  EXPECT_EQ(f->nth, 2u);
  EXPECT_EQ(f->error, ENOSPC);
  EXPECT_EQ(f->mode, Mode::FromNOn);
  for (const char* bad :
       {"", "journal:fsync:3:EIO", "journal:fsync:3:EIO:once:x", "Journal:fsync:3:EIO:once",
        "journal:sync:3:EIO:once", "journal:fsync:0:EIO:once", "journal:fsync:-1:EIO:once",
        "journal:fsync:3x:EIO:once", "journal:fsync:3:EPERM:once", "journal:fsync:3:EIO:always"}) {
    auto r = parse(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, ErrorCode::BadParams);
    }
  }
}

TEST_F(IoFault, TargetsAreTheDurableFilesByName) {
  EXPECT_EQ(target_of("/s/audit.jsonl"), Target::Journal);
  EXPECT_EQ(target_of("/s/audit.jsonl.1"), Target::Journal);
  EXPECT_EQ(target_of("audit-retention.json"), Target::Journal);
  EXPECT_EQ(target_of("/s/event-sequence.json"), Target::Sequence);
  EXPECT_EQ(target_of("/s/snapshot.json"), Target::Snapshot);
  EXPECT_FALSE(target_of("/s/snapshots/snapshot-20260101T000000.json").has_value());
  EXPECT_FALSE(target_of("/s/snapshot.json.abcd1234.tmp").has_value());
}

TEST_F(IoFault, OnceFailsOnlyTheNthCallOfItsOpOnItsFiles) {
  arm({Target::Journal, Op::Fsync, 2, EIO, Mode::Once});
  ASSERT_TRUE(null_);
  EXPECT_EQ(fdatasync(null_.get(), "/s/snapshot.json"), 0) << "other files are not counted";
  EXPECT_EQ(write(null_.get(), "x", 1, "/s/audit.jsonl"), 1) << "other ops are not counted";
  EXPECT_EQ(fsync(null_.get(), "/s/audit.jsonl"), 0);
  errno = 0;
  EXPECT_EQ(fdatasync(null_.get(), "/s/audit-retention.json"), -1);
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(fsync(null_.get(), "/s/audit.jsonl"), 0);
}

TEST_F(IoFault, FromNOnFailsEveryLaterCall) {
  ASSERT_TRUE(null_);
  arm({Target::Sequence, Op::Write, 2, ENOSPC, Mode::FromNOn});
  EXPECT_EQ(write(null_.get(), "x", 1, "/s/event-sequence.json"), 1);
  for (int i = 0; i < 3; ++i) {
    errno = 0;
    EXPECT_EQ(write(null_.get(), "x", 1, "/s/event-sequence.json"), -1);
    EXPECT_EQ(errno, ENOSPC);
  }
  disarm();
  EXPECT_EQ(write(null_.get(), "x", 1, "/s/event-sequence.json"), 1);
}

}  // namespace
}  // namespace signaltty::io_fault
