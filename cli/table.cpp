// cli/table.cpp: column and key/value alignment for human output.
// Runs in: CLI.
#include "cli/table.hpp"

#include <algorithm>

namespace signaltty::cli {
namespace {

constexpr std::size_t kColumnGap = 2;

void print_row(std::ostream& out, const std::vector<std::string>& cells,
               const std::vector<std::size_t>& widths) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    line += cells[i];
    if (i + 1 < cells.size()) line.append(widths[i] - cells[i].size() + kColumnGap, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();  // empty last cells
  out << line << '\n';
}

}  // namespace

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> widths(headers_.size(), 0);
  auto widen = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size() && i < widths.size(); ++i)
      widths[i] = std::max(widths[i], cells[i].size());
  };
  widen(headers_);
  for (const auto& row : rows_) widen(row);
  print_row(out, headers_, widths);
  for (const auto& row : rows_) {
    std::vector<std::string> cells = row;
    cells.resize(headers_.size());
    print_row(out, cells, widths);
  }
}

void KeyValues::print(std::ostream& out) const {
  std::size_t width = 0;
  for (const auto& entry : entries_) width = std::max(width, entry.first.size());
  for (const auto& [key, value] : entries_)
    out << key << ':' << std::string(width - key.size() + 1, ' ') << value << '\n';
}

}  // namespace signaltty::cli
