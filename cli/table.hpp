// cli/table.hpp: plain-text layouts for human output: aligned columns with
// a header row, and "key: value" blocks with aligned values.
// Every cell is stored through printable() (cli/terminal_text.hpp): a name or
// title from the broker never reaches the terminal as a control sequence.
// Runs in: CLI. Never: colours or truncates; pipes get the same text.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/terminal_text.hpp"

namespace signaltty::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add_row(std::vector<std::string> cells) {
    for (auto& cell : cells) cell = printable(cell);
    rows_.push_back(std::move(cells));
  }
  bool empty() const { return rows_.empty(); }
  // Columns separated by two spaces; the last column is not padded.
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

class KeyValues {
 public:
  KeyValues& add(std::string key, const std::string& value) {
    entries_.emplace_back(printable(key), printable(value));
    return *this;
  }
  // "key:   value", values aligned one column after the longest key.
  void print(std::ostream& out) const;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

}  // namespace signaltty::cli
