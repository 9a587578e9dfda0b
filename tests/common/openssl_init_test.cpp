// tests/common/openssl_init_test.cpp: HMAC-SHA256 and the known-answer
// tests the broker runs before it serves (common/openssl_init.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/openssl_init.hpp"

namespace signaltty {
namespace {
namespace SIGNALTTY_UNITY_ID {

std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

TEST(CryptoSelfTest, PassesOnThisLibcrypto) { EXPECT_TRUE(crypto_self_test().ok()); }

// Vectors other than the self-test's own, so a self-test that compared a
// function with itself would not make these pass.
TEST(HmacSha256, MatchesRfc4231) {
  // Case 1: a 20-byte key of 0x0b.
  EXPECT_EQ(hmac_sha256_hex(std::vector<std::uint8_t>(20, 0x0b), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  // Case 6: a key longer than the block, hashed first.
  EXPECT_EQ(hmac_sha256_hex(std::vector<std::uint8_t>(131, 0xaa),
                            "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256, AnEmptyKeyOrMessageIsStillAMac) {
  const std::string mac = hmac_sha256_hex({}, "");
  EXPECT_EQ(mac, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
  EXPECT_NE(hmac_sha256_hex(bytes_of("k"), ""), mac);
}

}  // namespace SIGNALTTY_UNITY_ID
using namespace SIGNALTTY_UNITY_ID;
}  // namespace
}  // namespace signaltty
