// gitworker/file_diff_op.cpp: file_diff, one literal file's hunks in the
// checkout against HEAD (staged and unstaged edits together) or against a
// given tree, as protocol text content (docs/gitworker.md "File diff"); and
// the rule helpers of file_diff.hpp.
//
// libgit2 diffs tracked files with a one-path literal pathspec. An
// untracked file is read by read_untracked (untracked.hpp: beneath the
// checkout one directory at a time, no symlink followed, nothing but a
// regular file opened) and diffed from that buffer as all additions.
//
// Runs in: gitworker. Never: writes the index or the object store, detects
// renames, runs an external diff or textconv, follows a symlink inside the
// checkout, opens a non-regular untracked file, reads more than
// kUntrackedReadCap bytes of one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <optional>

#include "common/unique_fd.hpp"
#include "gitworker/file_diff.hpp"
#include "gitworker/ops.hpp"
#include "gitworker/repo.hpp"
#include "gitworker/untracked.hpp"

namespace signaltty::gitworker {

using protocol::Json;

// ---- the rules (file_diff.hpp) ---------------------------------------------

namespace {

bool is_dot_git(std::string_view name) {
  if (name.size() != 4 || name[0] != '.') return false;
  for (std::size_t i = 1; i < 4; ++i)
    if ((name[i] | 0x20) != "git"[i - 1]) return false;
  return true;
}

// The length of the valid UTF-8 sequence at the start of `s`, or 0.
std::size_t utf8_sequence(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = b(0);
  if (lead < 0x80) return 1;
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    if (lead == 0xE0) lo = 0xA0;  // overlong
    if (lead == 0xED) hi = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    if (lead == 0xF0) lo = 0x90;  // overlong
    if (lead == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < len || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t i = 2; i < len; ++i)
    if (b(i) < 0x80 || b(i) > 0xBF) return 0;
  return len;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string cap_notice(std::size_t limit, std::string_view unit) {
  if (unit == "bytes" && limit % 1024 == 0)
    return "the preview stops at " + std::to_string(limit / 1024) + " KiB";
  return "the preview stops at " + std::to_string(limit) + " " + std::string(unit);
}

}  // namespace

Status check_literal_path(std::string_view path) {
  if (path.empty()) return bad_params("path is empty");
  if (path.find('\0') != std::string_view::npos) return bad_params("path contains NUL");
  if (path.front() == '/') return bad_params("path must be relative to the checkout root");
  bool replaced = false;
  (void)repair_utf8(path, replaced);
  if (replaced) return bad_params("path is not UTF-8");
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = path.find('/', start);
    const std::string_view name = path.substr(start, end - start);
    if (name.empty()) return bad_params("path has an empty component (a doubled or trailing '/')");
    if (name == "." || name == "..") return bad_params("path has a '.' or '..' component");
    if (is_dot_git(name)) return bad_params("path is inside Git's own directory (.git)");
    if (end == std::string_view::npos) return {};
    start = end + 1;
  }
}

std::string repair_utf8(std::string_view bytes, bool& replaced) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    const std::size_t len = utf8_sequence(bytes);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      replaced = true;
      bytes.remove_prefix(1);
      continue;
    }
    out.append(bytes.substr(0, len));
    bytes.remove_prefix(len);
  }
  return out;
}

std::string hunk_heading(std::string_view header) {
  if (header.substr(0, 2) != "@@") return "";
  const std::size_t second = header.find("@@", 2);
  if (second == std::string_view::npos) return "";
  std::string_view text = header.substr(second + 2);
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return std::string(text);
}

void TextPreview::begin_hunk(const git_diff_hunk& hunk) {
  close_hunk();
  if (truncated_) return;
  const std::string heading =
      repair_utf8(hunk_heading(std::string_view(hunk.header, hunk.header_len)), repaired_);
  hunk_ = Json{{"old_start", hunk.old_start}, {"old_count", hunk.old_lines},
               {"new_start", hunk.new_start}, {"new_count", hunk.new_lines},
               {"heading", heading},          {"lines", Json::array()}};
  open_hunk_ = true;
}

