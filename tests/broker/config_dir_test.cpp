// tests/broker/config_dir_test.cpp: broker/config_dir: TOML that would nest
// tables deep enough to overflow toml++'s stack is refused before it is
// parsed (a 1 MiB agent manifest of "a.a.a…" crashed the parser), while
// dots inside strings and comments, and ordinary dotted keys, are left
// alone; bounded config dir listings and careful file reads.
#include "broker/config_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using signaltty::broker::testing::TempDir;
using ::testing::HasSubstr;

std::string dotted(std::size_t segments) {
  std::string key = "a";
  for (std::size_t i = 1; i < segments; ++i) key += ".a";
  return key;
}

TEST(ConfigToml, DeepDottedKeysAndHeadersAreRefusedBeforeParsing) {
  // 500,000 levels: what crashed toml++ (the stack), well under 1 MiB.
  const auto key = parse_toml("[agent]\nkind = \"x\"\n" + dotted(500000) + " = 1\n");
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(key.error().message, HasSubstr("line 3: more than 64 dots"));
  EXPECT_FALSE(parse_toml("[" + dotted(100000) + "]\n").ok());
  EXPECT_FALSE(parse_toml("[[" + dotted(100000) + "]]\n").ok());
  EXPECT_FALSE(parse_toml("x = { " + dotted(100000) + " = 1 }\n").ok());
  EXPECT_FALSE(parse_toml("\"q\"." + dotted(100) + " = 1\n").ok()) << "quoted segments count too";
  EXPECT_TRUE(parse_toml(dotted(64) + " = 1\n").ok()) << "64 dots, 65 levels: allowed";
  EXPECT_FALSE(parse_toml(dotted(66) + " = 1\n").ok());
}

TEST(ConfigToml, DotsInStringsAndCommentsAreNotKeys) {
  const std::string many(5000, '.');
  EXPECT_TRUE(parse_toml("regex = \"" + many + "\"\n").ok());
  EXPECT_TRUE(parse_toml("regex = '" + many + "'\n").ok());
  EXPECT_TRUE(parse_toml("text = \"\"\"\n" + many + "\n" + many + "\"\"\"\n").ok());
  EXPECT_TRUE(parse_toml("text = '''\n" + many + "\n'''\n").ok());
  EXPECT_TRUE(parse_toml("escaped = \"\\\"" + many + "\"\n").ok()) << "an escaped quote stays in";
  EXPECT_TRUE(parse_toml("# " + many + "\nx = 1 # " + many + "\n").ok());
  EXPECT_TRUE(parse_toml("version = \"0.1.0\"\nf = 1.5\nd = 1979-05-27T07:32:00.999Z\n").ok());
  EXPECT_FALSE(parse_toml("s = \"" + many + "\"\n" + dotted(70) + " = 1\n").ok())
      << "a string closes; the next line's key is counted";
}

TEST(ConfigToml, ParseErrorsSayWhere) {
  const auto bad = parse_toml("a = 1\n[b\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("line 2, column"));
}

TEST(ConfigDir, ListingKeepsTheFirstNamesAndCountsTheRest) {
  TempDir dir("signaltty-config-dir");
  for (const char* name : {"c", "a", "d", "b", ".hidden"}) std::ofstream(dir.file(name)) << "x";
  auto listing = list_config_dir(dir.path(), 2, [](const dirent& e) { return e.d_name[0] != '.'; });
  ASSERT_TRUE(listing.ok() && *listing);
  EXPECT_EQ((*listing)->names, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ((*listing)->skipped, 2u);
  EXPECT_EQ((*listing)->first_skipped, "c");
  auto missing = list_config_dir(dir.file("nope"), 2, [](const dirent&) { return true; });
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST(ConfigDir, FilesMustBeRegularBoundedAndNotSymlinks) {
  TempDir dir("signaltty-config-file");
  std::ofstream(dir.file("ok.toml")) << "x = 1\n";
  std::ofstream(dir.file("big.toml")) << std::string(100, 'x');
  ASSERT_EQ(::symlink(dir.file("ok.toml").c_str(), dir.file("link.toml").c_str()), 0);
  ::mkfifo(dir.file("fifo.toml").c_str(), 0600);
  const int fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(read_config_file(fd, "ok.toml", 64).value(), std::optional<std::string>("x = 1\n"));
  EXPECT_FALSE(read_config_file(fd, "missing.toml", 64).value().has_value());
  EXPECT_THAT(read_config_file(fd, "big.toml", 64).error().message, HasSubstr("larger than 64"));
  EXPECT_THAT(read_config_file(fd, "link.toml", 64).error().message, HasSubstr("symbolic link"));
  EXPECT_THAT(read_config_file(fd, "fifo.toml", 64).error().message, HasSubstr("not a regular"));
  ::close(fd);
}

TEST(ConfigDir, ExcerptsCutAtWholeCharacters) {
  EXPECT_EQ(excerpt("short"), "short");
  const std::string accents(100, 'a');
  EXPECT_EQ(excerpt(accents), std::string(60, 'a') + "…");
  std::string wide;
  for (int i = 0; i < 40; ++i) wide += "é";  // 2 bytes each
  EXPECT_EQ(excerpt(wide), wide.substr(0, 60) + "…");
  EXPECT_EQ(excerpt("x" + wide), "x" + wide.substr(0, 58) + "…");
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty::broker
