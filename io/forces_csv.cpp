// ForcesCsvFile (io/forces_csv.hpp): the forces CSV, appended through a buffer and continued after a restart.
#include "io/forces_csv.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "io/atomic_file.hpp"
#include "io/number_format.hpp"
#include "solver/errors.hpp"

namespace eddy {
namespace {

/// The header line of `names`, with its newline.
std::string header_line(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t c = 0; c < names.size(); ++c) text += (c == 0 ? "" : ",") + names[c];
  return text + "\n";
}

/// A cell as a double (the forms format_exact writes: digits, exponents, nan, inf); false for anything else.
bool parse_cell(std::string_view cell, double& value) {
  cell = trim(cell);
  if (!cell.empty() && cell.front() == '+') cell.remove_prefix(1);
  const auto result = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  return !cell.empty() && result.ec == std::errc() && result.ptr == cell.data() + cell.size();
}

/// The rows of the earlier file `text` to keep (step <= start), as text and as numbers. Throws std::runtime_error
/// naming what is wrong when the file is not a forces CSV of `names`.
std::string kept_rows(const std::string& text, const std::string& header, const std::vector<std::string>& names,
                      std::int64_t start, CsvTable& kept, const std::string& kind) {
  if (text.compare(0, header.size(), header) != 0) {
    throw std::runtime_error(kind == "forces" ? "its columns are not those of this case's solids"
                                              : "its header is not that of this run's " + kind);
  }
  kept.names = names;
  kept.columns.assign(names.size(), {});
  std::string rows;
  std::size_t at = header.size();
  int line = 1;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string::npos) break;  // a last line cut short: dropped
    ++line;
    const std::string_view row(text.data() + at, end - at);
    const std::vector<std::string_view> cells = split_cells(row);
    std::vector<double> values(cells.size());
    bool numeric = cells.size() == names.size();
    for (std::size_t c = 0; numeric && c < cells.size(); ++c) numeric = parse_cell(cells[c], values[c]);
    if (!numeric)
      throw std::runtime_error("line " + std::to_string(line) + " is not a row of " + std::to_string(names.size()) +
                               " numbers");
    if (values[0] > double(start)) break;  // rows after the restart's step: written again by this run
    for (std::size_t c = 0; c < values.size(); ++c) kept.columns[c].push_back(values[c]);
    rows.append(text, at, end + 1 - at);
    at = end + 1;
  }
  return rows;
}

}  // namespace

ForcesCsvFile::ForcesCsvFile(std::string path, std::vector<std::string> names, std::int64_t start, CsvTable& kept,
                             std::string& warning, const std::string& comments, const std::string& kind)
    : path_(std::move(path)), kind_(kind), columns_(names.size()) {
  namespace fs = std::filesystem;
  kept = CsvTable{};
  std::error_code ec;
  const std::string header = comments + header_line(names);
  std::string contents = header;
  if (start > 0 && fs::exists(path_, ec)) {
    try {
      std::ifstream in(path_, std::ios::binary);
      if (!in) throw std::runtime_error(std::string("it cannot be read: ") + std::strerror(errno));
      std::stringstream text;
      text << in.rdbuf();
      if (in.bad()) throw std::runtime_error("it cannot be read");
      contents += kept_rows(text.str(), header, names, start, kept, kind_);
    } catch (const std::runtime_error& e) {
      const std::string moved = path_ + ".before_step_" + std::to_string(start);
      if (std::rename(path_.c_str(), moved.c_str()) != 0) {
        throw OutputError("cannot keep the earlier " + kind_ + " file " + path_ + " (" + e.what() +
                          "): renaming it to " + moved + " failed: " + std::strerror(errno));
      }
      kept = CsvTable{};
      contents = header;
      warning = "the " + kind_ + " file " + path_ + " cannot be continued (" + e.what() + "); kept as " + moved;
    }
  }
  write_file_atomically(path_, contents);
  open_for_append();
}

void ForcesCsvFile::open_for_append() {
  file_ = std::fopen(path_.c_str(), "ab");
  if (!file_) throw OutputError("cannot write the " + kind_ + " file '" + path_ + "': " + std::strerror(errno));
}

ForcesCsvFile::~ForcesCsvFile() {
  try {
    flush();
  } catch (...) {  // a destructor must not throw; flush() reports the same error when called
  }
  if (file_) std::fclose(file_);
}

void ForcesCsvFile::append(const std::vector<double>& row) {
  if (row.size() != columns_) {
    throw std::invalid_argument("ForcesCsvFile::append: " + std::to_string(row.size()) + " values for " +
                                std::to_string(columns_) + " columns");
  }
  for (std::size_t c = 0; c < row.size(); ++c) {
    if (c != 0) buffer_ += ',';
    buffer_ += format_exact(row[c]);
  }
  buffer_ += '\n';
  if (buffer_.size() >= kForcesCsvBuffer) flush();
}

void ForcesCsvFile::flush() {
  if (buffer_.empty() || !file_) return;
  errno = 0;
  const std::size_t written = std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  const int error = errno;
  if (written != buffer_.size() || std::fflush(file_) != 0) {
    buffer_.erase(0, written);
    throw OutputError("cannot write the " + kind_ + " file '" + path_ + "': " + std::strerror(error ? error : errno));
  }
  buffer_.clear();
}

}  // namespace eddy