bool TextPreview::add_line(const git_diff_line& line) {
  if (truncated_) return false;
  if (!open_hunk_) return true;  // libgit2 gives every line inside a hunk
  if (lines_ + 1 > limits_.lines) return hit_cap(cap_notice(limits_.lines, "lines"));
  Json out;
  switch (line.origin) {
    case GIT_DIFF_LINE_CONTEXT_EOFNL:
    case GIT_DIFF_LINE_ADD_EOFNL:
    case GIT_DIFF_LINE_DEL_EOFNL:
      out = Json{{"kind", "no_newline"}, {"text", "No newline at end of file"}};
      break;
    case GIT_DIFF_LINE_CONTEXT:
    case GIT_DIFF_LINE_ADDITION:
    case GIT_DIFF_LINE_DELETION: {
      std::string_view raw(line.content, line.content_len);
      if (!raw.empty() && raw.back() == '\n') raw.remove_suffix(1);
      std::string text = repair_utf8(raw, repaired_);
      if (bytes_ + text.size() > limits_.bytes) return hit_cap(cap_notice(limits_.bytes, "bytes"));
      bytes_ += text.size();
      const char* kind = line.origin == GIT_DIFF_LINE_CONTEXT    ? "context"
                         : line.origin == GIT_DIFF_LINE_ADDITION ? "added"
                                                                 : "removed";
      out = Json{{"kind", kind}, {"text", std::move(text)}};
      if (line.old_lineno > 0) out["old_line"] = line.old_lineno;
      if (line.new_lineno > 0) out["new_line"] = line.new_lineno;
      break;
    }
    default:
      return true;  // file and hunk headers, binary markers: not lines of text
  }
  hunk_["lines"].push_back(std::move(out));
  ++lines_;
  return true;
}

void TextPreview::add_notice(std::string notice) { notices_.push_back(std::move(notice)); }

bool TextPreview::hit_cap(std::string notice) {
  truncated_ = true;
  close_hunk();
  add_notice(std::move(notice));
  return false;
}

void TextPreview::close_hunk() {
  if (open_hunk_ && !hunk_["lines"].empty()) hunks_.push_back(std::move(hunk_));
  open_hunk_ = false;
  hunk_ = Json();
}

Json TextPreview::content() && {
  close_hunk();
  if (repaired_) add_notice("bytes that are not UTF-8 are shown as U+FFFD");
  Json out{{"kind", "text"}, {"hunks", std::move(hunks_)}, {"truncated", truncated_}};
  std::string notice;
  for (const std::string& n : notices_) notice += (notice.empty() ? "" : "; ") + n;
  if (!notice.empty()) out["notice"] = std::move(notice);
  return out;
}

Json reason_content(std::string_view kind, std::string reason) {
  return Json{{"kind", kind}, {"reason", std::move(reason)}};
}

// ---- the file on disk --------------------------------------------------------

namespace {

// Tracked files larger than this (either side) are not diffed: libgit2
// marks them binary before loading them, which bounds the worker's memory.
constexpr git_off_t kMaxTrackedBytes = 4 * 1024 * 1024;

enum class EntryKind { Absent, Regular, Symlink, Directory, Other };

// The directory holding a checkout path's last component, reached from the
// checkout root one component at a time without following a symlink. No
// `dir` when a parent is missing, a symlink or not a directory: Git sees no
// file there either.
struct Parent {
  UniqueFd dir;
  std::string name;
};

Error io_failure(std::string_view call, const std::string& path) {
  return Error::from_errno(ErrorCode::IoError, call, errno, path);
}

Result<Parent> open_parent(const std::string& root, const std::string& rel) {
  Parent parent;
  parent.dir.reset(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent.dir) return io_failure("open", root);
  std::size_t start = 0;
  for (std::size_t slash; (slash = rel.find('/', start)) != std::string::npos; start = slash + 1) {
    const std::string name = rel.substr(start, slash - start);
    const int fd = ::openat(parent.dir.get(), name.c_str(),
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)) {
      parent.dir.reset();
      return parent;
    }
    if (fd < 0) return io_failure("openat", rel);
    parent.dir.reset(fd);
  }
  parent.name = rel.substr(start);
  return parent;
}

EntryKind kind_of(mode_t mode) {
  if (S_ISREG(mode)) return EntryKind::Regular;
  if (S_ISLNK(mode)) return EntryKind::Symlink;
  if (S_ISDIR(mode)) return EntryKind::Directory;
  return EntryKind::Other;
}

