// io/case_config.cpp: reads a TOML case file into a CaseConfig, applies --set overrides, validates every key and
// fills the derived values (nu, tau, Re, length, report_every, name; with [thermal] kappa, g beta, sub-steps).
//
// Layout, top to bottom:
//   1. formatting helpers and Source (the one place that builds InputError messages: "<file>: <key> = <value> ...");
//   2. the schema (sections and their keys) and the key checker;
//   3. Section: typed getters that report a wrong type, a non-finite number or a bad enum string;
//   4. --set overrides applied to the parsed TOML tree;
//   5. one reader per section (file -> CaseConfig, checks that need the file's own values or units);
//   6. finalize (checks on the plain struct, shared with cases built in code) and the public functions.
//
// toml++ (Debian 12: 3.3.0) is included only here: it does not compile under nvcc. Every key, its units and its
// default are documented in cases/README.md; keep that table in sync with case_file_schema() below.

#include "io/case_config.hpp"

#include "io/output_fields.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <locale>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "io/particle_seed.hpp"

namespace eddy {
namespace {

constexpr double kMachLimit = 0.3;
constexpr double kMaxTemperature = 1e30;
constexpr double kMinUnitsCells = 8.0;          ///< [units]: fewest cells across the characteristic length
constexpr double kMaxUnitsViscosity = 0.5;       ///< [units]: tau <= 2  ///< largest |temperature| ([thermal], float arithmetic)
/// Smallest particle diameter (cells): d^2 stays far from float's underflow in the drag's response time.
constexpr double kMinParticleDiameter = 1e-6;
/// Largest particle count with the all-pairs pair force (count^2 interactions per step).
constexpr std::int64_t kMaxAllPairsParticles = std::int64_t(1) << 20;
/// Input limits (cases/README.md, "Limits"): keep every derived size and scale representable.
constexpr std::int64_t kMaxAxisCells = std::int64_t(1) << 30;  ///< per axis of domain.size
constexpr double kMaxBlockCells = 1099511627776.0;               ///< 2^40: (nx+2)(ny+2)(nz+2), one ghost layer
constexpr double kMaxTau = 1e6;                                  ///< keeps omega = 1/tau away from 0
constexpr double kMinVelocity = 1e-12;                           ///< nonzero U: 1/U stays finite in float
constexpr int kMaxThermalSubsteps = 64;                          ///< explicit scalar sub-steps per LBM step
constexpr int kMaxKeyParts = 64;                                 ///< dot-separated parts of one key or header
constexpr int kMaxTimeBlock = 64;                                ///< numerics.time_block: steps per slab visit
constexpr std::int64_t kMaxSlabs = std::int64_t(1) << 30;        ///< numerics.slabs (also <= nz)
constexpr std::int64_t kMaxDeviceMemory = std::int64_t(1) << 60;  ///< numerics.device_memory_limit, bytes
/// Units of numerics.device_memory_limit and their size in bytes.
constexpr std::array<std::pair<std::string_view, double>, 9> kMemoryUnits = {{{"B", 1.0},
                                                                             {"kB", 1e3},
                                                                             {"MB", 1e6},
                                                                             {"GB", 1e9},
                                                                             {"TB", 1e12},
                                                                             {"KiB", 1024.0},
                                                                             {"MiB", 1048576.0},
                                                                             {"GiB", 1073741824.0},
                                                                             {"TiB", 1099511627776.0}}};
/// The units in messages.
constexpr const char* kMemoryUnitsText =
    "B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. \"8 GiB\", \"512MiB\", \"1.5 GB\"";
constexpr std::uintmax_t kMaxCaseFileBytes = std::uintmax_t(16) << 20;  ///< 16 MiB
constexpr std::array<const char*, 3> kAxisNames = {"x", "y", "z"};
constexpr std::array<const char*, 3> kRankNames = {"px", "py", "pz"};
constexpr std::array<const char*, 3> kSizeNames = {"nx", "ny", "nz"};

// ---- 1. formatting and the error source ----------------------------------------------------------------------------

/// Shortest faithful text of a computed double (up to `digits` significant digits), e.g. 0.5, 0.173205.
std::string fmt(double value, int digits = 10) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

template <class T>
std::string fmt3(const std::array<T, 3>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < 3; ++i) {
    if (i > 0) text += ", ";
    if constexpr (std::is_same_v<T, bool>) {
      text += values[i] ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
      text += fmt(values[i]);
    } else {
      text += std::to_string(values[i]);
    }
  }
  return text + "]";
}

std::string join(const std::vector<std::string_view>& items, std::string_view separator = ", ") {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += separator;
    text += items[i];
  }
  return text;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

/// True when dotted keys `a` and `b` are equal or one is a parent table of the other ("boundary.y_max" and
/// "boundary.y_max.velocity").
bool keys_related(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.substr(0, a.size()) == a && (b.size() == a.size() || b[a.size()] == '.');
}

/// Where the configuration came from: the file (or origin) name, and which keys --set replaced. All InputErrors
/// are built here so that every message starts with the origin and mentions the --set that caused it, if any.
class Source {
 public:
  explicit Source(std::string origin) : origin_(origin.empty() ? std::string("case") : std::move(origin)) {}

  const std::string& origin() const { return origin_; }

  void record_override(std::string key, std::string text) { overrides_.emplace_back(std::move(key), std::move(text)); }
  bool overridden(std::string_view key) const {
    return std::any_of(overrides_.begin(), overrides_.end(), [&](const auto& o) { return o.first == key; });
  }

  /// Throws InputError "<origin>: <message>", noting the latest --set that touched `key` (a dotted key).
  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    std::string text = origin_ + ": " + message;
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
      if (!key.empty() && keys_related(it->first, key)) {
        text += " (from --set " + it->second + ")";
        break;
      }
    }
    throw InputError(blank_control_characters(text));
  }

 private:
  std::string origin_;
  std::vector<std::pair<std::string, std::string>> overrides_;  // dotted key, the full --set text
};

// ---- 2. schema -----------------------------------------------------------------------------------------------------


std::vector<std::string_view> section_names() {
  std::vector<std::string_view> names;
  for (const auto& section : case_file_schema()) names.push_back(section.name);
  return names;
}

const std::vector<std::string_view>& section_keys(std::string_view name) {
  for (const auto& section : case_file_schema()) {
    if (section.name == name) return section.keys;
  }
  static const std::vector<std::string_view> none;
  return none;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// " (did you mean 'x'?)" for the closest allowed name within two edits, else "".
std::string suggestion(std::string_view given, const std::vector<std::string_view>& allowed) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (auto candidate : allowed) {
    const std::size_t distance = edit_distance(given, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + std::string(best) + "'?)";
}

// ---- 3. typed access -----------------------------------------------------------------------------------------------

std::string type_name(const toml::node& node);

/// Shortest text of a double that reads back to the same value (1e-05 style exponents are fine in messages).
std::string float_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  for (int digits = 6; digits < 17; ++digits) {
    const std::string text = fmt(value, digits);
    if (std::strtod(text.c_str(), nullptr) == value) return text;
  }
  return fmt(value, 17);
}

/// One-line TOML-like text of a node for messages: strings in double quotes, arrays as [a, b, c], tables as {...}.
std::string node_text(const toml::node& node) {
  if (const auto* s = node.as_string()) {
    std::string text = "\"";
    for (char ch : s->get()) {
      if (ch == '"' || ch == '\\') text += '\\';
      text += (ch == '\n' || ch == '\r') ? ' ' : ch;
    }
    return text + "\"";
  }
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) return float_text(f->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* array = node.as_array()) {
    std::string text = "[";
    for (std::size_t i = 0; i < array->size(); ++i) text += (i > 0 ? ", " : "") + node_text((*array)[i]);
    return text + "]";
  }
  if (node.is_table()) return "{...}";
  std::ostringstream out;  // dates and times
  node.visit([&](const auto& n) { out << n; });
  return blank_control_characters(out.str());
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::array: {
      const auto& array = *node.as_array();
      std::string text = "an array of " + std::to_string(array.size()) + " elements";
      if (array.empty()) return text;
      text += " (";
      for (std::size_t i = 0; i < array.size(); ++i) {
        std::string element = type_name(array[i]);
        text += (i > 0 ? ", " : "") + element.substr(element.find(' ') + 1);
      }
      return text + ")";
    }
    default:
      return "no value";
  }
}

std::optional<double> as_number(const toml::node& node) {
  if (const auto* i = node.as_integer()) return static_cast<double>(i->get());
  if (const auto* f = node.as_floating_point()) return f->get();
  return std::nullopt;
}
std::optional<std::int64_t> as_integer(const toml::node& node) {
  if (const auto* i = node.as_integer()) return i->get();
  return std::nullopt;
}
std::optional<bool> as_boolean(const toml::node& node) {
  if (const auto* b = node.as_boolean()) return b->get();
  return std::nullopt;
}

/// One table of the case file ([physics], [boundary.y_max], ...), possibly absent, with typed getters. Each getter
/// returns nullopt when the key is absent and throws InputError naming "<section>.<key>" on a wrong type.
class Section {
 public:
  Section(const Source& source, const toml::table* table, std::string name)
      : source_(source), table_(table), name_(std::move(name)) {}

  const Source& source() const { return source_; }
  const std::string& name() const { return name_; }
  const toml::table* table() const { return table_; }
  const toml::node* find(std::string_view key) const { return table_ ? table_->get(key) : nullptr; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::string path(std::string_view key) const { return name_ + "." + std::string(key); }

  /// "<section>.<key> = <value as written>", the start of most messages.
  std::string quote(std::string_view key) const { return path(key) + " = " + node_text(*find(key)); }

  [[noreturn]] void fail(std::string_view key, const std::string& message) const { source_.fail(path(key), message); }

  /// Rejects any key of this table that is not in `allowed`, listing the allowed keys.
  void check_keys(const std::vector<std::string_view>& allowed) const {
    if (!table_) return;
    for (auto&& [key, node] : *table_) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
      fail(key.str(), "unknown key '" + path(key.str()) + "'" + suggestion(key.str(), allowed) + "; allowed keys in [" +
                          name_ + "]: " + join(allowed));
    }
  }

  [[noreturn]] void wrong_type(std::string_view key, std::string_view expected) const {
    fail(key, quote(key) + " has the wrong type (" + type_name(*find(key)) + "): expected " + std::string(expected));
  }

  std::optional<double> number(std::string_view key) const {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto value = as_number(*node);
    if (!value) wrong_type(key, "a number (integer or float)");
    if (!std::isfinite(*value)) fail(key, quote(key) + " is not a finite number");
    return value;
  }

  std::optional<std::int64_t> integer(std::string_view key) const {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto value = as_integer(*node);
    if (!value) wrong_type(key, "an integer (write 100, not 100.0)");
    return value;
  }

  std::optional<bool> boolean(std::string_view key) const {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto value = as_boolean(*node);
    if (!value) wrong_type(key, "a boolean (true or false)");
    return value;
  }

  std::optional<std::string> string(std::string_view key) const {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto* value = node->as_string();
    if (!value) wrong_type(key, "a string (in double quotes)");
    return value->get();
  }

  std::optional<std::array<double, 3>> number3(std::string_view key) const {
    auto values = array3<double>(key, as_number, "an array of 3 numbers [x, y, z]");
    if (values) {
      for (double v : *values) {
        if (!std::isfinite(v)) fail(key, quote(key) + " is not an array of finite numbers");
      }
    }
    return values;
  }
  std::optional<std::array<std::int64_t, 3>> integer3(std::string_view key) const {
    return array3<std::int64_t>(key, as_integer, "an array of 3 integers [x, y, z]");
  }
  std::optional<std::array<bool, 3>> boolean3(std::string_view key) const {
    return array3<bool>(key, as_boolean, "an array of 3 booleans [x, y, z]");
  }

  /// A string that must be one of `choices` (string, value).
  template <class E>
  std::optional<E> choice(std::string_view key, const std::vector<std::pair<std::string_view, E>>& choices) const {
    const auto text = string(key);
    if (!text) return std::nullopt;
    std::vector<std::string_view> allowed;
    for (const auto& [name, value] : choices) {
      if (name == *text) return value;
      allowed.push_back(name);
    }
    std::string list;
    for (auto name : allowed) list += (list.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    fail(key, quote(key) + " is not allowed" + suggestion(*text, allowed) + ": allowed values are " + list);
  }

 private:
  template <class T, class Convert>
  std::optional<std::array<T, 3>> array3(std::string_view key, Convert convert, std::string_view expected) const {
    const toml::node* node = find(key);
    if (!node) return std::nullopt;
    const auto* array = node->as_array();
    if (!array || array->size() != 3) wrong_type(key, expected);
    std::array<T, 3> values{};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto value = convert((*array)[i]);
      if (!value) wrong_type(key, expected);
      values[i] = *value;
    }
    return values;
  }

  const Source& source_;
  const toml::table* table_;
  std::string name_;
};

/// The table `key` inside `parent` (e.g. [boundary.y_max] inside [boundary]), possibly absent; a non-table is a type
/// error.
Section sub_section(const Section& parent, std::string_view key) {
  const toml::node* node = parent.find(key);
  if (node && !node->is_table()) parent.wrong_type(key, "a table ([" + parent.path(key) + "] with its keys)");
  return Section(parent.source(), node ? node->as_table() : nullptr, parent.path(key));
}

/// The top-level table [name], possibly absent; a non-table is a type error.
Section top_section(const Source& source, const toml::table& root, std::string_view name) {
  const toml::node* node = root.get(name);
  if (node && !node->is_table()) {
    source.fail(name, std::string(name) + " = " + node_text(*node) + " has the wrong type (" + type_name(*node) +
                          "): expected a table [" + std::string(name) + "]");
  }
  return Section(source, node ? node->as_table() : nullptr, std::string(name));
}

/// Rejects unknown top-level names and sections that are not tables; a key that belongs in a section ("steps") gets
/// a hint ("run.steps").
void check_top_level(const Source& source, const toml::table& root) {
  const auto names = section_names();
  for (auto&& [key, node] : root) {
    if (std::find(names.begin(), names.end(), key.str()) != names.end()) {
      top_section(source, root, key.str());  // throws unless a table
      continue;
    }
    std::string hint = suggestion(key.str(), names);
    for (const auto& section : case_file_schema()) {
      if (std::find(section.keys.begin(), section.keys.end(), key.str()) != section.keys.end()) {
        hint = " (did you mean '" + std::string(section.name) + "." + std::string(key.str()) + "' under [" +
               std::string(section.name) + "]?)";
      }
    }
    source.fail(key.str(), "unknown section or top-level key '" + std::string(key.str()) + "'" + hint +
                               "; allowed sections: " + join(names));
  }
}

