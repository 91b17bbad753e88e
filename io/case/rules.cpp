// io/case/rules.cpp: formatting, Source and the range helpers of io/case/rules.hpp.

#include "io/case/rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "solver/errors.hpp"

namespace eddy::case_io {

std::string fmt(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

std::string join(const std::vector<std::string_view>& items, std::string_view separator) {
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

bool keys_related(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.substr(0, a.size()) == a && (b.size() == a.size() || b[a.size()] == '.');
}

bool Source::overridden(std::string_view key) const {
  return std::any_of(overrides_.begin(), overrides_.end(), [&](const auto& o) { return o.first == key; });
}

void Source::fail(std::string_view key, const std::string& message) const {
  std::string text = origin_ + ": " + message;
  for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
    if (!key.empty() && keys_related(it->first, key)) {
      text += " (from --set " + it->second + ")";
      break;
    }
  }
  throw InputError(blank_control_characters(text));
}

void require_finite(const Source& source, const std::string& key, double value) {
  if (!std::isfinite(value)) source.fail(key, key + " = " + fmt(value) + " is not a finite number");
}

namespace {
std::string in_parentheses(std::string_view what) {
  return what.empty() ? std::string() : " (" + std::string(what) + ")";
}
}  // namespace

void require_positive(const Entry& entry, double value, std::string_view what) {
  if (!(value > 0)) entry.out_of_range(entry.name() + " must be > 0" + in_parentheses(what));
}

void require_non_negative(const Entry& entry, double value, std::string_view what) {
  if (value < 0) entry.out_of_range(entry.name() + " must be >= 0" + in_parentheses(what));
}

void require_in(const Entry& entry, std::int64_t value, std::int64_t lo, std::int64_t hi, const std::string& rule) {
  if (value < lo || value > hi) entry.out_of_range(rule);
}

}  // namespace eddy::case_io
