// common/ids.cpp: random ids from getrandom(2), timestamps. Runs in: every process.
#include "common/ids.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "common/hex.hpp"

namespace signaltty {

bool fill_random(std::span<std::uint8_t> out) {
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::getrandom(out.data() + got, out.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

std::string new_id(std::string_view prefix) {
  std::array<std::uint8_t, 16> bytes{};
  if (!fill_random(bytes)) throw std::runtime_error("getrandom failed");  // invariant: kernel CSPRNG
  std::string out(prefix);
  out.push_back('_');
  append_hex(out, bytes.data(), bytes.size());
  return out;
}

namespace {

bool is_lower_hex(std::string_view text) {
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

bool looks_like_id(std::string_view text) {
  auto sep = text.rfind('_');
  if (sep == std::string_view::npos || sep == 0) return false;
  auto hex = text.substr(sep + 1);
  return hex.size() == kIdHexDigits && is_lower_hex(hex);
}

bool is_id_with_prefix(std::string_view text, std::string_view prefix) {
  if (prefix.empty() || text.size() != prefix.size() + 1 + kIdHexDigits) return false;
  if (!text.starts_with(prefix) || text[prefix.size()] != '_') return false;
  return is_lower_hex(text.substr(prefix.size() + 1));
}

bool is_pane_id(std::string_view text) { return is_id_with_prefix(text, kPaneIdPrefix); }

std::string rfc3339_utc(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  auto secs = time_point_cast<seconds>(t);
  auto ms = duration_cast<milliseconds>(t - secs).count();
  std::time_t tt = system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::string now_rfc3339() { return rfc3339_utc(std::chrono::system_clock::now()); }

std::string compact_utc(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[24];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &tm);
  return buf;
}

}  // namespace signaltty