// ---- 4. key nesting and --set overrides ----------------------------------------------------------------------------

/// The line of the first key or table header with more than kMaxKeyParts dot-separated parts, if any.
/// toml++ nests one table per part recursively, so tens of thousands of parts ([a.a.a...]) overflow its stack: this
/// scan runs before toml::parse. It follows just enough TOML to know where keys are: table headers [..] / [[..]],
/// the key before '=' at the start of a line and the keys inside inline tables {..}. Quoted strings (all four kinds,
/// multi-line too) and comments are skipped, so dots inside quoted keys and in values do not count.
std::optional<std::size_t> deep_key_line(std::string_view text) {
  enum class Mode { line_start, key, header, value };
  Mode mode = Mode::line_start;
  std::vector<char> nesting;  // the open '[' and '{' of the current value
  std::size_t line = 1;
  std::size_t key_line = 1;
  int dots = 0;
  const auto start_key = [&](Mode key_mode) {
    mode = key_mode;
    dots = 0;
    key_line = line;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char ch = text[i];
    if (ch == '\n') {
      ++line;
      ++i;
      if (nesting.empty()) mode = Mode::line_start;  // a multi-line array continues its value
      continue;
    }
    if (ch == '#') {  // a comment, up to the end of the line
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (ch == '"' || ch == '\'') {  // a string value or a quoted key part: its dots do not count
      if (mode == Mode::line_start) start_key(Mode::key);
      const bool basic = ch == '"';
      const std::string_view triple = basic ? "\"\"\"" : "'''";
      const bool multi_line = text.substr(i, 3) == triple;
      i += multi_line ? 3 : 1;
      while (i < text.size()) {
        if (basic && text[i] == '\\' && i + 1 < text.size() && (multi_line || text[i + 1] != '\n')) {
          if (text[i + 1] == '\n') ++line;  // a line-ending backslash of a multi-line string
          i += 2;
          continue;
        }
        if (text[i] == '\n') {
          if (!multi_line) break;  // unterminated: toml++ reports it
          ++line;
        }
        if (multi_line ? text.substr(i, 3) == triple : text[i] == ch) {
          i += multi_line ? 3 : 1;
          break;
        }
        ++i;
      }
      continue;
    }
    ++i;
    switch (mode) {
      case Mode::line_start:
        if (ch == '[') {
          if (i < text.size() && text[i] == '[') ++i;  // [[array.of.tables]]
          start_key(Mode::header);
        } else if (ch != ' ' && ch != '\t' && ch != '\r') {
          start_key(Mode::key);
          --i;  // read the key's first character again, in key mode
        }
        break;
      case Mode::key:
      case Mode::header:
        if (ch == '.') {
          if (++dots >= kMaxKeyParts) return key_line;
        } else if (mode == Mode::key && ch == '=') {
          mode = Mode::value;
        } else if (mode == Mode::header && ch == ']') {
          mode = Mode::value;  // the rest of the header line holds no key
        } else if (mode == Mode::key && ch == '}' && !nesting.empty()) {
          nesting.pop_back();  // an empty inline table {}
          mode = Mode::value;
        }
        break;
      case Mode::value:
        if (ch == '[' || ch == '{') {
          nesting.push_back(ch);
          if (ch == '{') start_key(Mode::key);
        } else if ((ch == ']' || ch == '}') && !nesting.empty()) {
          nesting.pop_back();
        } else if (ch == ',' && !nesting.empty() && nesting.back() == '{') {
          start_key(Mode::key);
        }
        break;
    }
  }
  return std::nullopt;
}

/// Throws "<origin>:<line>: key nesting deeper than 64 levels" for a key or header of more than 64 parts.
void check_key_nesting(std::string_view text, const std::string& origin) {
  if (const auto line = deep_key_line(text)) {
    throw InputError(blank_control_characters(origin + ":" + std::to_string(*line) + ": key nesting deeper than " +
                              std::to_string(kMaxKeyParts) + " levels (a key or table header may have at most " +
                              std::to_string(kMaxKeyParts) + " dot-separated parts)"));
  }
}

/// Where unsafe_non_ascii found a non-ASCII character that toml++ must not see.
struct NonAscii {
  std::size_t line;
  bool after_backslash;  ///< in a multi-line basic string (else: outside strings and comments)
};

/// The first non-ASCII character that toml++ would test for Unicode whitespace, if any: one outside strings and
/// comments (never valid TOML: bare keys, numbers, booleans and dates are ASCII), or in a multi-line basic string the
/// first character after a backslash and any spaces, tabs and line breaks that follow it (a line-ending backslash).
/// toml++ 3.3.0 (Debian 12) reaches __builtin_unreachable there for most code points in U+00A1..U+0499,
/// U+2C5E..U+3057 and U+FB26..U+FEFE (undefined behaviour, found by tests/fuzz; upstream issues marzer/tomlplusplus
/// #190 and #295), so this scan runs before toml::parse. Like deep_key_line it follows just enough TOML to know where
/// strings are: one starts at a quote where a key part or a value may start, not inside a bare value (a number,
/// boolean or date), which toml++ reads up to a value terminator (whitespace, ']', '}', ',', '#') quotes and all.
std::optional<NonAscii> unsafe_non_ascii(std::string_view text) {
  const auto non_ascii = [&](std::size_t at) {
    return at < text.size() && static_cast<unsigned char>(text[at]) >= 0x80;
  };
  const auto one_of = [](std::string_view set, char ch) { return set.find(ch) != std::string_view::npos; };
  std::size_t line = 1;
  std::size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // a UTF-8 byte order mark, which toml++ skips
  std::vector<char> nesting;  // the open '[' and '{' of the current value
  bool value = false;         // after '=' or in an array, else in a key or table header
  bool bare = false;          // inside a bare value
  char previous = '\n';       // the last character outside strings
  while (i < text.size()) {
    const char ch = text[i];
    if (non_ascii(i)) return NonAscii{line, false};
    if (ch == '#') {  // a comment, up to the end of the line
      while (i < text.size() && text[i] != '\n') ++i;
      bare = false;
      continue;
    }
    const bool quote = ch == '"' || ch == '\'';
    if (quote && !bare && (value || one_of(" \t\r\n.[{,", previous))) {  // a string (value or quoted key part)
      previous = ch;
      const bool basic = ch == '"';
      const std::string_view triple = basic ? "\"\"\"" : "'''";
      const bool multi_line = text.substr(i, 3) == triple;
      i += multi_line ? 3 : 1;
      while (i < text.size()) {
        if (basic && text[i] == '\\') {
          ++i;
          if (multi_line && non_ascii(i)) return NonAscii{line, true};  // toml++ tests it for whitespace too
          if (multi_line && i < text.size() && one_of(" \t\r\n", text[i])) {
            // A line-ending backslash: toml++ tests the characters after it while it skips whitespace.
            while (i < text.size() && one_of(" \t\r\n", text[i])) line += text[i++] == '\n';
            if (non_ascii(i)) return NonAscii{line, true};
            continue;
          }
          if (i < text.size() && text[i] != '\n') ++i;  // the escaped character
          continue;
        }
        if (text[i] == '\n') {
          if (!multi_line) break;  // unterminated: toml++ reports it
          ++line;
        } else if (text[i] == ch && (!multi_line || text.substr(i, 3) == triple)) {
          std::size_t quotes = 1;  // """a""""" is a"": up to two more quotes before the closing three belong to it
          while (multi_line && quotes < 5 && i + quotes < text.size() && text[i + quotes] == ch) ++quotes;
          i += quotes;
          break;
        }
        ++i;
      }
      continue;
    }
    previous = ch;
    ++i;
    if (bare && !one_of(" \t\n\v\f\r]},", ch)) continue;
    bare = false;
    if (ch == '\n') {
      ++line;
      if (nesting.empty()) value = false;  // a multi-line array continues its value
    } else if (!value) {
      if (ch == '=') value = true;
      if (ch == '}' && !nesting.empty()) {  // {}
        nesting.pop_back();
        value = true;
      }
    } else if (ch == '[' || ch == '{') {
      nesting.push_back(ch);
      value = ch == '[';
    } else if ((ch == ']' || ch == '}') && !nesting.empty()) {
      nesting.pop_back();
    } else if (ch == ',' && !nesting.empty()) {
      value = nesting.back() == '[';
    } else if (!one_of(" \t\v\f\r]},", ch)) {
      bare = true;
    }
  }
  return std::nullopt;
}

/// Why unsafe_non_ascii refuses the text, for messages.
std::string non_ascii_problem(const NonAscii& found) {
  return found.after_backslash
             ? "non-ASCII character after a backslash in a multi-line string is not supported (the TOML reader "
               "mishandles it): write the character as an escape, e.g. \\u00e9 for e-acute"
             : "non-ASCII character outside a quoted string or comment: TOML keys, numbers, booleans and dates are "
               "ASCII (text with other characters goes in double quotes)";
}

/// Throws "<origin>:<line>: non-ASCII character ..." for text that unsafe_non_ascii refuses.
void check_non_ascii(std::string_view text, const std::string& origin) {
  if (const auto found = unsafe_non_ascii(text)) {
    throw InputError(blank_control_characters(origin + ":" + std::to_string(found->line) + ": " + non_ascii_problem(*found)));
  }
}

/// `text` cut to about 80 characters for messages (a --set may be arbitrarily long).
std::string abbreviated(const std::string& text) {
  return text.size() <= 80 ? text : text.substr(0, 60) + "... (" + std::to_string(text.size()) + " characters)";
}

[[noreturn]] void bad_override(const Source& source, const std::string& text, const std::string& why) {
  source.fail("", "bad --set '" + text + "': " + why);
}

std::vector<std::string> split_override_key(const Source& source, const std::string& text, const std::string& key) {
  std::vector<std::string> path;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    const std::string segment = trim(std::string_view(key).substr(start, dot == std::string::npos ? dot : dot - start));
    const bool bare = !segment.empty() && std::all_of(segment.begin(), segment.end(), [](unsigned char ch) {
      return std::isalnum(ch) || ch == '_' || ch == '-';
    });
    if (!bare) {
      bad_override(source, text,
                   segment.empty() ? "the key has an empty part; expected SECTION.KEY=VALUE, e.g. run.steps=100"
                                   : "key part '" + segment + "' may only contain letters, digits, '_' and '-'");
    }
    path.push_back(segment);
    if (dot == std::string::npos) return path;
    start = dot + 1;
  }
}

/// An override that fixes one quantity replaces the file's keys that fix the same quantity, so that e.g.
/// `--set physics.reynolds=400` works on a case that gives tau, and `--set boundary.y_max.type="wall"` on a lid
/// (its temperature stays: any wall may have one). Keys set by an earlier --set are kept (two conflicting --set are
/// reported by validation).
void drop_superseded(toml::table& parent, const std::vector<std::string>& path, const toml::node& value,
                     const Source& source) {
  const auto drop = [&](std::string_view key) {
    std::string dotted;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) dotted += path[i] + ".";
    if (!source.overridden(dotted + std::string(key))) parent.erase(key);
  };
  if (path.size() == 2 && path[0] == "physics") {
    const std::vector<std::string_view> viscosity_keys = {"reynolds", "tau", "viscosity"};
    if (std::find(viscosity_keys.begin(), viscosity_keys.end(), path[1]) != viscosity_keys.end()) {
      for (auto key : viscosity_keys) {
        if (key != path[1]) drop(key);
      }
    }
  }
  if (path.size() == 3 && path[0] == "boundary" && path[2] == "type" && value.value<std::string>() == "wall") {
    drop("velocity");
  }
  // [units]: the SI length and the cell size fix the same thing.
  if (path.size() == 2 && path[0] == "units") {
    if (path[1] == "dx") drop("length");
    if (path[1] == "length") drop("dx");
  }
  // [numerics]: out_of_core = false drops the file's keys that only out-of-core runs use.
  if (path.size() == 2 && path[0] == "numerics" && path[1] == "out_of_core" && value.value<bool>() == false) {
    for (std::string_view key : {"device_memory_limit", "time_block", "slabs"}) drop(key);
  }
  // [particles]: random seeding (count, with seed, box_min, box_max) and a positions file exclude each other.
  if (path.size() == 2 && path[0] == "particles") {
    if (path[1] == "count") drop("positions");
    if (path[1] == "positions") {
      for (std::string_view key : {"count", "seed", "box_min", "box_max"}) drop(key);
    }
    // Switching a feature off drops the file's keys that only that feature uses.
    if (path[1] == "contacts" && value.value<bool>() == false) {
      for (std::string_view key : {"contact_stiffness", "contact_damping", "contact_search"}) drop(key);
    }
    if (path[1] == "pair_force" && value.value<std::string>() == "none") {
      for (std::string_view key : {"gravity_constant", "softening"}) drop(key);
    }
    if (path[1] == "kind" && value.value<std::string>() == "tracer") {
      for (std::string_view key : {"density", "gravity", "two_way", "contacts", "contact_stiffness", "contact_damping",
                                   "contact_search", "pair_force", "gravity_constant", "softening"}) {
        drop(key);
      }
    }
  }
}

/// `--set domain.periodic=[...]` replaces the file's [boundary.<face>] tables on the axes it makes periodic.
void drop_boundaries_on_periodic_axes(toml::table& root, const std::vector<std::string>& path, const toml::node& value,
                                      const Source& source) {
  const auto* periodic = value.as_array();
  auto* boundary = root["boundary"].as_table();
  if (path != std::vector<std::string>{"domain", "periodic"} || !periodic || !boundary) return;
  for (std::size_t axis = 0; axis < 3 && axis < periodic->size(); ++axis) {
    if ((*periodic)[axis].value<bool>() != true) continue;
    for (std::size_t side = 0; side < 2; ++side) {
      const std::string face = kFaceNames[2 * axis + side];
      bool overridden = false;
      for (const std::string& key :
           {"boundary." + face, "boundary." + face + ".type", "boundary." + face + ".velocity",
            "boundary." + face + ".temperature"}) {
        overridden = overridden || source.overridden(key);
      }
      if (!overridden) boundary->erase(face);
    }
  }
}

