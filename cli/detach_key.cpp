// cli/detach_key.cpp: detach key parsing and the prefix state machine.
// Runs in: CLI. Never: holds more than one pending prefix byte.
#include "cli/detach_key.hpp"

#include <cctype>

namespace signaltty::cli {
namespace {

// Control characters are the key's ASCII code with bit 6 cleared: A → 0x01,
// \ → 0x1c; `?` is the exception, DEL (0x7f).
constexpr unsigned char kControlMask = 0x1f;
constexpr unsigned char kKeyBit = 0x40;
constexpr unsigned char kDel = 0x7f;

std::optional<unsigned char> control_of(char key) {
  const auto c = static_cast<unsigned char>(std::toupper(static_cast<unsigned char>(key)));
  if (c == '?') return kDel;
  if (c >= '@' && c <= '_') return static_cast<unsigned char>(c & kControlMask);
  return std::nullopt;
}

// The key after a control marker ("C-", "^", "ctrl-"), or "" without one.
std::string_view after_control_marker(std::string_view spec) {
  for (std::string_view marker : {"C-", "c-", "^", "ctrl-", "Ctrl-", "CTRL-"})
    if (spec.starts_with(marker)) return spec.substr(marker.size());
  return {};
}

}  // namespace

Result<DetachKey> parse_detach_key(std::string_view spec) {
  if (spec == "none") return DetachKey{};
  const std::string_view key = after_control_marker(spec);
  if (key.size() == 1)
    if (auto control = control_of(key.front())) return DetachKey{*control};
  return bad_params("detach key must look like C-\\, ^A or ctrl-b (or be none), not '" +
                    std::string(spec) + "'");
}

std::string describe_detach_key(DetachKey key) {
  if (!key) return "none";
  if (*key == kDel) return "Ctrl-?";
  return std::string("Ctrl-") + static_cast<char>(*key | kKeyBit);
}

DetachKeyFilter::Step DetachKeyFilter::feed(std::string_view bytes) {
  Step step;
  if (!prefix_) {
    step.forward.assign(bytes);
    return step;
  }
  step.forward.reserve(bytes.size() + 1);
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (!after_prefix_) {
      if (byte == *prefix_)
        after_prefix_ = true;
      else
        step.forward.push_back(c);
      continue;
    }
    after_prefix_ = false;
    if (byte == kDetachCommandKey) {
      step.detach = true;
      return step;
    }
    step.forward.push_back(static_cast<char>(*prefix_));
    if (byte != *prefix_) step.forward.push_back(c);
  }
  return step;
}

}  // namespace signaltty::cli
