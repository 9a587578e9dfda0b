// broker/config_dir.cpp: see config_dir.hpp.
// Runs in: broker, launcher.
#include "broker/config_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>

#include "broker/ptyhost_text.hpp"
#include "common/unique_fd.hpp"

namespace signaltty::broker {
namespace {

void keep_name(ConfigDirListing& listing, std::string name, std::size_t max_names) {
  listing.names.insert(std::move(name));
  if (listing.names.size() <= max_names) return;
  auto last = std::prev(listing.names.end());
  if (listing.skipped == 0 || *last < listing.first_skipped) listing.first_skipped = *last;
  ++listing.skipped;
  listing.names.erase(last);
}

// The first line (1-based) holding more than `max` dots outside strings and
// comments, if any. TOML strings: "basic" (with \ escapes), 'literal', and
// their """multi-line""" and '''multi-line''' forms.
std::optional<std::size_t> line_nesting_too_deep(std::string_view text, std::size_t max) {
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral };
  In in = In::Code;
  std::size_t line = 1;
  std::size_t dots = 0;
  const auto opens = [&text](std::size_t i, std::string_view mark) {
    return text.substr(i, mark.size()) == mark;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      dots = 0;
      if (in != In::MultiBasic && in != In::MultiLiteral) in = In::Code;
      continue;
    }
    switch (in) {
      case In::Code:
        if (c == '#') {
          in = In::Comment;
        } else if (opens(i, "\"\"\"")) {
          in = In::MultiBasic;
          i += 2;
        } else if (opens(i, "'''")) {
          in = In::MultiLiteral;
          i += 2;
        } else if (c == '"') {
          in = In::Basic;
        } else if (c == '\'') {
          in = In::Literal;
        } else if (c == '.' && ++dots > max) {
          return line;
        }
        break;
      case In::Comment: break;
      case In::Basic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;  // an escape
        else if (c == '"') in = In::Code;
        break;
      case In::Literal:
        if (c == '\'') in = In::Code;
        break;
      case In::MultiBasic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
        else if (opens(i, "\"\"\"")) {
          in = In::Code;
          i += 2;
        }
        break;
      case In::MultiLiteral:
        if (opens(i, "'''")) {
          in = In::Code;
          i += 2;
        }
        break;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<std::optional<ConfigDirListing>> list_config_dir(
    const std::string& path, std::size_t max_names, const std::function<bool(const dirent&)>& keep) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd && errno == ENOENT) return std::optional<ConfigDirListing>();
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno, path);
  ConfigDirListing listing;
  listing.dir.reset(::fdopendir(fd.get()));
  if (!listing.dir) return Error::from_errno(ErrorCode::IoError, "fdopendir", errno, path);
  fd.release();  // the DIR owns it now
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(listing.dir.get());
    if (entry == nullptr) {
      if (errno != 0) return Error::from_errno(ErrorCode::IoError, "readdir", errno, path);
      break;
    }
    if (keep(*entry)) keep_name(listing, entry->d_name, max_names);
  }
  return std::optional<ConfigDirListing>(std::move(listing));
}

Result<std::optional<std::string>> read_config_file(int dir_fd, const std::string& name,
                                                    std::size_t max_bytes) {
  UniqueFd fd(
      ::openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
  if (!fd && errno == ENOENT) return std::optional<std::string>();
  if (!fd && errno == ELOOP) return Error{ErrorCode::IoError, "a symbolic link, not a regular file"};
  if (!fd) return Error::from_errno(ErrorCode::IoError, "open", errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::from_errno(ErrorCode::IoError, "fstat", errno);
  if (!S_ISREG(st.st_mode)) return Error{ErrorCode::IoError, "not a regular file"};
  const std::string too_large = "larger than " + std::to_string(max_bytes) + " bytes";
  if (st.st_size > static_cast<off_t>(max_bytes)) return Error{ErrorCode::IoError, too_large};
  std::string text(max_bytes + 1, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + size, text.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno(ErrorCode::IoError, "read", errno);
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  if (size > max_bytes) return Error{ErrorCode::IoError, too_large};  // it grew
  text.resize(size);
  return std::optional<std::string>(std::move(text));
}

std::string excerpt(std::string_view s) {
  constexpr std::size_t kExcerptBytes = 60;
  if (s.size() <= kExcerptBytes) return std::string(s);
  return std::string(utf8_prefix(s, kExcerptBytes)) + "…";
}

Result<toml::table> parse_toml(std::string_view text) {
  if (const auto line = line_nesting_too_deep(text, kTomlMaxDotsPerLine))
    return bad_params("line " + std::to_string(*line) + ": more than " +
                      std::to_string(kTomlMaxDotsPerLine) +
                      " dots outside strings (keys or table names nested that deep)");
  try {
    return toml::parse(text);
  } catch (const toml::parse_error& e) {
    return bad_params("line " + std::to_string(e.source().begin.line) + ", column " +
                      std::to_string(e.source().begin.column) + ": " +
                      std::string(e.description()));
  }
}

}  // namespace signaltty::broker
