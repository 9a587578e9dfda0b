// gitworker/file_diff.hpp: the pieces of the file_diff op that hold its
// rules, apart from the repository work so tests check them directly: which
// paths a caller may name, how libgit2's hunks and lines become the
// protocol's text content, and the caps on that content.
// Runs in: gitworker (and its tests, in-process). Never: lets a line past
// a cap into the content, or a byte that is not UTF-8 into JSON.
//
// Usage:
//   SIGNALTTY_RETURN_IF_ERROR(check_literal_path(path));
//   TextPreview preview;
//   preview.begin_hunk(*hunk);
//   if (!preview.add_line(*line)) ...;   // a cap was hit: stop
//   protocol::Json content = std::move(preview).content();
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <git2.h>

#include "common/errors.hpp"
#include "common/protocol/codec.hpp"

namespace signaltty::gitworker {

// The preview's caps: line texts summed (after UTF-8 repair), and lines.
inline constexpr std::size_t kMaxPreviewBytes = 512 * 1024;
inline constexpr std::size_t kMaxPreviewLines = 10'000;

// OK for one literal, root-relative, UTF-8 filename. BAD_PARAMS for empty,
// absolute, NUL, invalid UTF-8, an empty component (doubled or trailing
// '/'), a `.` or `..` component, or any component `.git` in any case.
Status check_literal_path(std::string_view path);

// `bytes` with every invalid UTF-8 sequence replaced by U+FFFD; `replaced`
// set when one was.
std::string repair_utf8(std::string_view bytes, bool& replaced);

// The function-context text of a hunk header "@@ -a,b +c,d @@ text\n":
// what follows the second "@@", trimmed; "" when none.
std::string hunk_heading(std::string_view header);

struct PreviewLimits {
  std::size_t bytes = kMaxPreviewBytes;
  std::size_t lines = kMaxPreviewLines;
};

// Builds {"kind":"text","hunks":[...],"truncated":bool,"notice"?} from
// libgit2's hunks and lines, in order. Once a cap is hit nothing more is
// taken: the hunk in progress keeps its complete lines so far and its
// counts as git printed them.
class TextPreview {
 public:
  explicit TextPreview(PreviewLimits limits = {}) : limits_(limits) {}

  void begin_hunk(const git_diff_hunk& hunk);
  // False once a cap is hit (this line is left out, and so is the rest).
  bool add_line(const git_diff_line& line);
  // Notices are joined with "; " in the order added.
  void add_notice(std::string notice);
  bool truncated() const { return truncated_; }
  std::size_t hunk_count() const { return hunks_.size() + (open_hunk_ ? 1 : 0); }

  protocol::Json content() &&;

 private:
  void close_hunk();
  bool hit_cap(std::string notice);

  PreviewLimits limits_;
  protocol::Json hunks_ = protocol::Json::array();
  protocol::Json hunk_;
  bool open_hunk_ = false;
  std::size_t bytes_ = 0;
  std::size_t lines_ = 0;
  bool truncated_ = false;
  bool repaired_ = false;
  std::vector<std::string> notices_;
};

// {"kind": kind, "reason": reason} for binary, unchanged and unavailable.
protocol::Json reason_content(std::string_view kind, std::string reason);

}  // namespace signaltty::gitworker
