// io/forces_csv.hpp: the <case>_forces.csv file of a run (and the <case>_probe_<name>.csv files of the probes,
// solver/probes.hpp), written as the samples come: optional '#' comment lines, a header line of column names, then
// one line per sample, every value with 17 significant digits (format_exact, as write_csv), appended
// through a buffer (one write for many samples), and continued by a restarted run without duplicates or gaps.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "io/csv_table.hpp"

namespace eddy {

/// Bytes of rows ForcesCsvFile holds before it writes them (also written at every flush()).
inline constexpr std::size_t kForcesCsvBuffer = std::size_t(1) << 16;

class ForcesCsvFile {
 public:
  /// Opens `path` for a run that starts at step `start`; `names` are the columns, the first "step".
  /// start == 0, or no file at `path`: a new file holding the header (written atomically).
  /// start > 0 and a file of the same header: it is continued. Its rows with step <= start are kept (their text
  /// unchanged; returned as numbers in `kept`, with the names), later rows are dropped (the restarted run writes them
  /// again: restarts are bitwise), and so is a last line without its newline (a write cut short by a crash); the
  /// kept part is rewritten atomically. A file of another header, or one that is not a numeric CSV, is renamed
  /// "<path>.before_step_<start>" (never overwritten), `warning` says so, and a new file is started.
  /// Throws OutputError when the file cannot be written (or renamed).
  /// `comments`: lines written before the header, each starting with "# " and ending with a newline (read_csv skips
  /// them); part of what a continued file must match. `kind` names the file in messages ("forces": "the forces
  /// file ...").
  ForcesCsvFile(std::string path, std::vector<std::string> names, std::int64_t start, CsvTable& kept,
                std::string& warning, const std::string& comments = std::string(), const std::string& kind = "forces");
  /// Writes what is buffered (errors swallowed: use flush() to see them).
  ~ForcesCsvFile();
  ForcesCsvFile(const ForcesCsvFile&) = delete;
  ForcesCsvFile& operator=(const ForcesCsvFile&) = delete;

  /// Adds one row (one value per column); written once kForcesCsvBuffer bytes are waiting, or at flush().
  /// Throws std::invalid_argument for a row of another width, OutputError when a write fails.
  void append(const std::vector<double>& row);
  /// Writes the buffered rows to the file (one write) and flushes the stream. Throws OutputError (a full disk, a
  /// file-size limit), naming the file.
  void flush();
  const std::string& path() const { return path_; }

 private:
  void open_for_append();
  std::string path_;
  std::string kind_;
  std::size_t columns_;
  std::string buffer_;
  std::FILE* file_ = nullptr;
};

}  // namespace eddy
