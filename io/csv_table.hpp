// Small CSV tables: centerline profiles written by cavity runs, and reference data read by validation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace eddy {

/// A table of named numeric columns; columns[c][r] is row r of column c.
struct CsvTable {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
  /// Filled by read_csv: the file line (1-based) of the header and of each row, for messages.
  int header_line = 0;
  std::vector<int> lines;
  /// Column by name; throws InputError naming the file's columns when absent.
  const std::vector<double>& column(const std::string& name) const;
};

/// Writes `table` atomically: a header line of names, then one line per row, values with 17 significant
/// digits. All columns must have equal length (std::invalid_argument otherwise). Throws OutputError.
void write_csv(const std::string& path, const CsvTable& table);

/// Reads a CSV file: lines starting with '#' and blank lines are skipped, the first other line holds the
/// column names, every further line numbers (empty cells read as NaN). Throws InputError (missing file,
/// ragged row, non-numeric cell) naming the file and line.
CsvTable read_csv(const std::string& path);

/// `text` without leading and trailing spaces, tabs and carriage returns (CRLF line ends).
std::string_view trim(std::string_view text);
/// The comma-separated cells of `line`, each trimmed (views into `line`).
std::vector<std::string_view> split_cells(std::string_view line);

}  // namespace eddy