Result<EntryKind> entry_kind(const Parent& parent, const std::string& rel) {
  if (!parent.dir) return EntryKind::Absent;
  struct stat st{};
  if (::fstatat(parent.dir.get(), parent.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    return kind_of(st.st_mode);
  if (errno == ENOENT || errno == ENOTDIR) return EntryKind::Absent;
  return io_failure("fstatat", rel);
}

// ---- the diff ------------------------------------------------------------------

// Three lines of context, hunks merged only when their context touches (as
// git's interHunkContext 0), git's default indent heuristic, no rename
// detection (never asked for), submodules left alone, `path` literal.
git_diff_options diff_options(char** path) {
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_INCLUDE_UNTRACKED |
               GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_INCLUDE_TYPECHANGE |
               GIT_DIFF_IGNORE_SUBMODULES | GIT_DIFF_INDENT_HEURISTIC;
  opts.ignore_submodules = GIT_SUBMODULE_IGNORE_ALL;
  opts.context_lines = 3;
  opts.interhunk_lines = 0;
  opts.max_size = kMaxTrackedBytes;
  opts.pathspec = {path, 1};
  return opts;
}

bool is_hex_id(std::string_view id) {
  if (id.size() != GIT_OID_HEXSZ) return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

// The tree compared against: `base_tree` when given, else HEAD's; null
// (the empty tree) before the first commit.
Result<GitPtr<git_tree>> comparison_tree(git_repository* repo,
                                         const std::optional<std::string>& base_tree) {
  GitPtr<git_tree> tree;
  if (base_tree) {
    if (!is_hex_id(*base_tree)) return bad_params("base_tree must be a full hex tree id");
    git_oid oid;
    if (git_oid_fromstrn(&oid, base_tree->data(), base_tree->size()) < 0)
      return bad_params("base_tree must be a full hex tree id");
    const int rc = git_tree_lookup(out(tree), repo, &oid);
    if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC)
      return bad_params("base_tree " + *base_tree + " is not a tree in this repository");
    if (rc < 0) return git_failure("reading base_tree " + *base_tree);
    return tree;
  }
  GitPtr<git_reference> head;
  const int rc = git_repository_head(out(head), repo);
  if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) return tree;
  if (rc < 0) return git_failure("reading HEAD");
  GitPtr<git_object> peeled;
  if (git_reference_peel(out(peeled), head.get(), GIT_OBJECT_TREE) < 0)
    return git_failure("reading HEAD's tree");
  tree.reset(reinterpret_cast<git_tree*>(peeled.release()));
  return tree;
}

Result<GitPtr<git_diff>> diff_path(git_repository* repo, git_tree* tree, bool with_index,
                                   const std::string& path) {
  std::string spec = path;
  char* spec_ptr = spec.data();
  const git_diff_options opts = diff_options(&spec_ptr);
  GitPtr<git_diff> diff;
  const int rc = with_index ? git_diff_tree_to_workdir_with_index(out(diff), repo, tree, &opts)
                            : git_diff_tree_to_workdir(out(diff), repo, tree, &opts);
  if (rc < 0) return git_failure("diffing " + path);
  return diff;
}

// What the diff says about exactly `path`.
struct Found {
  std::optional<std::size_t> delta;  // its index in the diff
  bool inside = false;               // a delta below `path/`: a directory
};

Found find_delta(git_diff* diff, const std::string& path) {
  Found found;
  const std::string dir = path + "/";
  for (std::size_t i = 0, n = git_diff_num_deltas(diff); i < n; ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff, i);
    const std::string_view p = d->new_file.path != nullptr ? d->new_file.path : d->old_file.path;
    if (p == path && !found.delta) found.delta = i;
    if (p.substr(0, dir.size()) == dir) found.inside = true;
  }
  return found;
}

bool in_index(git_repository* repo, const std::string& path) {
  GitPtr<git_index> index;
  if (git_repository_index(out(index), repo) < 0) return false;
  for (int stage = 0; stage <= 3; ++stage)
    if (git_index_get_bypath(index.get(), path.c_str(), stage) != nullptr) return true;
  return false;
}

