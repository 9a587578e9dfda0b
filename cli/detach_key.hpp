// cli/detach_key.hpp: the attach client's detach key: which control key is
// the prefix (default Ctrl-\, `--detach-key` / SIGNALTTY_DETACH_KEY), and
// the little state machine that watches keyboard bytes for
// prefix + `d` (detach) and prefix + prefix (one literal prefix byte).
// Runs in: CLI. Never: touches a file descriptor; it maps bytes to bytes.
//
// Usage:
//   DetachKeyFilter filter(kDefaultDetachKey);
//   auto step = filter.feed(bytes_from_stdin);
//   send(step.forward);
//   if (step.detach) ...;
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace signaltty::cli {

inline constexpr std::string_view kDetachKeyEnv = "SIGNALTTY_DETACH_KEY";
// Ctrl-\ (FS): rarely bound by shells and agents; it sends SIGQUIT only in
// cooked mode, and the pane still gets it as prefix + prefix.
inline constexpr unsigned char kDefaultDetachKey = 0x1c;
// The key that follows the prefix to detach.
inline constexpr unsigned char kDetachCommandKey = 'd';

// A prefix key, or none (detaching then needs another terminal).
using DetachKey = std::optional<unsigned char>;

// "C-\", "^\", "ctrl-\", "C-a", "^A", ... (any of @ A-Z [ \ ] ^ _ ? after
// the control marker, letters in either case), or "none". Anything else is
// BAD_PARAMS.
Result<DetachKey> parse_detach_key(std::string_view spec);
// "Ctrl-\", "Ctrl-A", or "none": how help and messages name the key.
std::string describe_detach_key(DetachKey key);

class DetachKeyFilter {
 public:
  struct Step {
    std::string forward;  // bytes for the pane, in order
    bool detach = false;  // prefix + `d` was typed; bytes after it are dropped
  };

  explicit DetachKeyFilter(DetachKey prefix) : prefix_(prefix) {}

  // A prefix at the end of `bytes` is held until the next byte decides it.
  // After the prefix: `d` detaches, the prefix again sends one prefix byte,
  // and any other byte is sent after the prefix (nothing is swallowed).
  Step feed(std::string_view bytes);
  bool holding_prefix() const { return after_prefix_; }

 private:
  DetachKey prefix_;
  bool after_prefix_ = false;
};

}  // namespace signaltty::cli
