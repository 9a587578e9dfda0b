// cli/table.hpp: plain-text layouts for human output: aligned columns with
// a header row, and "key: value" blocks with aligned values.
// Runs in: CLI. Never: colours or truncates; pipes get the same text.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace signaltty::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  // Columns separated by two spaces; the last column is not padded.
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

class KeyValues {
 public:
  KeyValues& add(std::string key, std::string value) {
    entries_.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  // "key:   value", values aligned one column after the longest key.
  void print(std::ostream& out) const;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

}  // namespace signaltty::cli