bool in_tree(git_tree* tree, const std::string& path) {
  if (tree == nullptr) return false;
  git_tree_entry* entry = nullptr;
  if (git_tree_entry_bypath(&entry, tree, path.c_str()) < 0) return false;
  const bool blob = git_tree_entry_type(entry) == GIT_OBJECT_BLOB;
  git_tree_entry_free(entry);
  return blob;
}

std::string mode_text(std::uint32_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06o", static_cast<unsigned>(mode));
  return buf;
}

std::string size_reason(git_off_t limit) {
  return "over " + std::to_string(limit / (1024 * 1024)) + " MiB";
}

// The patch's hunks and lines, capped; notices for what has no lines.
Result<Json> text_content(git_patch* patch, const git_diff_delta& delta) {
  TextPreview preview;
  const bool mode_changed = delta.old_file.mode != 0 && delta.new_file.mode != 0 &&
                            delta.old_file.mode != delta.new_file.mode;
  if (mode_changed)
    preview.add_notice((delta.status == GIT_DELTA_TYPECHANGE ? "type changed " : "mode changed ") +
                       mode_text(delta.old_file.mode) + " → " + mode_text(delta.new_file.mode));
  bool more = true;
  for (std::size_t h = 0, nh = git_patch_num_hunks(patch); h < nh && more; ++h) {
    const git_diff_hunk* hunk = nullptr;
    std::size_t lines = 0;
    if (git_patch_get_hunk(&hunk, &lines, patch, h) < 0) return git_failure("reading a hunk");
    preview.begin_hunk(*hunk);
    for (std::size_t l = 0; l < lines && more; ++l) {
      const git_diff_line* line = nullptr;
      if (git_patch_get_line_in_hunk(&line, patch, h, l) < 0) return git_failure("reading a line");
      more = preview.add_line(*line);
    }
  }
  if (git_patch_num_hunks(patch) == 0 && !mode_changed) {
    if (delta.status == GIT_DELTA_ADDED || delta.status == GIT_DELTA_UNTRACKED)
      preview.add_notice("empty file");
    else if (delta.status == GIT_DELTA_DELETED)
      preview.add_notice("empty file deleted");
    else
      return reason_content("unchanged", "no changes in content or mode");
  }
  return std::move(preview).content();
}

Result<Json> patch_content(git_patch* patch) {
  const git_diff_delta* delta = git_patch_get_delta(patch);
  if ((delta->flags & GIT_DIFF_FLAG_BINARY) != 0) {
    if (delta->old_file.size > static_cast<std::uint64_t>(kMaxTrackedBytes) ||
        delta->new_file.size > static_cast<std::uint64_t>(kMaxTrackedBytes))
      return reason_content("binary", size_reason(kMaxTrackedBytes));
    return reason_content("binary", "binary file");
  }
  return text_content(patch, *delta);
}

Result<Json> tracked_content(git_diff* diff, std::size_t index) {
  GitPtr<git_patch> patch;
  if (git_patch_from_diff(out(patch), diff, index) < 0) return git_failure("diffing the file");
  if (!patch) return reason_content("unavailable", "libgit2 produced no patch for this change");
  return patch_content(patch.get());
}

// An untracked file (or one new since the base tree): all additions, from
// bytes read by read_untracked (untracked.hpp) rather than by libgit2.
Result<Json> untracked_content(const Parent& parent, const std::string& root,
                               const std::string& path) {
  SIGNALTTY_TRY(EntryKind kind, entry_kind(parent, path));
  if (kind == EntryKind::Symlink) return reason_content("binary", "symlink");
  const UntrackedFile file = read_untracked(root, path);
  switch (file.kind) {
    case UntrackedKind::Text: break;
    case UntrackedKind::Binary: return reason_content("binary", "binary file");
    case UntrackedKind::TooLarge:
      return reason_content("binary", "over " + std::to_string(kUntrackedReadCap / 1024) + " KiB");
    case UntrackedKind::NotRegular: return reason_content("binary", "not a regular file");
    case UntrackedKind::Unreadable: return reason_content("unavailable", "cannot be read");
  }
  std::string spec = path;
  char* spec_ptr = spec.data();
  const git_diff_options opts = diff_options(&spec_ptr);
  GitPtr<git_patch> patch;
  if (git_patch_from_buffers(out(patch), nullptr, 0, path.c_str(), file.content.data(),
                             file.content.size(), path.c_str(), &opts) < 0)
    return git_failure("diffing " + path);
  return patch_content(patch.get());
}