/// Applies one "section.key=value" override to the parsed tree (creating missing tables).
void apply_override(toml::table& root, const std::string& text, Source& source) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) bad_override(source, text, "expected KEY=VALUE, e.g. run.steps=100");
  const std::string key = trim(std::string_view(text).substr(0, equals));
  const std::string value = trim(std::string_view(text).substr(equals + 1));
  if (key.empty()) bad_override(source, text, "the key is empty; expected SECTION.KEY=VALUE, e.g. run.steps=100");
  const std::vector<std::string> path = split_override_key(source, text, key);
  if (path.size() > std::size_t(kMaxKeyParts)) {
    bad_override(source, abbreviated(text),
                 "key nesting deeper than " + std::to_string(kMaxKeyParts) + " levels (the key has " +
                     std::to_string(path.size()) + " dot-separated parts)");
  }
  const std::string quoting_hint =
      "values are written as in TOML: strings need quotes, e.g. --set 'output.directory=\"out\"'";
  if (value.empty()) bad_override(source, text, "the value is empty; " + quoting_hint);

  const std::string value_text = "v = " + value + "\n";
  if (deep_key_line(value_text)) {  // e.g. an inline table {a.a.a... = 1}
    bad_override(source, abbreviated(text),
                 "key nesting deeper than " + std::to_string(kMaxKeyParts) + " levels in the value");
  }
  if (const auto found = unsafe_non_ascii(value_text)) bad_override(source, text, non_ascii_problem(*found));
  toml::table parsed;
  try {
    parsed = toml::parse(value_text, std::string_view("--set"));
  } catch (const toml::parse_error& e) {
    bad_override(source, text,
                 "'" + value + "' is not a TOML value (" + std::string(e.description()) + "); " + quoting_hint);
  }
  if (parsed.size() != 1 || !parsed.contains("v")) bad_override(source, text, "expected a single TOML value");

  toml::table* table = &root;
  std::string dotted;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    dotted += (i > 0 ? "." : "") + path[i];
    toml::node* node = table->get(path[i]);
    if (!node) {
      table->insert(path[i], toml::table{});
      node = table->get(path[i]);
    }
    table = node->as_table();
    if (!table) bad_override(source, text, "'" + dotted + "' is " + type_name(*node) + ", not a table");
  }
  toml::node& new_value = *parsed.get("v");
  drop_superseded(*table, path, new_value, source);
  drop_boundaries_on_periodic_axes(root, path, new_value, source);
  new_value.visit([&](auto& v) { table->insert_or_assign(path.back(), std::move(v)); });
  source.record_override(key, text);
}

// ---- 5. section readers (file values and units -> CaseConfig) ------------------------------------------------------

int face_axis(int face) { return face / 2; }

void read_case_section(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("case"));
  if (const auto name = section.string("name")) {
    const bool ok = !name->empty() && *name != "." && *name != ".." &&
                    std::all_of(name->begin(), name->end(), [](unsigned char ch) {
                      return std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
                    });
    if (!ok) {
      section.fail("name", section.quote("name") +
                               " is not allowed: the name is used in output file names; use letters, digits, '_', "
                               "'-' and '.' (non-empty)");
    }
    config.name = *name;
  }
}

void read_domain(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("domain"));
  const auto size = section.integer3("size");
  if (!size) section.fail("size", "missing required key 'domain.size' (fluid cells [nx, ny, nz], e.g. [128, 128, 1])");
  for (std::int64_t n : *size) {
    if (n < 1 || n > kMaxAxisCells) {
      section.fail("size", section.quote("size") +
                               " is out of range: each of nx, ny, nz must be an integer >= 1 (and <= " +
                               std::to_string(kMaxAxisCells) + " = 2^30)");
    }
  }
  const auto periodic = section.boolean3("periodic").value_or(std::array<bool, 3>{false, false, false});
  for (int axis = 0; axis < 3; ++axis) {
    config.size[axis] = static_cast<int>((*size)[axis]);
    const FaceKind kind = periodic[axis] ? FaceKind::periodic : FaceKind::wall;
    config.faces[2 * axis] = FaceBoundary{kind, {0.0, 0.0, 0.0}};
    config.faces[2 * axis + 1] = FaceBoundary{kind, {0.0, 0.0, 0.0}};
  }
}

/// Reads [physics]; exactly one of reynolds / tau / viscosity, or, with [thermal] and Ra > 0 (read before), none:
/// then physics.velocity is the free-fall velocity. finalize derives the rest.
void read_physics(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("physics"));
  config.velocity = section.number("velocity").value_or(0.0);
  if (config.velocity < 0) {
    section.fail("velocity", section.quote("velocity") +
                                 " is out of range: velocity must be >= 0 (a speed in lattice units; directions are "
                                 "set by boundary.<face>.velocity)");
  }
  if (const auto length = section.number("length")) {
    if (*length <= 0) section.fail("length", section.quote("length") + " is out of range: length must be > 0 (cells)");
    config.length = *length;
  }
  if (config.units.enabled) {  // [units] fixes U and nu in SI
    for (std::string_view key : {"velocity", "reynolds", "tau", "viscosity"}) {
      if (!section.has(key)) continue;
      section.fail(key, section.path(key) +
                            " is not used with [units]: the SI velocity and viscosity there fix it (lattice U = "
                            "units.lattice_velocity, nu = units.viscosity dt / dx^2); remove " + section.path(key));
    }
    config.velocity = config.units.lattice_velocity;  // wall velocities are in units of it
    config.body_force = section.number3("body_force").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
    return;
  }

  std::vector<std::string_view> given;
  for (std::string_view key : {"reynolds", "tau", "viscosity"}) {
    if (section.has(key)) given.push_back(key);
  }
  const ThermalConfig& thermal = config.thermal;
  const bool free_fall = thermal.enabled && thermal.rayleigh > 0;
  if (given.empty() && free_fall && !(config.velocity > 0)) {
    section.fail("velocity",
                 (section.has("velocity") ? section.quote("velocity") + " is out of range"
                                          : std::string("missing key 'physics.velocity'")) +
                     ": with thermal.rayleigh > 0 and none of reynolds, tau, viscosity, physics.velocity is the "
                     "free-fall velocity U = sqrt(g beta dT L) that sets Ma and fixes nu = U L sqrt(Pr / Ra); give "
                     "physics.velocity > 0 (e.g. 0.05), or one of reynolds, tau, viscosity");
  }
  if (given.empty() && !free_fall) {
    section.fail("reynolds",
                 "missing key: [physics] needs exactly one of reynolds, tau, viscosity (each fixes the viscosity: "
                 "nu = (tau - 1/2)/3 = U L / Re)" +
                     std::string(thermal.enabled ? "; or, with [thermal], none of them and thermal.rayleigh > 0: then "
                                                   "physics.velocity is the free-fall velocity and nu = U L sqrt(Pr "
                                                   "/ Ra) (thermal.rayleigh is 0 here)"
                                                 : ""));
  }
  if (given.size() > 1) {
    section.fail(given[1],
                 "physics." + join(given, " and physics.") +
                     " are given together: give exactly one of reynolds, tau, viscosity (each fixes the viscosity "
                     "nu = (tau - 1/2)/3 = U L / Re)");
  }
  if (const auto reynolds = section.number("reynolds")) {
    if (*reynolds <= 0) section.fail("reynolds", section.quote("reynolds") + " is out of range: reynolds must be > 0");
    config.reynolds = *reynolds;
  }
  if (const auto viscosity = section.number("viscosity")) {
    if (*viscosity <= 0) {
      section.fail("viscosity", section.quote("viscosity") +
                                    " is out of range: viscosity must be > 0 (lattice units, nu = (tau - 1/2)/3)");
    }
    config.nu = *viscosity;
  }
  if (const auto tau = section.number("tau")) {
    if (*tau <= 0.5) {
      section.fail("tau", section.quote("tau") +
                              " is out of range: tau must be > 0.5 (nu = (tau - 1/2)/3 must be positive); raise tau");
    }
    config.tau = *tau;
  }
  config.body_force = section.number3("body_force").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
}

/// Reads [boundary.<face>]; needs the domain (periodic axes) and physics.velocity (wall velocities are in units of U).
/// `temperature` makes the face a fixed-temperature wall (ThermalConfig::walls); faces without it are adiabatic.
void read_boundary(const Section& boundary, CaseConfig& config) {
  boundary.check_keys(section_keys("boundary"));
  for (int face = 0; face < 6; ++face) {
    const Section section = sub_section(boundary, kFaceNames[face]);
    if (!section.table()) continue;
    section.check_keys(boundary_face_keys());
    const int axis = face_axis(face);
    if (config.faces[face].kind == FaceKind::periodic) {
      boundary.fail(kFaceNames[face], "[" + section.name() + "] is given but the " + kAxisNames[axis] +
                                          " axis is periodic (domain.periodic); remove [" + section.name() +
                                          "] or make " + kAxisNames[axis] + " non-periodic");
    }
    const FaceKind kind =
        section.choice<FaceKind>("type", {{"wall", FaceKind::wall}, {"moving_wall", FaceKind::moving_wall}})
            .value_or(FaceKind::wall);
    const auto velocity = section.number3("velocity");
    if (kind == FaceKind::wall && velocity) {
      section.fail("velocity", section.path("velocity") +
                                   " is only allowed with type = \"moving_wall\" (this face is a resting wall)");
    }
    if (kind == FaceKind::moving_wall && !velocity) {
      section.fail("velocity", "missing key '" + section.path("velocity") +
                                   "': type = \"moving_wall\" needs velocity = [vx, vy, vz] (in units of "
                                   "physics.velocity)");
    }
    // temperature: any wall face; without [thermal] finalize refuses it (naming the key).
    if (const auto temperature = section.number("temperature")) {
      config.thermal.walls[face] = ThermalWall::fixed;
      config.thermal.wall_temperature[face] = *temperature;
    }
    FaceBoundary result{kind, {0.0, 0.0, 0.0}};
    if (velocity) {
      if ((*velocity)[axis] != 0.0) {
        section.fail("velocity", section.quote("velocity") + " is not tangential: the " + kAxisNames[axis] +
                                     " component (normal to face " + kFaceNames[face] + ") must be 0");
      }
      const bool moves = (*velocity)[0] != 0.0 || (*velocity)[1] != 0.0 || (*velocity)[2] != 0.0;
      if (moves && config.velocity == 0.0) {
        section.fail("velocity", section.quote("velocity") +
                                     " is in units of physics.velocity, which is 0: set physics.velocity > 0 (the "
                                     "wall speed in lattice units)");
      }
      for (int i = 0; i < 3; ++i) result.velocity[i] = (*velocity)[i] * config.velocity;
    }
    config.faces[face] = result;
  }
}

void read_initial(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("initial"));
  config.initial.kind = section
                            .choice<InitialKind>("type", {{"rest", InitialKind::rest},
                                                          {"taylor_green_2d", InitialKind::taylor_green_2d},
                                                          {"taylor_green_3d", InitialKind::taylor_green_3d}})
                            .value_or(InitialKind::rest);
  const auto amplitude = section.number("amplitude");
  if (amplitude && config.initial.kind == InitialKind::rest) {
    section.fail("amplitude", section.path("amplitude") +
                                  " is only used by type = \"taylor_green_2d\" or "
                                  "\"taylor_green_3d\" (type is \"rest\")");
  }
  if (amplitude && *amplitude == 0.0) {
    section.fail("amplitude",
                 section.quote("amplitude") + " must be non-zero (for a fluid at rest use initial.type = \"rest\")");
  }
  if (config.initial.kind != InitialKind::rest) {
    config.initial.amplitude = amplitude.value_or(1.0) * config.velocity;  // lattice units: A * U
  }
}

/// numerics.out_of_core: true, false or "auto" (absent: "auto").
OutOfCoreMode read_out_of_core_mode(const Section& section) {
  const toml::node* node = section.find("out_of_core");
  if (!node) return OutOfCoreMode::automatic;
  if (const auto on = as_boolean(*node)) return *on ? OutOfCoreMode::on : OutOfCoreMode::off;
  const auto* text = node->as_string();
  if (!text) section.wrong_type("out_of_core", "a boolean (true or false) or the string \"auto\"");
  if (text->get() == "auto") return OutOfCoreMode::automatic;
  section.fail("out_of_core", section.quote("out_of_core") + " is not allowed" +
                                  suggestion(text->get(), {"auto", "true", "false"}) +
                                  ": allowed values are true, false, \"auto\" (true and false without quotes)");
}

/// The bytes of a "<number> <unit>" text ("8 GiB", "512MiB", "1.5 GB"; the space is optional), before rounding, or
/// nullopt when the text is not of that form. The number is decimal digits with an optional fraction.
std::optional<double> parse_memory_size(std::string_view text) {
  const std::string trimmed = trim(text);
  std::size_t end = 0;
  while (end < trimmed.size() && (std::isdigit(static_cast<unsigned char>(trimmed[end])) || trimmed[end] == '.')) {
    ++end;
  }
  const std::string number = trimmed.substr(0, end);
  const auto digits = std::count_if(number.begin(), number.end(), [](unsigned char ch) { return std::isdigit(ch); });
  if (digits == 0 || std::count(number.begin(), number.end(), '.') > 1) return std::nullopt;
  const std::string unit = trim(std::string_view(trimmed).substr(end));
  for (const auto& [name, bytes] : kMemoryUnits) {
    if (unit != name) continue;
    // Locale-independent: the text is digits and at most one '.', so istringstream in the classic locale reads it all.
    std::istringstream in(number);
    in.imbue(std::locale::classic());
    double value = 0.0;
    in >> value;
    if (!in) return std::nullopt;
    return value * bytes;
  }
  return std::nullopt;
}

/// numerics.device_memory_limit: a "<number> <unit>" string or an integer number of bytes, in 1..2^60 bytes after
/// rounding to whole bytes.
std::int64_t read_device_memory_limit(const Section& section) {
  constexpr std::string_view key = "device_memory_limit";
  const toml::node& node = *section.find(key);
  const std::string range = " is out of range: device_memory_limit must be > 0 and at most 2^60 = " +
                            std::to_string(kMaxDeviceMemory) + " bytes (the device memory the slab buffers may take)";
  if (const auto bytes = as_integer(node)) {
    if (*bytes < 1 || *bytes > kMaxDeviceMemory) section.fail(key, section.quote(key) + range);
    return *bytes;
  }
  const auto* text = node.as_string();
  if (!text) {
    section.wrong_type(key, std::string("a string \"<number> <unit>\" with unit ") + kMemoryUnitsText +
                                "; or an integer number of bytes");
  }
  const auto bytes = parse_memory_size(text->get());
  if (!bytes) {
    section.fail(key, section.quote(key) + " is not a memory size: write \"<number> <unit>\" with unit " +
                          kMemoryUnitsText + "; or an integer number of bytes");
  }
  const double rounded = std::round(*bytes);
  if (!(rounded >= 1.0 && rounded <= double(kMaxDeviceMemory))) section.fail(key, section.quote(key) + range);
  return static_cast<std::int64_t>(rounded);
}

