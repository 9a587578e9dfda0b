// broker/handle.cpp: workspace handle slugs, pane name rules and display
// name sanitizing (docs/rules.md: "Ids, handles, names", "Tab and layout").
// Runs in: broker (io thread). Never: touches the store or the clock.
#include "broker/handle.hpp"

#include <algorithm>
#include <cstdint>

#include "common/limits.hpp"

namespace signaltty::broker {
namespace {

bool is_ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string trim_dashes(std::string s) {
  const auto first = s.find_first_not_of('-');
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of('-');
  return s.substr(first, last - first + 1);
}

// UTF-8 continuation bytes look like 10xxxxxx.
bool is_continuation(unsigned char b) { return (b & 0xC0u) == 0x80u; }

// C0 (U+0000–U+001F, U+007F) or C1 (U+0080–U+009F, encoded C2 80–C2 9F)
// starting at text[i]; returns its length in bytes, 0 if not a control.
std::size_t control_length(std::string_view text, std::size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  if (b < 0x20u || b == 0x7Fu) return 1;
  if (b == 0xC2u && i + 1 < text.size()) {
    const auto next = static_cast<unsigned char>(text[i + 1]);
    if (next >= 0x80u && next <= 0x9Fu) return 2;
  }
  return 0;
}

// Removes controls, keeping the bytes `keep` accepts.
std::string strip_controls(std::string_view text, std::string_view keep = {}) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = control_length(text, i);
    if (n > 0 && keep.find(text[i]) == std::string_view::npos) {
      i += n;
      continue;
    }
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

}  // namespace

Error field_error(std::string_view field, std::string why) {
  Error e = bad_params(std::string(field) + ": " + std::move(why));
  e.details = {{"field", std::string(field)}};
  return e;
}

std::size_t code_point_count(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return !is_continuation(static_cast<unsigned char>(c));
  }));
}

// Cuts `text` after `max_code_points` UTF-8 code points.
std::string cut_code_points(std::string text, std::size_t max_code_points) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_continuation(static_cast<unsigned char>(text[i]))) continue;
    if (seen == max_code_points) {
      text.resize(i);
      break;
    }
    ++seen;
  }
  return text;
}

std::string sanitize_notification_text(std::string_view raw, std::size_t max_code_points) {
  return cut_code_points(strip_controls(raw, "\n\t"), max_code_points);
}

std::string handle_slug(std::string_view name) {
  std::string slug;
  bool pending_dash = false;
  for (char raw : name) {
    const char c = ascii_lower(raw);
    if (!is_ascii_lower(c) && !is_ascii_digit(c)) {
      pending_dash = true;
      continue;
    }
    if (pending_dash && !slug.empty()) slug.push_back('-');
    pending_dash = false;
    slug.push_back(c);
    if (slug.size() >= limits::kHandleMaxChars) break;
  }
  slug = trim_dashes(slug.substr(0, limits::kHandleMaxChars));
  return slug.empty() ? std::string(kEmptyHandle) : slug;
}

std::string make_handle(std::string_view name, const HandleTaken& taken) {
  const std::string base = handle_slug(name);
  if (!taken(base)) return base;
  for (std::uint64_t n = 2;; ++n) {
    const std::string suffix = "-" + std::to_string(n);
    std::string stem = base.substr(0, limits::kHandleMaxChars - suffix.size());
    stem = trim_dashes(std::move(stem));
    if (stem.empty()) stem = std::string(kEmptyHandle);
    std::string candidate = stem + suffix;
    if (!taken(candidate)) return candidate;
  }
}

Status validate_pane_name(std::string_view name) {
  if (name.empty()) return field_error("name", "must not be empty");
  if (name.size() > limits::kPaneNameMaxBytes)
    return field_error("name", "longer than " + std::to_string(limits::kPaneNameMaxBytes) +
                                   " bytes");
  if (!is_ascii_lower(name.front()))
    return field_error("name", "must start with a lowercase letter a-z");
  for (char c : name) {
    if (!is_ascii_lower(c) && !is_ascii_digit(c) && c != '_' && c != '-')
      return field_error("name", "may hold only a-z, 0-9, '_' and '-'");
  }
  return {};
}

Result<std::string> sanitize_display_name(std::string_view raw, std::string_view field) {
  if (raw.size() > limits::kNameMaxBytes)
    return field_error(field, "longer than " + std::to_string(limits::kNameMaxBytes) + " bytes");
  std::string clean = cut_code_points(strip_controls(raw), limits::kTitleMaxChars);
  if (clean.empty()) return field_error(field, "must not be empty");
  return clean;
}

}  // namespace signaltty::broker