struct Checkout {
  git_repository* repo;
  std::string root;
  git_tree* tree;  // null: the empty tree
  bool against_base;
};

// No delta for `path`: unchanged, ignored, missing, a directory, or a file
// libgit2 does not list (a FIFO, socket or device).
Result<gw::FileDiffResult> without_delta(const Checkout& co, const std::string& path,
                                         bool inside) {
  SIGNALTTY_TRY(Parent parent, open_parent(co.root, path));
  SIGNALTTY_TRY(EntryKind kind, entry_kind(parent, path));
  if (kind == EntryKind::Directory || inside) return bad_params(path + " is a directory");
  const bool tracked = co.against_base ? in_tree(co.tree, path) : in_index(co.repo, path);
  if (tracked) {
    const char* base = co.against_base ? "the base tree" : "HEAD";
    return gw::FileDiffResult{false, reason_content("unchanged", std::string("same as in ") + base)};
  }
  int ignored = 0;
  if (git_ignore_path_is_ignored(&ignored, co.repo, path.c_str()) < 0)
    return git_failure("reading the ignore rules");
  // Against a base tree, a file in the index but not in the tree is new
  // even when an ignore rule matches it (libgit2 lists it as ignored).
  const bool indexed = in_index(co.repo, path);
  if (ignored != 0 && !indexed)
    return gw::FileDiffResult{true, reason_content("unavailable", "ignored by .gitignore")};
  if (kind == EntryKind::Absent)
    return bad_params(std::string("no such file in the checkout or ") +
                      (co.against_base ? "the base tree" : "HEAD"));
  SIGNALTTY_TRY(Json content, untracked_content(parent, co.root, path));
  return gw::FileDiffResult{!indexed, std::move(content)};
}

// An unmerged path has no one index entry: as `git diff HEAD`, compare
// HEAD's tree with the file on disk, conflict markers and all.
Result<gw::FileDiffResult> unmerged(const Checkout& co, const std::string& path) {
  SIGNALTTY_TRY(GitPtr<git_diff> diff, diff_path(co.repo, co.tree, false, path));
  const Found found = find_delta(diff.get(), path);
  if (!found.delta)
    return gw::FileDiffResult{false, reason_content("unchanged", "same as in HEAD")};
  SIGNALTTY_TRY(Json content, tracked_content(diff.get(), *found.delta));
  return gw::FileDiffResult{false, std::move(content)};
}

}  // namespace

Result<gw::FileDiffResult> file_diff(const gw::Request& request) {
  const std::string path = request.path.value_or("");
  SIGNALTTY_RETURN_IF_ERROR(check_literal_path(path));
  SIGNALTTY_TRY(Repo repo, open_repo(request.repo));
  SIGNALTTY_TRY(GitPtr<git_tree> tree, comparison_tree(repo.get(), request.base_tree));
  const bool against_base = request.base_tree.has_value();
  const Checkout co{repo.get(), workdir_of(repo.get()), tree.get(), against_base};
  SIGNALTTY_TRY(GitPtr<git_diff> diff, diff_path(co.repo, co.tree, !against_base, path));
  const Found found = find_delta(diff.get(), path);
  if (!found.delta) return without_delta(co, path, found.inside);
  const git_diff_delta* delta = git_diff_get_delta(diff.get(), *found.delta);
  if (delta->status == GIT_DELTA_CONFLICTED) return unmerged(co, path);
  if (delta->status == GIT_DELTA_UNTRACKED) {
    SIGNALTTY_TRY(Parent parent, open_parent(co.root, path));
    if (!parent.dir) return bad_params("no such file in the checkout");
    SIGNALTTY_TRY(Json content, untracked_content(parent, co.root, path));
    return gw::FileDiffResult{!in_index(co.repo, path), std::move(content)};
  }
  SIGNALTTY_TRY(Json content, tracked_content(diff.get(), *found.delta));
  return gw::FileDiffResult{false, std::move(content)};
}

}  // namespace signaltty::gitworker