/// An integer key of [numerics] in 1..`max` (`what` says what it counts, for the message).
int read_numerics_count(const Section& section, std::string_view key, std::int64_t max, const std::string& what) {
  const std::int64_t value = *section.integer(key);
  if (value < 1 || value > max) {
    section.fail(key, section.quote(key) + " is out of range: " + std::string(key) + " must be an integer in 1.." +
                          std::to_string(max) + " (" + what + "; leave it out to choose it from the device memory)");
  }
  return static_cast<int>(value);
}

void read_numerics(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("numerics"));
  config.collision = section.choice<Collision>("collision", {{"trt", Collision::trt}, {"bgk", Collision::bgk}})
                         .value_or(Collision::trt);
  config.magic = section.number("magic").value_or(3.0 / 16.0);
  config.min_tau = section.number("min_tau").value_or(config.min_tau);
  config.precision = section
                         .choice<Precision>("storage", {{"float", Precision::float32},
                                                        {"fp16", Precision::float16},
                                                        {"double", Precision::float64}})
                         .value_or(Precision::float32);
  // Out-of-core: the cross-key checks (mode off, [particles], [thermal], fields, slabs against nz, ranks) are in
  // finalize_out_of_core, shared with structs built in code.
  OutOfCoreConfig& ooc = config.out_of_core;
  ooc.mode = read_out_of_core_mode(section);
  if (section.has("device_memory_limit")) ooc.device_memory_limit = read_device_memory_limit(section);
  if (section.has("time_block")) {
    ooc.time_block = read_numerics_count(section, "time_block", kMaxTimeBlock, "time steps per slab visit");
  }
  if (section.has("slabs")) ooc.slabs = read_numerics_count(section, "slabs", kMaxSlabs, "z-slabs per block");
}

void read_run(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("run"));
  const auto steps = section.integer("steps");
  if (!steps) section.fail("steps", "missing required key 'run.steps' (time steps to run, an integer >= 0)");
  config.steps = *steps;
  if (const auto every = section.integer("report_every")) {
    if (*every < 1) {
      section.fail("report_every", section.quote("report_every") + " is out of range: report_every must be >= 1");
    }
    config.report_every = *every;
  }
}

void read_output(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("output"));
  config.output_every = section.integer("every").value_or(0);
  config.output_directory = section.string("directory").value_or("output");
  config.write_vtk = section.boolean("vtk").value_or(true);
  config.write_centerlines = section.boolean("centerlines").value_or(false);
  if (section.has("fields")) {
    const toml::array* list = section.find("fields")->as_array();
    if (!list) section.wrong_type("fields", "a non-empty array of field names");
    if (list->empty()) section.fail("fields", "output.fields = [] lists no field: name at least one of " +
                                                  join(output_field_names()));
    std::vector<std::string> fields;
    for (const toml::node& item : *list) {
      const auto* name = item.as_string();
      if (!name) section.wrong_type("fields", "an array of strings (field names in double quotes)");
      const std::string field = name->get();
      if (!find_output_field(field)) {
        section.fail("fields", section.quote("fields") + ": '" + field + "' is not an output field" +
                                   suggestion(field, output_field_names()) +
                                   "; allowed: " + join(output_field_names()));
      }
      if (std::find(fields.begin(), fields.end(), field) != fields.end()) {
        section.fail("fields", section.quote("fields") + ": '" + field + "' is listed twice");
      }
      fields.push_back(field);
    }
    config.output_fields = fields;
  }
}

void read_checkpoint(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("checkpoint"));
  config.checkpoint_every = section.integer("every").value_or(0);
  config.checkpoint_directory = section.string("directory").value_or("");
  if (section.has("directory") && config.checkpoint_directory.empty()) {
    section.fail("directory", "checkpoint.directory = \"\" is not allowed: give a path, or leave the key out for "
                              "<output directory>/checkpoints");
  }
}

/// "" when every nonzero entry of `ranks` fits its axis of `size`, else why not ("pz = 2 exceeds nz = 1 ...").
/// Shared by the file reader and finalize (0 = automatic is rejected earlier by the reader).
std::string ranks_too_large(const std::array<std::int64_t, 3>& ranks, const std::array<int, 3>& size) {
  for (int axis = 0; axis < 3; ++axis) {
    if (ranks[axis] <= size[axis]) continue;
    return std::string(kRankNames[axis]) + " = " + std::to_string(ranks[axis]) + " exceeds " + kSizeNames[axis] +
           " = " + std::to_string(size[axis]) + " (domain.size = " + fmt3(size) +
           "): each rank needs at least one cell per axis, so px <= nx, py <= ny, pz <= nz";
  }
  return {};
}

/// Reads [parallel]; needs the domain size (each rank needs at least one cell per axis). The product of the ranks
/// against the MPI rank count is checked by the solver at run time.
void read_parallel(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("parallel"));
  if (const auto ranks = section.integer3("ranks")) {
    for (std::int64_t n : *ranks) {
      if (n < 1) {
        section.fail("ranks", section.quote("ranks") +
                                  " is out of range: each of px, py, pz must be an integer >= 1 (MPI ranks per "
                                  "axis; leave out parallel.ranks to let MPI choose)");
      }
    }
    const std::string problem = ranks_too_large(*ranks, config.size);
    if (!problem.empty()) section.fail("ranks", section.quote("ranks") + " is out of range: " + problem);
    for (int axis = 0; axis < 3; ++axis) config.parallel.ranks[axis] = static_cast<int>((*ranks)[axis]);
  }
  config.parallel.transport = section
                                  .choice<HaloTransport>("transport", {{"host", HaloTransport::host},
                                                                       {"device", HaloTransport::device},
                                                                       {"nccl", HaloTransport::nccl}})
                                  .value_or(HaloTransport::host);
  config.parallel.overlap = section.boolean("overlap").value_or(true);
  if (const auto device = section.integer("device")) {
    if (*device < -1 || *device > std::numeric_limits<int>::max()) {
      section.fail("device", section.quote("device") +
                                 " is out of range: device must be an integer >= -1 (a GPU index; -1 = the local "
                                 "rank on the node modulo the visible GPUs)");
    }
    config.parallel.device = static_cast<int>(*device);
  }
}

/// `key` of [particles] is only used by inertial particles: refused when kind is "tracer" (the default).
void require_inertial(const Section& section, std::string_view key, const ParticleConfig& particles) {
  if (!section.has(key) || particles.kind == ParticleKind::inertial) return;
  section.fail(key, section.path(key) + " is only used by kind = \"inertial\" (kind is \"tracer\"" +
                        (section.has("kind") ? "" : ", the default") +
                        "): tracers move with the fluid velocity and feel no force; set particles.kind = "
                        "\"inertial\" or remove " +
                        section.path(key));
}

/// `key` of [particles] is only used when `switch_key` is on (`switch_text`, e.g. contacts = true).
void require_switch(const Section& section, std::string_view key, bool on, std::string_view switch_text) {
  if (!section.has(key) || on) return;
  section.fail(key, section.path(key) + " is only used with particles." + std::string(switch_text) +
                        "; set it or remove " + section.path(key));
}

/// Reads [particles]; needs the domain size (seeding box, diameter) and the case file's location (positions).
/// Checks on the struct (box inside the domain, diameter below the domain) are in finalize_particles.
void read_particles(const Section& section, CaseConfig& config) {
  if (!section.table()) return;
  section.check_keys(section_keys("particles"));
  ParticleConfig& p = config.particles;
  p.enabled = true;
  p.kind =
      section.choice<ParticleKind>("kind", {{"tracer", ParticleKind::tracer}, {"inertial", ParticleKind::inertial}})
          .value_or(ParticleKind::tracer);

  // Seeding: exactly one of count (random, with seed and box) and positions (a CSV file).
  const bool random = section.has("count");
  if (random && section.has("positions")) {
    section.fail("positions",
                 "particles.count and particles.positions are given together: give exactly one (count "
                 "seeds particles at random, positions reads them from a CSV file)");
  }
  if (!random && !section.has("positions")) {
    section.fail("count",
                 "missing key: [particles] needs particles.count (that many particles at random in the box "
                 "[box_min, box_max)) or particles.positions (a CSV file with columns x,y,z)");
  }
  if (const auto count = section.integer("count")) {
    if (*count < 1 || *count > kMaxParticles) {
      section.fail("count", section.quote("count") + " is out of range: count must be an integer >= 1 and <= " +
                                std::to_string(kMaxParticles) + " (2^31 - 1)");
    }
    p.count = *count;
  }
  for (std::string_view key : {"seed", "box_min", "box_max"}) {
    if (section.has(key) && !random) {
      section.fail(key, section.path(key) +
                            " is only used with particles.count (random seeding); particles.positions "
                            "gives every position");
    }
  }
  if (const auto seed = section.integer("seed")) {
    if (*seed < 0) {
      section.fail("seed", section.quote("seed") + " is out of range: seed must be an integer >= 0");
    }
    p.seed = static_cast<std::uint64_t>(*seed);
  }
  const std::array<double, 3> domain = {double(config.size[0]), double(config.size[1]), double(config.size[2])};
  p.box_min = section.number3("box_min").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
  p.box_max = section.number3("box_max").value_or(domain);
  for (std::string_view key : {"box_min", "box_max"}) {
    const auto& box = key == "box_min" ? p.box_min : p.box_max;
    for (int axis = 0; axis < 3; ++axis) {
      if (section.has(key) && (box[axis] < 0.0 || box[axis] > domain[axis])) {
        section.fail(key, section.quote(key) + " is outside the domain: the " + kAxisNames[axis] +
                              " component must be in [0, " + fmt(domain[axis]) +
                              "] (domain.size = " + fmt3(config.size) + " cells, lattice units)");
      }
    }
  }
  for (int axis = 0; axis < 3; ++axis) {
    if (!(p.box_min[axis] < p.box_max[axis])) {
      const std::string_view key = section.has("box_max") ? "box_max" : "box_min";
      section.fail(key, "particles.box_min = " + fmt3(p.box_min) + " and particles.box_max = " + fmt3(p.box_max) +
                            " give an empty box: box_min < box_max is needed on every axis (the " + kAxisNames[axis] +
                            " axis is not)");
    }
  }
  if (const auto positions = section.string("positions")) {
    if (positions->empty()) {
      section.fail("positions",
                   "particles.positions = \"\" is not allowed: give the path of a CSV file (columns "
                   "x,y,z; relative to the case file's directory)");
    }
    std::filesystem::path file(*positions);
    if (file.is_relative()) file = std::filesystem::path(section.source().origin()).parent_path() / file;
    p.positions_file = file.string();
  }

  if (const auto diameter = section.number("diameter")) {
    if (*diameter <= 0) {
      section.fail("diameter", section.quote("diameter") + " is out of range: diameter must be > 0 (cells)");
    }
    p.diameter = *diameter;
  }

  // Inertial-only keys.
  for (std::string_view key : {"density", "gravity", "two_way", "contacts", "pair_force"}) {
    require_inertial(section, key, p);
  }
  if (const auto density = section.number("density")) {
    if (*density <= 0) {
      section.fail("density", section.quote("density") +
                                  " is out of range: density must be > 0 (particle density / fluid density)");
    }
    p.density = *density;
  }
  p.gravity = section.number3("gravity").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
  p.two_way = section.boolean("two_way").value_or(false);
  p.walls = section.choice<ParticleWalls>("walls", {{"bounce", ParticleWalls::bounce}, {"stick", ParticleWalls::stick}})
                .value_or(ParticleWalls::bounce);

  p.contacts = section.boolean("contacts").value_or(false);
  require_switch(section, "contact_stiffness", p.contacts, "contacts = true");
  require_switch(section, "contact_damping", p.contacts, "contacts = true");
  if (p.contacts && !section.has("contact_stiffness")) {
    section.fail("contact_stiffness",
                 "missing key 'particles.contact_stiffness': contacts = true needs the spring "
                 "constant k > 0 (lattice force per cell of overlap)");
  }
  if (const auto k = section.number("contact_stiffness")) {
    if (*k <= 0) {
      section.fail("contact_stiffness", section.quote("contact_stiffness") +
                                            " is out of range: contact_stiffness must be > 0 (lattice force per cell "
                                            "of overlap)");
    }
    p.contact_stiffness = *k;
  }
  if (const auto gamma = section.number("contact_damping")) {
    if (*gamma < 0) {
      section.fail("contact_damping",
                   section.quote("contact_damping") + " is out of range: contact_damping must be >= 0 (lattice units)");
    }
    p.contact_damping = *gamma;
  }
  require_switch(section, "contact_search", p.contacts, "contacts = true");
  p.contact_search = section
                         .choice<ContactSearch>("contact_search", {{"cell_list", ContactSearch::cell_list},
                                                                   {"all_pairs", ContactSearch::all_pairs}})
                         .value_or(ContactSearch::cell_list);

  p.pair_force = section.choice<PairForce>("pair_force", {{"none", PairForce::none}, {"gravity", PairForce::gravity}})
                     .value_or(PairForce::none);
  const bool pair_gravity = p.pair_force == PairForce::gravity;
  require_switch(section, "gravity_constant", pair_gravity, "pair_force = \"gravity\"");
  require_switch(section, "softening", pair_gravity, "pair_force = \"gravity\"");
  if (pair_gravity && !section.has("gravity_constant")) {
    section.fail("gravity_constant",
                 "missing key 'particles.gravity_constant': pair_force = \"gravity\" needs the "
                 "constant G > 0 (lattice units)");
  }
  if (const auto g = section.number("gravity_constant")) {
    if (*g <= 0) {
      section.fail("gravity_constant", section.quote("gravity_constant") +
                                           " is out of range: gravity_constant must be > 0 (G, lattice units)");
    }
    p.gravity_constant = *g;
  }
  if (const auto eps = section.number("softening")) {
    if (*eps <= 0) {
      section.fail("softening", section.quote("softening") + " is out of range: softening must be > 0 (cells)");
    }
    p.softening = *eps;
  }
}

