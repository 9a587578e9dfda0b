// tests/broker/pane_tokens_test.cpp: per-pane tokens (broker/pane_tokens.hpp):
// a token verifies only for the pane it was made for, under the key it was
// made with; any changed byte fails; the key file is created once, 0600,
// and kept across starts; a damaged one is replaced.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "broker/pane_tokens.hpp"
#include "common/fs.hpp"
#include "common/ids.hpp"
#include "tests/broker/temp_dir.hpp"

namespace signaltty::broker {
namespace {
namespace SIGNALTTY_UNITY_ID {

using testing::TempDir;

TEST(PaneTokens, ATokenVerifiesForItsOwnPaneOnly) {
  TempDir dir("signaltty-tokens");
  auto tokens = PaneTokens::load_or_create(dir.path());
  ASSERT_TRUE(tokens.ok());
  const std::string a = new_id("pane"), b = new_id("pane");
  const std::string token = tokens->token_for(a);
  EXPECT_EQ(tokens->pane_of(token), a);
  EXPECT_NE(tokens->token_for(b), token);
  EXPECT_EQ(tokens->pane_of(tokens->token_for(b)), b);
  // Any changed character, a swapped pane id, or a cut token: refused.
  for (std::size_t i = 0; i < token.size(); ++i) {
    std::string bad = token;
    bad[i] = bad[i] == 'a' ? 'b' : 'a';
    EXPECT_FALSE(tokens->pane_of(bad).has_value()) << i;
  }
  std::string swapped = token;
  swapped.replace(swapped.find(a), a.size(), b);
  EXPECT_FALSE(tokens->pane_of(swapped).has_value());
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, token.size() - 1})
    EXPECT_FALSE(tokens->pane_of(token.substr(0, n)).has_value());
  EXPECT_FALSE(tokens->pane_of(token + "0").has_value());
  EXPECT_FALSE(tokens->pane_of("stp1.ws_00000000000000000000000000000000." + std::string(64, '0'))
                   .has_value());
}

TEST(PaneTokens, TheKeyIsMadeOncePrivateAndKeptAcrossStarts) {
  TempDir dir("signaltty-tokens");
  auto first = PaneTokens::load_or_create(dir.path());
  ASSERT_TRUE(first.ok());
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("pane-token.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, static_cast<off_t>(PaneTokens::kKeyBytes));
  auto second = PaneTokens::load_or_create(dir.path());
  ASSERT_TRUE(second.ok());
  const std::string pane = new_id("pane");
  EXPECT_EQ(second->pane_of(first->token_for(pane)), pane);  // a restart keeps every token valid

  // Another state dir, another key: its tokens mean nothing here.
  TempDir other("signaltty-tokens");
  auto foreign = PaneTokens::load_or_create(other.path());
  ASSERT_TRUE(foreign.ok());
  EXPECT_FALSE(first->pane_of(foreign->token_for(pane)).has_value());
}

TEST(PaneTokens, ADamagedKeyFileIsReplaced) {
  TempDir dir("signaltty-tokens");
  { std::ofstream(dir.file("pane-token.key")) << "short"; }
  auto tokens = PaneTokens::load_or_create(dir.path());
  ASSERT_TRUE(tokens.ok());
  auto reread = fs::read_file(dir.file("pane-token.key"), 1024);
  ASSERT_TRUE(reread.ok());
  EXPECT_EQ(reread->size(), PaneTokens::kKeyBytes);
  const std::string pane = new_id("pane");
  EXPECT_EQ(PaneTokens::load_or_create(dir.path())->pane_of(tokens->token_for(pane)), pane);
}

}  // namespace SIGNALTTY_UNITY_ID
}  // namespace
}  // namespace signaltty::broker
