// broker/ptyhost_text.hpp: the strings a ptyhost reports, made as safe as
// client input before the store, the journal or any client sees them
// (docs/rules.md "Ptyhost strings"): OSC
// notification text, exit statuses, and the pane record a ptyhost kept for
// a broker that lost its own (Hello.meta).
// Runs in: broker (io thread).
// Never: trusts a ptyhost's text: a ptyhost parses hostile terminal bytes
// and is treated as compromised. A value that breaks a rule is cut, cleaned
// or dropped, never refused with the pane (the program keeps running).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/protocol/model.hpp"
#include "common/protocol/ptyhost_wire.hpp"

namespace signaltty::broker {

// `raw` with C0 and C1 controls removed except '\n' and '\t' (which also
// neutralizes OSC/CSI: ESC, CSI and OSC are among them), bytes that are not
// UTF-8 dropped, cut at `max_chars` code points.
std::string clean_text(std::string_view raw, std::size_t max_chars);

// `text` cut at a UTF-8 boundary no later than `max_bytes`.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// An absolute path of at most limits::kPathMaxBytes, UTF-8, without control
// characters: what a cwd read from a ptyhost or from /proc must be to be
// stored.
bool is_clean_absolute_path(std::string_view path);

// The source an OSC notification event names when it is one of osc9, osc99
// and osc777, else osc9. (Its title and body are cleaned by the store, as
// every notification's are.)
std::string notification_source(const std::optional<std::string>& source);

// An exit status with an exit code outside 0..255 or a signal name that is
// not a short upper-case name made null. Both null means the ptyhost did
// not say (docs/rules.md, decision 27 then reads it as ptyhost_lost).
protocol::ptyhost::ExitStatus checked_exit(const protocol::ptyhost::ExitStatus& exit);

// A pane record recovered from a ptyhost's Hello.meta with every string
// checked like the client input that made it: name (pane name rules, else
// none), title (display-name rules, else `fallback_title`), argv and
// agent.resume_argv (≤64 args, ≤8 KiB, no control characters, else empty /
// none), cwd (absolute, ≤4096 bytes, no control characters, else empty),
// agent.config_env (only the three provider config-dir keys with clean
// absolute paths), and the other free strings cleaned.
protocol::Pane checked_recovered_pane(protocol::Pane pane, std::string_view fallback_title);

}  // namespace signaltty::broker