/// Reads [thermal] (the section's presence turns the temperature field on). Needs nothing else; read before
/// [physics], whose viscosity keys it makes optional when Ra > 0. Defaults that depend on the walls (dT, T_ref, the
/// initial T) and the derived values are filled by finalize_thermal_inputs / finalize_thermal.
/// Reads [units] (SI quantities); the lattice values are derived by finalize_units.
void read_units(const Section& section, CaseConfig& config) {
  if (!section.table()) return;
  section.check_keys(section_keys("units"));
  UnitsConfig& u = config.units;
  u.enabled = true;
  const bool has_length = section.has("length"), has_dx = section.has("dx");
  if (has_length == has_dx) {
    section.fail(has_length ? "dx" : "length",
                 has_length ? "units.length and units.dx are given together: give one (length is the SI size of "
                              "physics.length cells, dx that of one cell)"
                            : "missing key 'units.length' (m: the characteristic length, spanned by physics.length "
                              "cells, default domain.size[0]) or 'units.dx' (m per cell)");
  }
  const auto positive = [&](std::string_view key, const char* unit) {
    const auto value = section.number(key);
    if (!value) {
      section.fail(key, "missing key '" + section.path(key) + "' (" + unit + "): [units] needs length or dx, "
                        "velocity and viscosity");
    }
    if (!(*value > 0) || !std::isfinite(*value)) {
      section.fail(key, section.quote(key) + " is out of range: it must be a finite number > 0 (" + unit + ")");
    }
    return *value;
  };
  if (has_length) u.length = positive("length", "m");
  if (has_dx) u.dx = positive("dx", "m");
  u.velocity = positive("velocity", "m/s");
  u.viscosity = positive("viscosity", "m^2/s");
  if (section.has("density")) u.density = positive("density", "kg/m^3");
  if (section.has("lattice_velocity")) {
    u.lattice_velocity = positive("lattice_velocity", "lattice units");
  }
}

void read_thermal(const Section& section, CaseConfig& config) {
  if (!section.table()) return;
  section.check_keys(section_keys("thermal"));
  ThermalConfig& t = config.thermal;
  t.enabled = true;
  const auto prandtl = section.number("prandtl");
  if (!prandtl) {
    section.fail("prandtl", "missing required key 'thermal.prandtl' (Prandtl number Pr = nu / kappa > 0, e.g. 0.71 "
                            "for air; it fixes the diffusivity kappa = nu / Pr)");
  }
  if (*prandtl <= 0) {
    section.fail("prandtl", section.quote("prandtl") + " is out of range: prandtl must be > 0 (Pr = nu / kappa)");
  }
  t.prandtl = *prandtl;
  t.rayleigh = section.number("rayleigh").value_or(0.0);
  if (t.rayleigh < 0) {
    section.fail("rayleigh", section.quote("rayleigh") +
                                 " is out of range: rayleigh must be >= 0 (Ra = g beta dT L^3 / (nu kappa); 0 = "
                                 "passive scalar, no buoyancy)");
  }
  if (const auto gravity = section.number3("gravity")) {
    if (*gravity == std::array<double, 3>{0.0, 0.0, 0.0}) {
      section.fail("gravity", section.quote("gravity") +
                                  " has no direction: gravity is the direction of gravity (normalised), e.g. "
                                  "[0, -1, 0] (the default); its size does not matter, Ra sets the strength");
    }
    t.gravity_direction = *gravity;  // normalised by finalize_thermal_inputs
  }
  if (const auto reference = section.number("reference_temperature")) t.reference_temperature = *reference;
  if (const auto difference = section.number("temperature_difference")) {
    if (*difference <= 0) {
      section.fail("temperature_difference",
                   section.quote("temperature_difference") +
                       " is out of range: temperature_difference must be > 0 (dT of Ra; leave it out to take the "
                       "hottest minus the coldest boundary.<face>.temperature)");
    }
    t.temperature_difference = *difference;
  }
  if (const auto initial = section.number("initial_temperature")) t.initial_temperature = *initial;
  t.perturbation = section.number("perturbation").value_or(0.0);
  if (t.perturbation < 0) {
    section.fail("perturbation", section.quote("perturbation") +
                                     " is out of range: perturbation must be >= 0 (amplitude of the initial "
                                     "perturbation of T, in temperature units; 0 = none)");
  }
}

CaseConfig read_case(const toml::table& root, const Source& source) {
  check_top_level(source, root);
  CaseConfig config;
  // Order matters: boundary velocities are in units of physics.velocity, periodic axes come from the domain,
  // [thermal] with Ra > 0 lets [physics] leave out reynolds / tau / viscosity.
  read_case_section(top_section(source, root, "case"), config);
  read_domain(top_section(source, root, "domain"), config);
  read_thermal(top_section(source, root, "thermal"), config);
  read_units(top_section(source, root, "units"), config);
  read_physics(top_section(source, root, "physics"), config);
  read_boundary(top_section(source, root, "boundary"), config);
  read_initial(top_section(source, root, "initial"), config);
  read_numerics(top_section(source, root, "numerics"), config);
  read_run(top_section(source, root, "run"), config);
  read_output(top_section(source, root, "output"), config);
  read_parallel(top_section(source, root, "parallel"), config);
  read_checkpoint(top_section(source, root, "checkpoint"), config);
  read_particles(top_section(source, root, "particles"), config);
  return config;
}

// ---- 6. finalize: checks on the plain struct and derived values ----------------------------------------------------

void require_finite(const Source& source, const std::string& key, double value) {
  if (!std::isfinite(value)) source.fail(key, key + " = " + fmt(value) + " is not a finite number");
}

/// The largest speed the case imposes (lattice units) and the key it comes from: |U|, moving-wall speeds and the
/// Taylor-Green amplitude (the peak speed of either vortex is its amplitude).
std::pair<double, std::string> max_speed(const CaseConfig& config) {
  std::pair<double, std::string> result{std::abs(config.velocity), "physics.velocity"};
  for (int face = 0; face < 6; ++face) {
    if (config.faces[face].kind != FaceKind::moving_wall) continue;
    const auto& v = config.faces[face].velocity;
    const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (speed > result.first) result = {speed, "boundary." + std::string(kFaceNames[face]) + ".velocity"};
  }
  if (config.initial.kind != InitialKind::rest && std::abs(config.initial.amplitude) > result.first) {
    result = {std::abs(config.initial.amplitude), "initial.amplitude"};
  }
  if (config.thermal.free_fall_velocity > result.first) {  // derived by finalize_thermal
    result = {config.thermal.free_fall_velocity, "thermal.rayleigh"};
  }
  return result;
}

void finalize_domain(CaseConfig& config, const Source& source) {
  for (int n : config.size) {
    if (n < 1) {
      source.fail("domain.size", "domain.size = " + fmt3(config.size) +
                                     " is out of range: each of nx, ny, nz must be an integer >= 1");
    }
    if (n > kMaxAxisCells) {
      source.fail("domain.size", "domain.size = " + fmt3(config.size) +
                                     " is out of range: each of nx, ny, nz must be <= " +
                                     std::to_string(kMaxAxisCells) + " = 2^30 cells");
    }
  }
  // The solver allocates the block with one ghost layer and indexes it with 64-bit integers; computed in double so
  // that the check itself cannot overflow.
  const double block_cells =
      (double(config.size[0]) + 2.0) * (double(config.size[1]) + 2.0) * (double(config.size[2]) + 2.0);
  if (block_cells > kMaxBlockCells) {
    source.fail("domain.size", "domain.size = " + fmt3(config.size) + " is too large: (nx + 2)(ny + 2)(nz + 2) = " +
                                   fmt(block_cells, 16) + " cells (fluid plus one ghost layer) exceeds the limit " +
                                   "of 2^40 = " + fmt(kMaxBlockCells, 16) + " cells");
  }
  for (int face = 0; face < 6; ++face) {
    const int axis = face_axis(face);
    const FaceBoundary& boundary = config.faces[face];
    const std::string key = "boundary." + std::string(kFaceNames[face]) + ".velocity";
    if ((boundary.kind == FaceKind::periodic) != (config.faces[face ^ 1].kind == FaceKind::periodic)) {
      source.fail("domain.periodic", std::string("faces ") + kFaceNames[2 * axis] + " and " + kFaceNames[2 * axis + 1] +
                                         " must be both periodic or both non-periodic (domain.periodic)");
    }
    for (double v : boundary.velocity) require_finite(source, key, v);
    const bool moves = boundary.velocity[0] != 0.0 || boundary.velocity[1] != 0.0 || boundary.velocity[2] != 0.0;
    if (boundary.kind != FaceKind::moving_wall && moves) {
      source.fail(key, key + " = " + fmt3(boundary.velocity) + " (lattice units) is only allowed on a moving_wall");
    }
    if (boundary.velocity[axis] != 0.0) {
      source.fail(key, key + " = " + fmt3(boundary.velocity) + " (lattice units) is not tangential: the " +
                           kAxisNames[axis] + " component (normal to face " + kFaceNames[face] + ") must be 0");
    }
  }
}

/// tau = 3 nu + 1/2, the one place it is computed (so that finalize_physics can tell a nu that gives tau exactly).
double tau_of(double nu) { return 3.0 * nu + 0.5; }

/// tau (derived from `key` = `value`, `how` shows the derivation) must be > 0.5 and, finite, < kMaxTau.
void check_tau(const Source& source, const std::string& key, double value, double tau, const std::string& how) {
  if (!(tau > 0.5)) {
    source.fail(key, key + " = " + fmt(value) + how +
                         " is out of range: tau must be > 0.5 (nu = (tau - 1/2)/3 must be positive); raise tau, or "
                         "lower reynolds / raise velocity or length");
  }
  if (!(tau < kMaxTau)) {
    source.fail(key, key + " = " + fmt(value) + how + " is out of range: tau = " + fmt(tau) +
                         " is too large: tau must be < " + fmt(kMaxTau) +
                         " (omega = 1/tau must stay well above 0); lower tau or viscosity, or raise reynolds");
  }
}

/// nu at tau = numerics.min_tau: the smallest viscosity a run accepts.
double min_viscosity(const CaseConfig& config) { return (config.min_tau - 0.5) / 3.0; }

/// numerics.min_tau in (0.5, 1] (before it is used by finalize_units and finalize_physics).
void finalize_min_tau(const CaseConfig& config, const Source& source) {
  require_finite(source, "numerics.min_tau", config.min_tau);
  if (!(config.min_tau > 0.5) || config.min_tau > 1.0) {
    source.fail("numerics.min_tau", "numerics.min_tau = " + fmt(config.min_tau) +
                                        " is out of range: min_tau must be > 0.5 and <= 1 (0.51 is the default)");
  }
}

/// "tau = ... is too close to tau = 1/2 ...": the common part of the messages that refuse a tau too close to 1/2.
std::string below_min_tau(const CaseConfig& config, double tau) {
  return "tau = " + fmt(tau, 6) + " is too close to tau = 1/2 to stay stable (below numerics.min_tau = " +
         fmt(config.min_tau) + ")";
}

/// The way to run anyway: the closing part of the same messages.
std::string accept_low_tau(double tau) {
  return "; or, to accept the risk of an instability, set numerics.min_tau to at most " + fmt(tau, 9) + " (> 0.5)";
}

/// Refuses tau below numerics.min_tau for a viscosity fixed in lattice units by `key`, naming the fix: more cells
/// across L (Re = U L / nu fixed), a larger U where Ma allows it, or a larger tau or viscosity. Cases in SI are
/// checked, with their own fixes, by finalize_units.
void check_min_tau(const CaseConfig& config, const Source& source, const std::string& key, double value,
                   const std::string& how) {
  if (config.tau >= config.min_tau || config.units.enabled) return;
  const double nu_min = min_viscosity(config);
  const double max_velocity = kMachLimit / std::sqrt(3.0);
  std::string fix;
  if (key == "physics.tau") {
    fix = "raise physics.tau to at least " + fmt(config.min_tau);
  } else if (key == "physics.viscosity") {
    fix = "raise physics.viscosity to at least " + fmt(nu_min, 6) + " (lattice units)";
  } else {
    // nu = U L / Re, or U L sqrt(Pr / Ra) for the free-fall velocity: nu grows with L and with U alike.
    const double per_length_velocity = config.nu / (config.velocity * config.length);
    const double cells = std::ceil(nu_min / (per_length_velocity * config.velocity));
    const double velocity = nu_min / (per_length_velocity * config.length);
    fix = "resolve the flow with at least " + fmt(cells) + " cells across the characteristic length (now " +
          fmt(config.length) + "; domain.size and physics.length)" +
          (velocity <= max_velocity ? ", or raise physics.velocity to at least " + fmt(velocity, 4)
                                    : std::string(" (a larger physics.velocity cannot do it within Ma <= 0.3)"));
  }
  source.fail(key, key + " = " + fmt(value) + how + ": " + below_min_tau(config, config.tau) + "; " + fix +
                       accept_low_tau(config.tau));
}

