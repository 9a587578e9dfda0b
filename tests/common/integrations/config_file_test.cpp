// tests/common/integrations/config_file_test.cpp: the guarded edit itself:
// a held lock makes it give up within its budget, a file that changes
// while the edit is computed is left as the other writer made it, and no
// temp file is left behind.
#include "common/integrations/config_file.hpp"

#include <fcntl.h>
#include <sys/file.h>

#include <gtest/gtest.h>

#include <chrono>

#include "common/unique_fd.hpp"
#include "tests/common/integrations/temp_home.hpp"

namespace signaltty::integrations {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::entries;
using testing::slurp;
using testing::spit;
using testing::stat_of;
using testing::TempHome;

FileEditor write_text(std::string text) {
  return [text](const std::optional<std::string>&) -> Result<FileEdit> {
    return FileEdit{FileChange::Write, text};
  };
}

TEST(ConfigFile, TheLockFileSitsBesideTheFileAndIsPrivate) {
  TempHome home;
  const std::string file = home / "cfg/settings.json";
  ASSERT_TRUE(edit_config_file(file, write_text("{}\n")).ok());
  EXPECT_EQ(lock_file_path(file), home / "cfg/.settings.json.signaltty.lock");
  EXPECT_EQ(stat_of(lock_file_path(file)).st_mode & 07777, 0600u);
  EXPECT_EQ(entries(home / "cfg"), (std::set<std::string>{"settings.json", ".settings.json.signaltty.lock"}));
}

TEST(ConfigFile, AHeldLockMakesTheEditGiveUpQuicklyWithoutWriting) {
  TempHome home;
  const std::string file = home / "settings.json";
  spit(file, "{}\n");
  UniqueFd holder(::open(lock_file_path(file).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  ASSERT_TRUE(holder.valid());
  ASSERT_EQ(::flock(holder.get(), LOCK_EX), 0);
  const auto start = std::chrono::steady_clock::now();
  auto done = edit_config_file(file, write_text("{\"x\": 1}\n"));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().code, ErrorCode::Timeout);
  EXPECT_LT(took, std::chrono::seconds(2));
  EXPECT_EQ(slurp(file), "{}\n");
  holder.reset();
  EXPECT_TRUE(edit_config_file(file, write_text("{\"x\": 1}\n")).ok());
}

TEST(ConfigFile, AFileChangedDuringTheEditIsLeftToTheOtherWriter) {
  TempHome home;
  const std::string file = home / "settings.json";
  spit(file, "{}\n");
  auto done = edit_config_file(file, [&](const std::optional<std::string>&) -> Result<FileEdit> {
    spit(file, "{\"theirs\": true}\n");
    return FileEdit{FileChange::Write, "{\"ours\": true}\n"};
  });
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.error().message.find("changed during setup; retry"), std::string::npos);
  EXPECT_EQ(slurp(file), "{\"theirs\": true}\n");
  EXPECT_EQ(entries(home.path()), (std::set<std::string>{"settings.json", ".settings.json.signaltty.lock"}));
}

TEST(ConfigFile, AFileCreatedDuringTheEditIsLeftToTheOtherWriter) {
  TempHome home;
  const std::string file = home / "settings.json";
  auto done = edit_config_file(file, [&](const std::optional<std::string>& current) -> Result<FileEdit> {
    EXPECT_FALSE(current.has_value());
    spit(file, "{\"theirs\": true}\n");
    return FileEdit{FileChange::Write, "{}\n"};
  });
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(slurp(file), "{\"theirs\": true}\n");
}

TEST(ConfigFile, KeepingOrWritingTheSameTextDoesNotTouchTheFile) {
  TempHome home;
  const std::string file = home / "settings.json";
  spit(file, "{}\n");
  const auto before = stat_of(file);
  auto same = edit_config_file(file, write_text("{}\n"));
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->changed);
  const auto after = stat_of(file);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

TEST(ConfigFile, TheEditorsErrorWritesNothing) {
  TempHome home;
  const std::string file = home / "settings.json";
  spit(file, "keep me");
  auto done = edit_config_file(file, [](const std::optional<std::string>&) -> Result<FileEdit> {
    return Error{ErrorCode::IoError, "refused"};
  });
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(slurp(file), "keep me");
}

TEST(ConfigFile, ALockPathThatIsASymlinkIsRefused) {
  TempHome home;
  const std::string file = home / "settings.json";
  std::filesystem::create_symlink(home / "elsewhere", lock_file_path(file));
  auto done = edit_config_file(file, write_text("{}\n"));
  ASSERT_FALSE(done.ok());
  EXPECT_FALSE(std::filesystem::exists(home / "elsewhere"));
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::integrations
