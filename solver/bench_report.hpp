// The report of `eddy bench`: one list of rows from which both the text on the terminal and the --json file are
// made, so the two cannot drift apart.
#pragma once

#include <string>
#include <vector>

#include "solver/bench.hpp"

namespace eddy {

/// One value of the report: a JSON member `key` (empty: the text only) and its place in the text line, `format`
/// (a printf format with the words around the value; empty: JSON only). Numbers show `shown` in the text (the
/// value in other units, e.g. GB for bytes), strings and flags show `shown_text`.
struct ReportValue {
  enum class Kind { number, integer, flag, text, numbers } kind = Kind::number;
  std::string key;
  std::string format;
  double number = 0.0, shown = 0.0;
  long long integer = 0;
  bool integer_shown_as_number = false;  ///< the text shows `shown` (e.g. bytes as GiB) instead of the integer
  bool flag = false;
  std::string text, shown_text;
  std::vector<double> numbers;
};

/// One line of the text: its label (padded to 15 columns; empty: the values start the line) and its values in
/// order. A row with `in_text` false goes to the JSON only (e.g. the particle figures of a run without particles).
struct ReportRow {
  std::string label;
  std::vector<ReportValue> values;
  bool in_text = true;
};

/// The rows of a finished bench run `r` with options `o`, in the order of the text (the JSON follows it too).
std::vector<ReportRow> bench_report(const BenchResult& r, const BenchOptions& o);

/// The text of `rows`: each shown row as "  <label padded to 15><values>\n".
std::string report_text(const std::vector<ReportRow>& rows);

/// The JSON object of `rows`: every value with a key, in row order (numbers with 10 significant digits).
std::string report_json(const std::vector<ReportRow>& rows);

}  // namespace eddy