/// Derives nu, tau and Re from whichever fixes the viscosity: tau > 0, else nu > 0, else reynolds > 0 (needs U > 0),
/// else, with [thermal] and Ra > 0, the free-fall velocity U: nu = U L sqrt(Pr / Ra) (finalize_thermal_inputs has
/// checked Pr and Ra). A second call finds tau set and keeps nu, which gives that tau exactly (nu = (tau - 1/2)/3
/// computed again could differ in the last bits, and Re, kappa and g beta with it).
void finalize_physics(CaseConfig& config, const Source& source) {
  require_finite(source, "physics.velocity", config.velocity);
  require_finite(source, "physics.length", config.length);
  require_finite(source, "physics.tau", config.tau);
  require_finite(source, "physics.viscosity", config.nu);
  require_finite(source, "physics.reynolds", config.reynolds);
  for (double f : config.body_force) require_finite(source, "physics.body_force", f);
  if (config.velocity < 0) {
    source.fail("physics.velocity",
                "physics.velocity = " + fmt(config.velocity) + " is out of range: velocity must be >= 0");
  }
  if (config.velocity > 0 && config.velocity < kMinVelocity) {
    source.fail("physics.velocity", "physics.velocity = " + fmt(config.velocity) +
                                        " is out of range: velocity must be 0 or >= " + fmt(kMinVelocity) +
                                        " (output velocities are divided by it)");
  }
  if (config.length == 0.0) config.length = config.size[0];
  if (config.length < 0) {
    source.fail("physics.length",
                "physics.length = " + fmt(config.length) + " is out of range: length must be > 0 (cells)");
  }
  if (!std::isfinite(1.0 / config.length)) {
    source.fail("physics.length", "physics.length = " + fmt(config.length) +
                                      " is out of range: too small, 1/length is not a finite number (output "
                                      "lengths are divided by it)");
  }
  // Output time t = step U / L must stay finite up to the last step.
  const double last_time = double(std::max<std::int64_t>(config.steps, 1)) * config.velocity / config.length;
  if (!std::isfinite(last_time)) {
    source.fail("physics.length", "physics.length = " + fmt(config.length) +
                                      " is out of range: too small for physics.velocity = " + fmt(config.velocity) +
                                      ", the output time step * U / L is not a finite number");
  }

  if (config.tau > 0) {
    check_tau(source, "physics.tau", config.tau, config.tau, "");
    if (!(config.nu > 0) || tau_of(config.nu) != config.tau) config.nu = (config.tau - 0.5) / 3.0;
    check_min_tau(config, source, "physics.tau", config.tau, "");
  } else if (config.nu > 0) {
    config.tau = tau_of(config.nu);
    check_tau(source, "physics.viscosity", config.nu, config.tau, " (tau = " + fmt(config.tau) + ")");
    check_min_tau(config, source, "physics.viscosity", config.nu, "");
  } else if (config.reynolds > 0) {
    if (config.velocity <= 0) {
      source.fail("physics.reynolds", "physics.reynolds = " + fmt(config.reynolds) +
                                          " needs physics.velocity > 0 (Re = U L / nu; U is 0 here): set "
                                          "physics.velocity, or give tau or viscosity instead of reynolds");
    }
    config.nu = config.velocity * config.length / config.reynolds;
    config.tau = tau_of(config.nu);
    check_tau(source, "physics.reynolds", config.reynolds, config.tau,
              " (nu = U L / Re = " + fmt(config.nu) + ", tau = " + fmt(config.tau) + ")");
    check_min_tau(config, source, "physics.reynolds", config.reynolds,
                  " (U = " + fmt(config.velocity) + ", L = " + fmt(config.length) + " cells, nu = U L / Re = " +
                      fmt(config.nu, 6) + ")");
  } else if (config.thermal.enabled && config.thermal.rayleigh > 0) {
    const ThermalConfig& t = config.thermal;
    if (!(config.velocity > 0)) {
      source.fail("physics.velocity",
                  "physics.velocity = " + fmt(config.velocity) +
                      " is out of range: with thermal.rayleigh > 0 and none of reynolds, tau, viscosity, "
                      "physics.velocity is the free-fall velocity U = sqrt(g beta dT L) that sets Ma and fixes "
                      "nu = U L sqrt(Pr / Ra); set physics.velocity > 0 (e.g. 0.05), or one of reynolds, tau, "
                      "viscosity");
    }
    config.nu = config.velocity * config.length * std::sqrt(t.prandtl / t.rayleigh);
    config.tau = tau_of(config.nu);
    check_tau(source, "physics.velocity", config.velocity, config.tau,
              " (the free-fall velocity: nu = U L sqrt(Pr / Ra) = " + fmt(config.nu) + " with L = " +
                  fmt(config.length) + ", Pr = " + fmt(t.prandtl) + ", Ra = " + fmt(t.rayleigh) +
                  ", tau = " + fmt(config.tau) + ")");
    check_min_tau(config, source, "physics.velocity", config.velocity,
                  " (the free-fall velocity: nu = U L sqrt(Pr / Ra) = " + fmt(config.nu, 6) + " with L = " +
                      fmt(config.length) + " cells)");
  } else {
    source.fail("physics",
                "one of physics.reynolds, physics.tau, physics.viscosity must be given and positive (each "
                "fixes the viscosity nu = (tau - 1/2)/3 = U L / Re)" +
                    std::string(config.thermal.enabled
                                    ? "; or, with [thermal], none of them and thermal.rayleigh > 0 with "
                                      "physics.velocity > 0 the free-fall velocity: nu = U L sqrt(Pr / Ra) "
                                      "(thermal.rayleigh is 0 here)"
                                    : ""));
  }
  config.reynolds = config.velocity > 0 ? config.velocity * config.length / config.nu : 0.0;
  // tau in (0.5, kMaxTau) makes nu = (tau - 1/2)/3 and omega = 1/tau finite; Re can still overflow for a huge L.
  if (!std::isfinite(config.nu) || !std::isfinite(config.omega()) || !std::isfinite(config.reynolds)) {
    source.fail("physics.length", "physics.length = " + fmt(config.length) +
                                      " is out of range: the derived values are not all finite (nu = " +
                                      fmt(config.nu) + ", tau = " + fmt(config.tau) +
                                      ", Re = U L / nu = " + fmt(config.reynolds) + ")");
  }
}

void finalize_initial(CaseConfig& config, const Source& source) {
  require_finite(source, "initial.amplitude", config.initial.amplitude);
  if (config.initial.kind == InitialKind::rest) return;
  if (config.initial.amplitude == 0.0) config.initial.amplitude = config.velocity;
  const char* type = config.initial.kind == InitialKind::taylor_green_2d ? "taylor_green_2d" : "taylor_green_3d";
  if (config.initial.amplitude == 0.0) {
    source.fail("initial.amplitude", std::string("initial.type = \"") + type +
                                         "\" needs a non-zero amplitude: set physics.velocity > 0 (initial.amplitude "
                                         "is in units of it)");
  }
  const int axes = config.initial.kind == InitialKind::taylor_green_2d ? 2 : 3;
  for (int axis = 0; axis < axes; ++axis) {
    if (config.faces[2 * axis].kind != FaceKind::periodic) {
      source.fail("initial.type",
                  std::string("initial.type = \"") + type + "\" needs " +
                      (axes == 2 ? "x and y periodic: set domain.periodic = [true, true, ...]"
                                 : "all three axes periodic: set domain.periodic = [true, true, true]") +
                      " (axis " + kAxisNames[axis] + " is not periodic)");
    }
  }
}

void finalize_mach(const CaseConfig& config, const Source& source) {
  const auto [speed, key] = max_speed(config);
  const double ma = config.mach();
  if (ma <= kMachLimit) return;
  if (config.units.enabled) {  // U is units.lattice_velocity: the fix is there
    source.fail(key, "Mach number Ma = " + fmt(ma, 4) + " exceeds the limit " + fmt(kMachLimit) +
                         " (u_max = " + fmt(speed, 6) + " lattice units from " + key + "; tau = " +
                         fmt(config.tau, 6) + "); lower " +
                         "units.lattice_velocity to at most " +
                         fmt(config.units.lattice_velocity * kMachLimit / ma, 4) + " (the speeds scale with it), or " +
                         "slow the fastest wall");
  }
  source.fail(
      key, "Mach number Ma = " + fmt(ma, 4) + " exceeds the limit " + fmt(kMachLimit) +
               " (Ma = sqrt(3) u_max, u_max = " + fmt(speed, 6) + " lattice units from " + key + "; tau = " +
               fmt(config.tau, 6) + ", nu = " + fmt(config.nu, 6) + "); use a smaller velocity: u_max <= " +
               fmt(kMachLimit / std::sqrt(3.0), 4) +
               " keeps Ma <= 0.3 (lower physics.velocity; at fixed reynolds this also lowers tau, which must stay >= "
               "numerics.min_tau = " + fmt(config.min_tau) + ", so refine the grid as U drops)");
}

void finalize_numerics_run_output(CaseConfig& config, const Source& source) {
  require_finite(source, "numerics.magic", config.magic);
  if (config.magic <= 0) {
    source.fail("numerics.magic", "numerics.magic = " + fmt(config.magic) +
                                      " is out of range: magic must be > 0 (TRT Lambda; 3/16 = 0.1875 is the usual "
                                      "choice, 1/4 the most stable)");
  }
  if (config.steps < 0) {
    source.fail("run.steps", "run.steps = " + std::to_string(config.steps) + " is out of range: steps must be >= 0");
  }
  if (config.report_every == 0) config.report_every = std::max<std::int64_t>(1, config.steps / 10);
  if (config.report_every < 1) {
    source.fail("run.report_every", "run.report_every = " + std::to_string(config.report_every) +
                                        " is out of range: report_every must be >= 1");
  }
  if (config.output_every < 0) {
    source.fail("output.every", "output.every = " + std::to_string(config.output_every) +
                                    " is out of range: every must be >= 0 (0 = only the final state)");
  }
  if (config.output_directory.empty()) {
    source.fail("output.directory", "output.directory = \"\" is not allowed: the directory must be a non-empty path");
  }
  if (config.checkpoint_every < 0) {
    source.fail("checkpoint.every", "checkpoint.every = " + std::to_string(config.checkpoint_every) +
                                        " is out of range: every must be >= 0 (steps between checkpoints; 0 = none)");
  }
}

/// Ranks 0 = automatic are allowed here (structs built in code may leave some or all axes to MPI_Dims_create).
void finalize_parallel(const CaseConfig& config, const Source& source) {
  const auto& ranks = config.parallel.ranks;
  for (int n : ranks) {
    if (n < 0) {
      source.fail("parallel.ranks", "parallel.ranks = " + fmt3(ranks) +
                                        " is out of range: each of px, py, pz must be >= 1, or 0 = automatic");
    }
  }
  const std::string problem = ranks_too_large({ranks[0], ranks[1], ranks[2]}, config.size);
  if (!problem.empty()) {
    source.fail("parallel.ranks", "parallel.ranks = " + fmt3(ranks) + " is out of range: " + problem);
  }
  if (config.parallel.device < -1) {
    source.fail("parallel.device", "parallel.device = " + std::to_string(config.parallel.device) +
                                       " is out of range: device must be >= -1 (a GPU index; -1 = the local rank on "
                                       "the node modulo the visible GPUs)");
  }
}

/// [numerics] out-of-core keys on the plain struct (shared with cases built in code): ranges (0 = chosen at run time),
/// the keys that need out_of_core = true or "auto", and what out_of_core = true does not support yet: [particles],
/// [thermal], derived output fields, a split along x or y. Changes nothing (idempotent).
void finalize_out_of_core(const CaseConfig& config, const Source& source) {
  const OutOfCoreConfig& ooc = config.out_of_core;
  if (ooc.device_memory_limit < 0 || ooc.device_memory_limit > kMaxDeviceMemory) {
    source.fail("numerics.device_memory_limit",
                "numerics.device_memory_limit = " + std::to_string(ooc.device_memory_limit) +
                    " is out of range: device_memory_limit must be > 0 and at most 2^60 = " +
                    std::to_string(kMaxDeviceMemory) + " bytes, or 0 = the free device memory");
  }
  if (ooc.time_block < 0 || ooc.time_block > kMaxTimeBlock) {
    source.fail("numerics.time_block", "numerics.time_block = " + std::to_string(ooc.time_block) +
                                           " is out of range: time_block must be in 1.." +
                                           std::to_string(kMaxTimeBlock) + ", or 0 = chosen from the device memory");
  }
  if (ooc.slabs < 0 || ooc.slabs > kMaxSlabs) {
    source.fail("numerics.slabs", "numerics.slabs = " + std::to_string(ooc.slabs) +
                                      " is out of range: slabs must be in 1.." + std::to_string(kMaxSlabs) +
                                      ", or 0 = chosen from the device memory");
  }
  if (ooc.mode == OutOfCoreMode::off) {
    const auto only_out_of_core = [&](const char* key, std::int64_t value, const char* unit) {
      if (value == 0) return;
      source.fail(key, std::string(key) + " = " + std::to_string(value) + unit +
                           " applies only with numerics.out_of_core = true or \"auto\" (out_of_core is false); "
                           "remove " + key + " or change numerics.out_of_core");
    };
    only_out_of_core("numerics.device_memory_limit", ooc.device_memory_limit, " bytes");
    only_out_of_core("numerics.time_block", ooc.time_block, "");
    only_out_of_core("numerics.slabs", ooc.slabs, "");
    return;
  }
  // Slabs per block: each needs at least one z-plane of the block; with pz fixed, the smallest block has nz / pz.
  const int pz = config.parallel.ranks[2];
  const std::int64_t planes = pz > 0 ? config.size[2] / pz : config.size[2];
  if (ooc.slabs > planes) {
    source.fail("numerics.slabs",
                "numerics.slabs = " + std::to_string(ooc.slabs) + " is out of range: at most " +
                    (pz > 1 ? std::to_string(planes) + " slabs (the smallest block has " + std::to_string(planes) +
                                  " z-planes: domain.size z = " + std::to_string(config.size[2]) +
                                  " over parallel.ranks pz = " + std::to_string(pz) + ")"
                            : "domain.size z = " + std::to_string(config.size[2]) + " slabs") +
                    ", each needs at least one z-plane");
  }
  if (ooc.mode != OutOfCoreMode::on) return;
  // A conflict is reported on the other key, or on out_of_core when a --set turned it on (so the message names it).
  const auto conflict_key = [&](const char* other) {
    return source.overridden("numerics.out_of_core") ? "numerics.out_of_core" : other;
  };
  const std::string unsupported =
      " is not supported with numerics.out_of_core = true: out-of-core runs support neither particles nor "
      "[thermal] yet (fluid only)";
  if (config.particles.enabled) {
    source.fail(conflict_key("particles"),
                "[particles]" + unsupported + "; remove [particles] or set numerics.out_of_core = false");
  }
  if (config.thermal.enabled) {
    source.fail(conflict_key("thermal"),
                "[thermal]" + unsupported + "; remove [thermal] or set numerics.out_of_core = false");
  }
  const auto& ranks = config.parallel.ranks;
  if (ranks[0] > 1 || ranks[1] > 1) {
    source.fail(conflict_key("parallel.ranks"),
                "parallel.ranks = " + fmt3(ranks) +
                    " does not fit numerics.out_of_core = true: out-of-core runs split the domain along z only: "
                    "parallel.ranks = [1, 1, pz]");
  }
}

