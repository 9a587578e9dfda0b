// broker/pane_tokens.cpp: per-pane tokens as HMAC-SHA256 of the pane id.
// Runs in: broker (io thread).
#include "broker/pane_tokens.hpp"

#include <openssl/crypto.h>

#include "common/fs.hpp"
#include "common/ids.hpp"
#include "common/log.hpp"
#include "common/openssl_init.hpp"

namespace signaltty::broker {
namespace {

constexpr std::string_view kPrefix = "stp1.";
constexpr std::string_view kKeyFile = "pane-token.key";
constexpr std::size_t kMacHexDigits = 64;

}  // namespace

Result<PaneTokens> PaneTokens::load_or_create(const std::string& state_dir) {
  // Before any token is minted or checked (openssl_init.hpp).
  SIGNALTTY_RETURN_IF_ERROR(crypto_self_test());
  const std::string path = fs::join(state_dir, kKeyFile);
  Key key{};
  if (fs::exists(path)) {
    auto contents = fs::read_file(path, kKeyBytes + 1);
    if (contents.ok() && contents->size() == kKeyBytes) {
      std::copy(contents->begin(), contents->end(), key.begin());
      return PaneTokens(key);
    }
    log::warn(path + " is not a " + std::to_string(kKeyBytes) +
              "-byte key; making a new one (running panes' tokens stop working)");
  }
  if (!fill_random(key))
    return Error{ErrorCode::IoError, "no random bytes for the pane token key"};
  std::string_view bytes(reinterpret_cast<const char*>(key.data()), key.size());
  SIGNALTTY_RETURN_IF_ERROR(fs::write_file_durable(path, bytes, 0600));
  return PaneTokens(key);
}

std::string PaneTokens::mac_hex(std::string_view pane_id) const {
  return hmac_sha256_hex(key_, pane_id);
}

std::string PaneTokens::token_for(std::string_view pane_id) const {
  std::string out(kPrefix);
  out += pane_id;
  out.push_back('.');
  out += mac_hex(pane_id);
  return out;
}

std::optional<std::string> PaneTokens::pane_of(std::string_view token) const {
  if (!token.starts_with(kPrefix)) return std::nullopt;
  token.remove_prefix(kPrefix.size());
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view pane_id = token.substr(0, dot);
  const std::string_view mac = token.substr(dot + 1);
  if (!is_pane_id(pane_id) || mac.size() != kMacHexDigits) return std::nullopt;
  const std::string expected = mac_hex(pane_id);
  if (expected.size() != kMacHexDigits ||
      CRYPTO_memcmp(expected.data(), mac.data(), kMacHexDigits) != 0)
    return std::nullopt;
  return std::string(pane_id);
}

}  // namespace signaltty::broker
