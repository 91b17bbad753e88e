// io/case/rules.hpp: the pieces every section of the case reader shares (no toml++ here): the formatting of values
// in messages, Source (the one place an InputError about a case is thrown), Entry (a key and its value as a message
// quotes it) and the range helpers that build the "<key> = <value> is out of range: ..." messages.
//
// A range rule is written once, as a call of one of these helpers in the section's file (io/case/<section>.cpp);
// the reader applies it to the value as written in the file, finalize_case to the plain struct (cases built in code),
// so both say the same thing. Messages are the user's interface: keep their texts stable.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace eddy::case_io {

/// Largest lattice Mach number a case may reach (Ma = sqrt(3) u, kernels/lattice_units.hpp).
inline constexpr double kMachLimit = 0.3;
inline constexpr std::array<const char*, 3> kAxisNames = {"x", "y", "z"};

/// The axis of a face in kFaceNames order (x_min, x_max: 0; y: 1; z: 2).
inline int face_axis(int face) { return face / 2; }

// ---- formatting ----------------------------------------------------------------------------------------------------

/// Shortest faithful text of a computed double (up to `digits` significant digits, printf %g), e.g. 0.5, 0.173205.
std::string fmt(double value, int digits = 10);

/// "[a, b, c]" of three booleans, integers or doubles (doubles as fmt writes them).
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

/// The items joined by `separator`.
std::string join(const std::vector<std::string_view>& items, std::string_view separator = ", ");

/// `text` without leading and trailing spaces and tabs.
std::string trim(std::string_view text);

/// True when dotted keys `a` and `b` are equal or one is a parent table of the other ("boundary.y_max" and
/// "boundary.y_max.velocity").
bool keys_related(std::string_view a, std::string_view b);

// ---- where the configuration came from -----------------------------------------------------------------------------

/// Where the configuration came from: the file (or origin) name, and which keys --set replaced. All InputErrors
/// are built here so that every message starts with the origin and mentions the --set that caused it, if any.
class Source {
 public:
  explicit Source(std::string origin) : origin_(origin.empty() ? std::string("case") : std::move(origin)) {}

  const std::string& origin() const { return origin_; }

  /// Notes that --set `text` replaced the dotted `key`.
  void record_override(std::string key, std::string text) { overrides_.emplace_back(std::move(key), std::move(text)); }
  /// True when a --set replaced exactly the dotted `key`.
  bool overridden(std::string_view key) const;

  /// Throws InputError "<origin>: <message>" (control characters blanked), noting the latest --set that touched
  /// `key` (a dotted key; "" notes none).
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

 private:
  std::string origin_;
  std::vector<std::pair<std::string, std::string>> overrides_;  // dotted key, the full --set text
};

/// Throws "<key> = <value> is not a finite number" unless `value` is finite.
void require_finite(const Source& source, const std::string& key, double value);

// ---- one value and its range rules ---------------------------------------------------------------------------------

/// A dotted key and its value as a message quotes it: "<key> = <text>". Readers quote the value as written in the
/// file (Section::entry, as_written() true), finalize_case formats the struct's value (fmt, fmt3, std::to_string).
class Entry {
 public:
  Entry(const Source& source, std::string key, std::string text, bool as_written = false)
      : source_(source), key_(std::move(key)), text_(std::move(text)), as_written_(as_written) {}

  const Source& source() const { return source_; }
  const std::string& key() const { return key_; }
  /// "<key> = <text>", the start of most messages.
  std::string quote() const { return key_ + " = " + text_; }
  /// The key's last part ("density" for particles.density), as the range rules name the quantity.
  std::string name() const { return key_.substr(key_.rfind('.') + 1); }
  /// True for a value quoted from the case file (a reader), false for one of the plain struct (finalize_case).
  bool as_written() const { return as_written_; }

  /// Throws "<key> = <text><message>", e.g. message " is not allowed: ...".
  [[noreturn]] void fail(const std::string& message) const { source_.fail(key_, quote() + message); }
  /// Throws "<key> = <text> is out of range: <rule>".
  [[noreturn]] void out_of_range(const std::string& rule) const { fail(" is out of range: " + rule); }

 private:
  const Source& source_;
  std::string key_;
  std::string text_;
  bool as_written_;
};

/// Refuses `value` unless > 0 (NaN too): "<key> = <v> is out of range: <name> must be > 0 (<what>)"; an empty
/// `what` leaves out the parenthesis.
void require_positive(const Entry& entry, double value, std::string_view what = {});
/// Refuses `value` < 0: "<key> = <v> is out of range: <name> must be >= 0 (<what>)"; an empty `what` leaves out the
/// parenthesis.
void require_non_negative(const Entry& entry, double value, std::string_view what = {});
/// Refuses `value` outside [lo, hi]: "<key> = <v> is out of range: <rule>" (the rule says the range in words).
void require_in(const Entry& entry, std::int64_t value, std::int64_t lo, std::int64_t hi, const std::string& rule);

/// The integer bounds for require_in's open ends.
inline constexpr std::int64_t kNoLowerBound = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kNoUpperBound = std::numeric_limits<std::int64_t>::max();

}  // namespace eddy::case_io