/// [particles] on the plain struct (shared with cases built in code): seeding, the box inside the domain, the
/// diameter below the smallest domain side, the inertial-only settings. box_max = {0, 0, 0} becomes the domain size.
void finalize_particles(CaseConfig& config, const Source& source) {
  ParticleConfig& p = config.particles;
  if (!p.enabled) return;
  const std::array<double, 3> domain = {double(config.size[0]), double(config.size[1]), double(config.size[2])};
  const bool random = p.positions_file.empty();
  if (!random && p.count != 0) {
    source.fail("particles.positions", "particles.count = " + std::to_string(p.count) +
                                           " and particles.positions = \"" + p.positions_file +
                                           "\" are given together: give exactly one (count seeds "
                                           "particles at random, positions reads them from a CSV file)");
  }
  if (random && (p.count < 1 || p.count > kMaxParticles)) {
    source.fail("particles.count", "particles.count = " + std::to_string(p.count) +
                                       " is out of range: count must be >= 1 and <= " + std::to_string(kMaxParticles) +
                                       " (2^31 - 1), or particles.positions must name a CSV file");
  }
  if (p.box_max == std::array<double, 3>{0.0, 0.0, 0.0}) p.box_max = domain;
  const auto check_inside = [&](const std::string& key, const std::array<double, 3>& box, int axis) {
    if (box[axis] >= 0.0 && box[axis] <= domain[axis]) return;  // NaN fails too
    source.fail(key, key + " = " + fmt3(box) + " is outside the domain: the " + kAxisNames[axis] +
                         " component must be in [0, " + fmt(domain[axis]) + "] (domain.size = " + fmt3(config.size) +
                         " cells, lattice units)");
  };
  for (int axis = 0; axis < 3; ++axis) {
    check_inside("particles.box_min", p.box_min, axis);
    check_inside("particles.box_max", p.box_max, axis);
    if (!(p.box_min[axis] < p.box_max[axis])) {
      source.fail("particles.box_max", "particles.box_min = " + fmt3(p.box_min) +
                                           " and particles.box_max = " + fmt3(p.box_max) +
                                           " give an empty box: box_min < box_max is needed on "
                                           "every axis (the " +
                                           kAxisNames[axis] + " axis is not)");
    }
  }
  // The smallest side a particle must fit in: every axis but a periodic one of one cell (the depth of a 2D case,
  // where particles are discs).
  double smallest = std::numeric_limits<double>::infinity();
  for (int axis = 0; axis < 3; ++axis) {
    if (config.size[axis] == 1 && config.faces[2 * axis].kind == FaceKind::periodic) continue;
    smallest = std::min(smallest, domain[axis]);
  }
  if (std::isinf(smallest)) smallest = 1.0;  // 1 x 1 x 1 and periodic: still one cell
  require_finite(source, "particles.diameter", p.diameter);
  if (!(p.diameter > 0.0 && p.diameter < smallest)) {
    source.fail("particles.diameter",
                "particles.diameter = " + fmt(p.diameter) +
                    " is out of range: diameter must be > 0 and below the smallest domain side, " + fmt(smallest) +
                    " cells (domain.size = " + fmt3(config.size) + "; a periodic axis of one cell does not count)");
  }
  // The drag's response time rho_p d^2 / (18 nu) must stay a normal number in float arithmetic: d^2 of 1e-300
  // is 0, and the particle update divides by it.
  if (p.diameter < kMinParticleDiameter) {
    source.fail("particles.diameter",
                "particles.diameter = " + fmt(p.diameter) + " is out of range: diameter must be >= " +
                    fmt(kMinParticleDiameter) + " cells (its square enters the drag's response time); particles "
                    "that small follow the flow: use kind = \"tracer\"");
  }
  require_finite(source, "particles.density", p.density);
  if (!(p.density > 0.0)) {
    source.fail("particles.density", "particles.density = " + fmt(p.density) +
                                         " is out of range: density must be > 0 (particle density / fluid density)");
  }
  for (double g : p.gravity) require_finite(source, "particles.gravity", g);
  const bool tracer = p.kind == ParticleKind::tracer;
  const auto inertial_only = [&](const char* key, const std::string& value) {
    source.fail(key, std::string(key) + " = " + value +
                         " is only used by kind = \"inertial\" (kind is \"tracer\"): "
                         "tracers move with the fluid velocity and feel no force");
  };
  if (tracer && p.gravity != std::array<double, 3>{0.0, 0.0, 0.0}) inertial_only("particles.gravity", fmt3(p.gravity));
  if (tracer && p.two_way) inertial_only("particles.two_way", "true");
  if (tracer && p.contacts) inertial_only("particles.contacts", "true");
  if (tracer && p.pair_force != PairForce::none) inertial_only("particles.pair_force", "\"gravity\"");
  require_finite(source, "particles.contact_stiffness", p.contact_stiffness);
  require_finite(source, "particles.contact_damping", p.contact_damping);
  if (p.contacts && !(p.contact_stiffness > 0.0)) {
    source.fail("particles.contact_stiffness", "particles.contact_stiffness = " + fmt(p.contact_stiffness) +
                                                   " is out of range: contacts = true needs contact_stiffness > 0 "
                                                   "(lattice force per cell of overlap)");
  }
  if (p.contact_damping < 0.0) {
    source.fail("particles.contact_damping", "particles.contact_damping = " + fmt(p.contact_damping) +
                                                 " is out of range: contact_damping must be >= 0");
  }
  if (!p.contacts && p.contact_search != ContactSearch::cell_list) {
    source.fail("particles.contact_search",
                "particles.contact_search = \"all_pairs\" is only used with particles.contacts = true; set it or "
                "leave contact_search at \"cell_list\"");
  }
  require_finite(source, "particles.gravity_constant", p.gravity_constant);
  require_finite(source, "particles.softening", p.softening);
  if (p.pair_force == PairForce::gravity && p.count > kMaxAllPairsParticles) {
    source.fail("particles.count", "particles.count = " + std::to_string(p.count) + " is too many for pair_force = "
                                   "\"gravity\": all pairs cost count^2 per step; at most " +
                                   std::to_string(kMaxAllPairsParticles) + " (about 0.2 s per step on an H200 at "
                                   "262,144)");
  }
  if (p.pair_force == PairForce::gravity && !(p.gravity_constant > 0.0)) {
    source.fail("particles.gravity_constant", "particles.gravity_constant = " + fmt(p.gravity_constant) +
                                                  " is out of range: pair_force = \"gravity\" needs "
                                                  "gravity_constant > 0 (G, lattice units)");
  }
  if (!(p.softening > 0.0)) {
    source.fail("particles.softening",
                "particles.softening = " + fmt(p.softening) + " is out of range: softening must be > 0 (cells)");
  }
}

/// [thermal] before finalize_physics (which needs Pr and Ra when the free-fall velocity fixes nu): the temperature
/// walls and the "temperature" output field need the section; Pr, Ra, gravity and the perturbation are checked;
/// dT, T_ref and the initial T get their defaults from the fixed walls. Idempotent: a default is filled only where
/// the field still holds its "derive" value (0 for dT, NaN for the two temperatures), and filling it again gives the
/// same value. Without the section, NaN temperatures become 0 so that no NaN leaves finalize.
void finalize_thermal_inputs(CaseConfig& config, const Source& source) {
  ThermalConfig& t = config.thermal;
  bool any_fixed = false;
  double coldest = std::numeric_limits<double>::infinity();
  double hottest = -std::numeric_limits<double>::infinity();
  for (int face = 0; face < 6; ++face) {
    if (t.walls[face] != ThermalWall::fixed) continue;
    const std::string key = "boundary." + std::string(kFaceNames[face]) + ".temperature";
    const double value = t.wall_temperature[face];
    if (!t.enabled) {
      source.fail(key, key + " = " + fmt(value) +
                           " needs a [thermal] section (the temperature field is only solved with it): add "
                           "[thermal] with at least prandtl, or remove " + key);
    }
    if (config.faces[face].kind == FaceKind::periodic) {
      source.fail(key, key + " = " + fmt(value) + " is on a periodic face (axis " + kAxisNames[face_axis(face)] +
                           " is periodic in domain.periodic): only walls have a temperature; remove it or make the "
                           "axis non-periodic");
    }
    require_finite(source, key, value);
    any_fixed = true;
    coldest = std::min(coldest, value);
    hottest = std::max(hottest, value);
  }
  const auto& fields = config.output_fields;
  if (!t.enabled && std::find(fields.begin(), fields.end(), "temperature") != fields.end()) {
    source.fail("output.fields", "output.fields lists \"temperature\", which needs a [thermal] section (the "
                                 "temperature field is only solved with it): add [thermal] or remove "
                                 "\"temperature\" from output.fields");
  }
  if (!t.enabled) {
    if (std::isnan(t.reference_temperature)) t.reference_temperature = 0.0;
    if (std::isnan(t.initial_temperature)) t.initial_temperature = 0.0;
    return;
  }

  require_finite(source, "thermal.prandtl", t.prandtl);
  if (!(t.prandtl > 0)) {
    source.fail("thermal.prandtl",
                "thermal.prandtl = " + fmt(t.prandtl) + " is out of range: prandtl must be > 0 (Pr = nu / kappa)");
  }
  require_finite(source, "thermal.rayleigh", t.rayleigh);
  if (t.rayleigh < 0) {
    source.fail("thermal.rayleigh", "thermal.rayleigh = " + fmt(t.rayleigh) +
                                        " is out of range: rayleigh must be >= 0 (0 = passive scalar, no buoyancy)");
  }
  require_finite(source, "thermal.perturbation", t.perturbation);
  if (t.perturbation < 0) {
    source.fail("thermal.perturbation",
                "thermal.perturbation = " + fmt(t.perturbation) + " is out of range: perturbation must be >= 0");
  }
  // The direction of gravity, normalised; a vector already of unit length (to rounding) is kept as it is, so that a
  // second call does not move its last bits.
  auto& g = t.gravity_direction;
  for (double c : g) require_finite(source, "thermal.gravity", c);
  const double largest = std::max({std::abs(g[0]), std::abs(g[1]), std::abs(g[2])});
  if (!(largest > 0)) {
    source.fail("thermal.gravity", "thermal.gravity = " + fmt3(g) +
                                       " has no direction: give the direction of gravity, a non-zero vector such as "
                                       "[0, -1, 0] (the default; its length does not matter)");
  }
  // Scaled by the largest component first, so that neither huge nor tiny (subnormal) vectors overflow or underflow.
  const std::array<double, 3> scaled = {g[0] / largest, g[1] / largest, g[2] / largest};
  const double norm = largest * std::sqrt(scaled[0] * scaled[0] + scaled[1] * scaled[1] + scaled[2] * scaled[2]);
  if (std::abs(norm - 1.0) > 1e-14) {
    const double unit = std::sqrt(scaled[0] * scaled[0] + scaled[1] * scaled[1] + scaled[2] * scaled[2]);
    for (int a = 0; a < 3; ++a) g[a] = scaled[a] / unit;
  }

  // Defaults from the fixed walls (0 = derive for dT, NaN = derive for the temperatures).
  require_finite(source, "thermal.temperature_difference", t.temperature_difference);
  if (t.temperature_difference < 0) {
    source.fail("thermal.temperature_difference",
                "thermal.temperature_difference = " + fmt(t.temperature_difference) +
                    " is out of range: temperature_difference must be > 0 (dT of Ra; 0 = hottest minus coldest fixed "
                    "wall)");
  }
  if (t.temperature_difference == 0.0 && any_fixed) t.temperature_difference = hottest - coldest;
  if (std::isnan(t.reference_temperature)) t.reference_temperature = any_fixed ? (coldest + hottest) / 2 : 0.0;
  require_finite(source, "thermal.reference_temperature", t.reference_temperature);
  if (std::isnan(t.initial_temperature)) t.initial_temperature = t.reference_temperature;
  require_finite(source, "thermal.initial_temperature", t.initial_temperature);
  // Temperatures and their differences must stay finite in single precision (float and fp16 storage compute in
  // float): magnitudes up to 1e30 leave room for differences and products.
  const auto within = [&](const std::string& key, double value) {
    if (std::abs(value) > kMaxTemperature) {
      source.fail(key, key + " = " + fmt(value) + " is out of range: temperatures must be within +-" +
                           fmt(kMaxTemperature) + " (the arithmetic is single precision with float and fp16 "
                           "storage); use other temperature units");
    }
  };
  for (int face = 0; face < 6; ++face) {
    if (t.walls[face] == ThermalWall::fixed) {
      within("boundary." + std::string(kFaceNames[face]) + ".temperature", t.wall_temperature[face]);
    }
  }
  within("thermal.reference_temperature", t.reference_temperature);
  within("thermal.initial_temperature", t.initial_temperature);
  within("thermal.perturbation", t.perturbation);
  within("thermal.temperature_difference", t.temperature_difference);
  if (t.temperature_difference > 0 && t.temperature_difference < 1.0 / kMaxTemperature) {
    source.fail("thermal.temperature_difference",
                "thermal.temperature_difference = " + fmt(t.temperature_difference) +
                    " is out of range: it must be 0 (derived) or >= " + fmt(1.0 / kMaxTemperature) +
                    " (g beta = Ra nu kappa / (dT L^3) must stay finite in single precision)");
  }
  // Ra and Nu are built on the distance between the heated walls: with exactly one axis whose two faces both have a
  // fixed temperature (a cavity heated from the side, a layer heated from below), L defaults to its size.
  if (config.length == 0.0) {
    int heated_axes = 0, heated_axis = 0;
    for (int axis = 0; axis < 3; ++axis) {
      if (t.walls[2 * axis] == ThermalWall::fixed && t.walls[2 * axis + 1] == ThermalWall::fixed) {
        ++heated_axes;
        heated_axis = axis;
      }
    }
    if (heated_axes == 1) config.length = config.size[heated_axis];
  }
  if (t.rayleigh > 0 && !(t.temperature_difference > 0)) {
    source.fail("thermal.temperature_difference",
                "thermal.rayleigh = " + fmt(t.rayleigh) +
                    " > 0 needs a temperature difference dT > 0 (Ra = g beta dT L^3 / (nu kappa)), and the walls "
                    "give none (" +
                    (any_fixed ? "every fixed wall is at " + fmt(hottest) : std::string("no wall has a temperature")) +
                    "): give two walls different boundary.<face>.temperature values or set "
                    "thermal.temperature_difference (or set thermal.rayleigh = 0 for a passive scalar)");
  }
}

