// CsvTable: small numeric CSV files (centerline profiles written by runs, reference data read by validation).
//
// Written: a header of names, then rows of values with 17 significant digits (exact round trip, C-locale
// independent), through write_file_atomically. Read: '#' comment lines and blank lines anywhere are skipped, the
// first other line names the columns, every further line holds one number per column (empty cell = NaN).
// Cells are trimmed of spaces; CRLF line ends are accepted.
#include "io/csv_table.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/number_format.hpp"
#include "io/case_config.hpp"

namespace eddy {

// Declared in io/csv_table.hpp.

/// `text` without leading and trailing spaces, tabs and carriage returns.
std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

/// The comma-separated cells of `line`, trimmed.
std::vector<std::string_view> split_cells(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

namespace {



/// True for lines read_csv skips: blank, or a comment whose first non-blank character is '#'.
bool is_skipped(std::string_view line) {
  const std::string_view body = trim(line);
  return body.empty() || body.front() == '#';
}

/// "<path>:<line>: <what>", the location format of every read error.
InputError read_error(const std::string& path, int line, const std::string& what) {
  return InputError(path + ":" + std::to_string(line) + ": " + what);
}

/// Parses one trimmed cell: a number ("nan", "inf" and a leading '+' allowed) or empty (NaN). Returns false on
/// anything else, including trailing characters and values out of double range.
bool parse_number(std::string_view cell, double& value) {
  if (cell.empty()) {
    value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (cell.front() == '+') cell.remove_prefix(1);
  const auto result = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  return result.ec == std::errc() && result.ptr == cell.data() + cell.size();
}

/// Validates and stores the header line's column names.
void read_header(const std::string& path, int line_number, std::string_view line, CsvTable& table) {
  std::set<std::string_view> seen;
  for (const std::string_view name : split_cells(line)) {
    if (name.empty()) throw read_error(path, line_number, "empty column name in the header line");
    if (!seen.insert(name).second) {
      throw read_error(path, line_number, "duplicate column name '" + std::string(name) + "'");
    }
    table.names.emplace_back(name);
  }
  table.columns.assign(table.names.size(), {});
}

/// Parses one data row and appends it to the columns of `table`.
void read_row(const std::string& path, int line_number, std::string_view line, CsvTable& table) {
  const std::vector<std::string_view> cells = split_cells(line);
  if (cells.size() != table.names.size()) {
    throw read_error(
        path, line_number,
        "expected " + std::to_string(table.names.size()) + " cells, found " + std::to_string(cells.size()));
  }
  for (std::size_t c = 0; c < cells.size(); ++c) {
    double value = 0.0;
    if (!parse_number(cells[c], value)) {
      throw read_error(path, line_number,
                       "column '" + table.names[c] + "': '" + std::string(cells[c]) + "' is not a number");
    }
    table.columns[c].push_back(value);
  }
}

/// Checks that `table` is rectangular and its names can be written as a CSV header (std::invalid_argument).
void check_writable(const std::string& path, const CsvTable& table) {
  if (table.names.empty()) throw std::invalid_argument("write_csv('" + path + "'): the table has no columns");
  if (table.names.size() != table.columns.size()) {
    throw std::invalid_argument("write_csv('" + path + "'): " + std::to_string(table.names.size()) + " names for " +
                                std::to_string(table.columns.size()) + " columns");
  }
  for (std::size_t c = 0; c < table.names.size(); ++c) {
    const std::string& name = table.names[c];
    if (name.empty() || name.front() == '#' || name.find_first_of(",\n\r") != std::string::npos ||
        trim(name).size() != name.size()) {
      throw std::invalid_argument("write_csv('" + path + "'): invalid column name '" + name + "'");
    }
    if (table.columns[c].size() != table.columns[0].size()) {
      throw std::invalid_argument("write_csv('" + path + "'): column '" + name + "' has " +
                                  std::to_string(table.columns[c].size()) + " rows, column '" + table.names[0] +
                                  "' has " + std::to_string(table.columns[0].size()));
    }
  }
}

}  // namespace

const std::vector<double>& CsvTable::column(const std::string& name) const {
  for (std::size_t c = 0; c < names.size() && c < columns.size(); ++c) {
    if (names[c] == name) return columns[c];
  }
  std::string available;
  for (const std::string& n : names) available += (available.empty() ? "" : ", ") + n;
  throw InputError("CSV table has no column '" + name + "' (columns: " + available + ")");
}

void write_csv(const std::string& path, const CsvTable& table) {
  check_writable(path, table);
  std::string text;
  for (std::size_t c = 0; c < table.names.size(); ++c) text += (c == 0 ? "" : ",") + table.names[c];
  text += '\n';
  const std::size_t rows = table.columns.empty() ? 0 : table.columns[0].size();
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (c != 0) text += ',';
      text += format_exact(table.columns[c][r]);
    }
    text += '\n';
  }
  write_file_atomically(path, text);
}

CsvTable read_csv(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError("cannot read CSV file '" + path + "': is a directory");
  std::ifstream in(path);
  if (!in) throw InputError("cannot read CSV file '" + path + "': " + std::strerror(errno));
  CsvTable table;
  bool have_header = false;
  int line_number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_number;
    if (is_skipped(line)) continue;
    if (!have_header) {
      read_header(path, line_number, line, table);
      have_header = true;
      table.header_line = line_number;
    } else {
      read_row(path, line_number, line, table);
      table.lines.push_back(line_number);
    }
  }
  if (in.bad()) {
    throw InputError("cannot read CSV file '" + path + "': read error after line " + std::to_string(line_number));
  }
  if (!have_header) throw InputError("CSV file '" + path + "' has no header line (only comments or blank lines)");
  return table;
}

}  // namespace eddy