/// [thermal] after physics and the initial condition: kappa = nu / Pr, g beta = Ra nu kappa / (dT L^3) and the
/// sub-steps of the explicit scalar update (kernels/scalar_transport.hpp), dt = 1 LBM step split into n. With
/// d = kappa / n the diffusion number of one sub-step, the update is stable for d <= 1/6 (Gershgorin bound of the
/// explicit update: the centre weight 1 - 6 d stays >= 0) and d <= 1/8 when a face is a fixed-temperature wall (the
/// second-order wall flux puts 3 kappa on the wall cell: 1 - 8 d >= 0); the advective condition is sum C^2 / d <= 2
/// (Hindmarsh, Gresho & Griffiths 1984) with C = |U| / n, i.e. n >= |U|^2 / (2 kappa), taken with a factor-2
/// margin: n >= |U|^2 / kappa, |U| the largest imposed speed (max_speed). n is the smallest meeting both, at most
/// kMaxThermalSubsteps. Recomputed from the current values on every call.
void finalize_thermal(CaseConfig& config, const Source& source) {
  ThermalConfig& t = config.thermal;
  if (!t.enabled) {
    t.diffusivity = 0.0;
    t.buoyancy = 0.0;
    t.substeps = 1;
    return;
  }
  t.diffusivity = config.nu / t.prandtl;
  const double length3 = config.length * config.length * config.length;
  t.buoyancy = t.rayleigh > 0 ? t.rayleigh * config.nu * t.diffusivity / (t.temperature_difference * length3) : 0.0;
  if (!std::isfinite(t.diffusivity) || !(t.diffusivity > 0) || !std::isfinite(t.buoyancy)) {
    source.fail("thermal.prandtl",
                "thermal.prandtl = " + fmt(t.prandtl) +
                    " gives derived values that are not all finite and positive (kappa = nu / Pr = " +
                    fmt(t.diffusivity) + ", g beta = Ra nu kappa / (dT L^3) = " + fmt(t.buoyancy) + " with nu = " +
                    fmt(config.nu) + ", dT = " + fmt(t.temperature_difference) + ", L = " + fmt(config.length) + ")");
  }
  // The speed buoyancy drives: U_ff = sqrt(g beta dT L) (with nu from the free-fall velocity it is physics.velocity;
  // with nu given by tau, viscosity or reynolds it follows from Ra).
  t.free_fall_velocity = std::sqrt(t.buoyancy * t.temperature_difference * config.length);
  if (std::sqrt(3.0) * t.free_fall_velocity > kMachLimit) {
    if (config.units.enabled) {
      source.fail("thermal.rayleigh",
                  "thermal.rayleigh = " + fmt(t.rayleigh) + " gives the free-fall velocity sqrt(g beta dT L) = " +
                      fmt(t.free_fall_velocity, 4) + " lattice units, Mach number " +
                      fmt(std::sqrt(3.0) * t.free_fall_velocity, 4) + " > " + fmt(kMachLimit) +
                      ": with [units], set units.velocity to the free-fall velocity (nu / L) sqrt(Ra / Pr) = " +
                      fmt(config.units.viscosity / config.units.length * std::sqrt(t.rayleigh / t.prandtl), 6) +
                      " m/s, so that the lattice velocity measures it");
    }
    source.fail("thermal.rayleigh",
                "thermal.rayleigh = " + fmt(t.rayleigh) + " with nu = " + fmt(config.nu, 6) +
                    " gives the free-fall velocity sqrt(g beta dT L) = " + fmt(t.free_fall_velocity, 4) +
                    " (g beta = " + fmt(t.buoyancy, 4) + ", L = " + fmt(config.length) + "), Mach number " +
                    fmt(std::sqrt(3.0) * t.free_fall_velocity, 4) + " > " + fmt(kMachLimit) +
                    ": the buoyant flow would be too fast for the lattice; lower the viscosity (a smaller physics.tau or "
                    "physics.viscosity, a larger physics.reynolds), or give none of them and set physics.velocity to the "
                    "free-fall velocity (<= " + fmt(kMachLimit / std::sqrt(3.0), 4) +
                    "), from which nu = U L sqrt(Pr / Ra) follows");
  }
  const bool fixed_wall =
      std::any_of(t.walls.begin(), t.walls.end(), [](ThermalWall w) { return w == ThermalWall::fixed; });
  const double per_step = fixed_wall ? 8.0 : 6.0;  // d = kappa / n <= 1/8, or 1/6 without fixed walls
  auto [speed, speed_key] = max_speed(config);
  if (t.free_fall_velocity > speed) {
    speed = t.free_fall_velocity;
    speed_key = "the free-fall velocity sqrt(g beta dT L)";
  }
  const double diffusion_steps = std::ceil(t.diffusivity * per_step);
  const double advection_steps = std::ceil(speed * speed / t.diffusivity);
  const double steps = std::max({1.0, diffusion_steps, advection_steps});
  if (!(steps <= kMaxThermalSubsteps)) {
    const bool diffusion_bound = diffusion_steps >= advection_steps;
    source.fail("thermal.prandtl",
                "thermal.prandtl = " + fmt(t.prandtl) + " gives kappa = nu / Pr = " + fmt(t.diffusivity, 6) +
                    " (nu = " + fmt(config.nu, 6) + "), and with |U| = " + fmt(speed, 6) + " (" + speed_key +
                    ") the explicit temperature update needs n = " + fmt(steps, 12) +
                    " sub-steps per LBM step, more than " + std::to_string(kMaxThermalSubsteps) +
                    " (stability: kappa / n <= 1/" + fmt(per_step) + ", n >= |U|^2 / kappa = " +
                    fmt(speed * speed / t.diffusivity, 6) + "); " +
                    (diffusion_bound
                         ? "kappa is too large: raise thermal.prandtl, or lower the viscosity (physics.tau or "
                           "physics.viscosity; at fixed reynolds or rayleigh, a lower physics.velocity)"
                         : "kappa is too small for the speed: lower physics.velocity, or raise the resolution "
                           "(domain.size and physics.length: at fixed reynolds or rayleigh nu grows with L), or "
                           "lower thermal.prandtl"));
  }
  t.substeps = static_cast<int>(steps);
}

/// [units] before finalize_physics: dx, dt, the lattice velocity and viscosity from the SI values. Refuses a grid
/// too coarse for the Reynolds number (tau too close to 1/2) or for the length (fewer than kMinUnitsCells cells
/// across it), with the numbers and the fix. Idempotent.
void finalize_units(CaseConfig& config, const Source& source) {
  UnitsConfig& u = config.units;
  if (!u.enabled) return;
  for (const auto& [key, value] : {std::pair<const char*, double>{"units.length", u.length}, {"units.dx", u.dx},
                                   {"units.velocity", u.velocity}, {"units.viscosity", u.viscosity},
                                   {"units.density", u.density}, {"units.lattice_velocity", u.lattice_velocity}}) {
    require_finite(source, key, value);
  }
  const double cells = config.length > 0 ? config.length : double(config.size[0]);
  if (cells < kMinUnitsCells) {
    source.fail("physics.length", "physics.length = " + fmt(cells) + " cells across the characteristic length (" +
                                      fmt(u.length > 0 ? u.length : u.dx * cells) + " m) are too few to resolve it: "
                                      "use at least " + fmt(kMinUnitsCells) + " (domain.size, physics.length)");
  }
  if (u.length > 0) {
    u.dx = u.length / cells;
  } else {
    u.length = u.dx * cells;
  }
  if (!(u.lattice_velocity > 0) || std::sqrt(3.0) * u.lattice_velocity > kMachLimit) {
    source.fail("units.lattice_velocity",
                "units.lattice_velocity = " + fmt(u.lattice_velocity) + " is out of range: it must be > 0 and keep "
                "Ma = sqrt(3) U_lat <= " + fmt(kMachLimit) + " (U_lat <= " + fmt(kMachLimit / std::sqrt(3.0), 4) +
                "; 0.1 is the default)");
  }
  u.dt = u.lattice_velocity * u.dx / u.velocity;
  const double nu = u.viscosity * u.dt / (u.dx * u.dx);
  const double reynolds = u.velocity * u.length / u.viscosity;
  if (!std::isfinite(u.dt) || !std::isfinite(nu) || !(nu > 0)) {
    source.fail("units.viscosity", "the [units] values give no finite time step and viscosity (dt = " + fmt(u.dt) +
                                       " s, nu = " + fmt(nu) + " lattice): check their orders of magnitude");
  }
  // nu_lat = U_lat L_cells / Re: the lattice velocity that gives a wanted nu_lat on this grid.
  const auto lattice_velocity_for = [&](double nu_lat) { return nu_lat * reynolds / cells; };
  const double nu_min = min_viscosity(config);
  if (tau_of(nu) < config.min_tau) {
    const double cells_needed = std::ceil(nu_min * reynolds / u.lattice_velocity);
    const double faster = lattice_velocity_for(nu_min);
    source.fail("units.viscosity",
                "units.viscosity = " + fmt(u.viscosity) + " m^2/s gives Re = U L / nu = " + fmt(reynolds, 6) +
                    ", which on " + fmt(cells) + " cells at lattice velocity " + fmt(u.lattice_velocity) +
                    " needs nu = " + fmt(nu, 4) + " (lattice): " + below_min_tau(config, tau_of(nu)) +
                    "; use at least " + fmt(cells_needed) +
                    " cells across the length (domain.size and physics.length)" +
                    (faster <= kMachLimit / std::sqrt(3.0)
                         ? ", or units.lattice_velocity >= " + fmt(faster, 4)
                         : std::string(" (a larger units.lattice_velocity cannot do it within Ma <= 0.3)")) +
                    accept_low_tau(tau_of(nu)));
  }
  if (nu > kMaxUnitsViscosity) {
    source.fail("units.viscosity",
                "units.viscosity = " + fmt(u.viscosity) + " m^2/s gives Re = " + fmt(reynolds, 6) + ", which on " +
                    fmt(cells) + " cells at lattice velocity " + fmt(u.lattice_velocity) + " needs tau = " +
                    fmt(3.0 * nu + 0.5, 6) + ", far above 1 (inaccurate, and unstable at walls): lower "
                    "units.lattice_velocity to about " + fmt(lattice_velocity_for(1.0 / 6.0), 4) +
                    " (tau = 1), or use fewer cells");
  }
  config.velocity = u.lattice_velocity;
  config.nu = nu;
  config.tau = 0.0;  // derived from nu by finalize_physics
  config.reynolds = 0.0;
}

void finalize_with(CaseConfig& config, const Source& source) {
  if (config.name.empty()) {
    config.name = std::filesystem::path(config.source_file).stem().string();
    if (config.name.empty()) config.name = "case";
  }
  finalize_domain(config, source);
  finalize_thermal_inputs(config, source);  // Pr and Ra first: with Ra > 0 they may fix nu
  finalize_min_tau(config, source);         // the tau limit of both unit systems
  finalize_units(config, source);           // SI values fix U and nu
  finalize_physics(config, source);
  finalize_initial(config, source);
  finalize_mach(config, source);
  finalize_thermal(config, source);  // kappa, g beta and the sub-steps need nu, L and the largest speed
  finalize_numerics_run_output(config, source);
  finalize_parallel(config, source);
  finalize_particles(config, source);
  finalize_out_of_core(config, source);
}

}  // namespace

const std::vector<CaseSection>& case_file_schema() {
  static const std::vector<CaseSection> sections = {
      {"case", {"name"}},
      {"domain", {"size", "periodic"}},
      {"boundary", {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"}},
      {"physics", {"velocity", "length", "reynolds", "tau", "viscosity", "body_force"}},
      {"initial", {"type", "amplitude"}},
      {"numerics", {"collision", "magic", "min_tau", "storage", "out_of_core", "device_memory_limit", "time_block", "slabs"}},
      {"run", {"steps", "report_every"}},
      {"output", {"every", "directory", "vtk", "centerlines", "fields"}},
      {"parallel", {"ranks", "transport", "overlap", "device"}},
      {"checkpoint", {"every", "directory"}},
      {"units", {"length", "dx", "velocity", "viscosity", "density", "lattice_velocity"}},
      {"particles",
       {"kind", "count", "box_min", "box_max", "seed", "positions", "diameter", "density", "gravity", "two_way",
        "walls", "contacts", "contact_stiffness", "contact_damping", "contact_search", "pair_force", "gravity_constant",
        "softening"}},
      {"thermal",
       {"prandtl", "rayleigh", "gravity", "reference_temperature", "temperature_difference", "initial_temperature",
        "perturbation"}},
  };
  return sections;
}

const std::vector<std::string_view>& boundary_face_keys() {
  static const std::vector<std::string_view> keys = {"type", "velocity", "temperature"};
  return keys;
}

std::optional<std::int64_t> memory_size_bytes(std::string_view text) {
  const std::optional<double> bytes = parse_memory_size(text);
  if (!bytes || std::round(*bytes) < 1.0 || std::round(*bytes) > double(kMaxDeviceMemory)) return std::nullopt;
  return std::int64_t(std::round(*bytes));
}

double CaseConfig::mach() const { return max_speed(*this).first * std::sqrt(3.0); }

void finalize_case(CaseConfig& config) { finalize_with(config, Source(config.source_file)); }

CaseConfig parse_case(const std::string& toml_text, const std::string& origin,
                      const std::vector<std::string>& overrides) {
  Source source(origin);
  check_key_nesting(toml_text, source.origin());  // before toml++, which recurses once per key part
  check_non_ascii(toml_text, source.origin());    // before toml++, whose Unicode whitespace test can be undefined
  toml::table root;
  try {
    root = toml::parse(toml_text, source.origin());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw InputError(blank_control_characters(source.origin() + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                              ": TOML syntax error: " + std::string(e.description())));
  }
  for (const auto& text : overrides) apply_override(root, text, source);
  CaseConfig config = read_case(root, source);
  config.source_file = origin;
  finalize_with(config, source);
  return config;
}

CaseConfig load_case(const std::string& path, const std::vector<std::string>& overrides) {
  namespace fs = std::filesystem;
  // Only regular files (or symlinks to them): a FIFO would block the read, /dev/zero would never end.
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) throw CaseFileError(blank_control_characters("cannot open case file '" + path + "': " + ec.message()));
  if (fs::is_directory(status)) {
    throw CaseFileError(blank_control_characters("cannot read case file '" + path + "': " + std::strerror(EISDIR) +
                              " (expected a TOML case file)"));
  }
  if (!fs::is_regular_file(status)) {
    throw CaseFileError(blank_control_characters(path + ": not a regular file (expected a TOML case file)"));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw CaseFileError(blank_control_characters("cannot read case file '" + path + "': " + ec.message()));
  if (size > kMaxCaseFileBytes) {
    throw InputError(blank_control_characters(path + ": the case file is too large: " + std::to_string(size) +
                              " bytes exceeds the limit of " + std::to_string(kMaxCaseFileBytes) + " bytes (16 MiB)"));
  }

  // O_NONBLOCK: should the path be swapped for a FIFO after the check, open does not wait for a writer (and the
  // fstat below rejects it); it has no effect on regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw CaseFileError(blank_control_characters("cannot open case file '" + path + "': " + std::strerror(errno)));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw CaseFileError(blank_control_characters(path + ": not a regular file (expected a TOML case file)"));
  }
  std::string text;
  char buffer[65536];
  int error = 0;
  while (true) {
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    if (count == 0) break;
    text.append(buffer, std::size_t(count));
    if (text.size() > kMaxCaseFileBytes) break;  // grew since the size check
  }
  ::close(fd);
  if (error != 0) throw CaseFileError(blank_control_characters("cannot read case file '" + path + "': " + std::strerror(error)));
  if (text.size() > kMaxCaseFileBytes) {
    throw InputError(blank_control_characters(path + ": the case file is too large: more than the limit of " +
                              std::to_string(kMaxCaseFileBytes) + " bytes (16 MiB)"));
  }
  return parse_case(text, path, overrides);
}

}  // namespace eddy
