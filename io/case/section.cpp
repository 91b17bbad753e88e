// io/case/section.cpp: the typed getters of Section, the text of TOML nodes in messages and the top-level check.

#include "io/case/section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "solver/errors.hpp"

namespace eddy::case_io {

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

void Section::check_keys(const std::vector<std::string_view>& allowed) const {
  if (!table_) return;
  for (auto&& [key, node] : *table_) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    fail(key.str(), "unknown key '" + path(key.str()) + "'" + suggestion(key.str(), allowed) + "; allowed keys in [" +
                        name_ + "]: " + join(allowed));
  }
}

void Section::wrong_type(std::string_view key, std::string_view expected) const {
  fail(key, quote(key) + " has the wrong type (" + type_name(*find(key)) + "): expected " + std::string(expected));
}

std::optional<double> Section::number(std::string_view key) const {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  const auto value = as_number(*node);
  if (!value) wrong_type(key, "a number (integer or float)");
  if (!std::isfinite(*value)) fail(key, quote(key) + " is not a finite number");
  return value;
}

std::optional<std::int64_t> Section::integer(std::string_view key) const {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  const auto value = as_integer(*node);
  if (!value) wrong_type(key, "an integer (write 100, not 100.0)");
  return value;
}

std::optional<bool> Section::boolean(std::string_view key) const {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  const auto value = as_boolean(*node);
  if (!value) wrong_type(key, "a boolean (true or false)");
  return value;
}

std::optional<std::string> Section::string(std::string_view key) const {
  const toml::node* node = find(key);
  if (!node) return std::nullopt;
  const auto* value = node->as_string();
  if (!value) wrong_type(key, "a string (in double quotes)");
  return value->get();
}

std::optional<std::array<double, 3>> Section::number3(std::string_view key) const {
  auto values = array3<double>(key, as_number, "an array of 3 numbers [x, y, z]");
  if (values) {
    for (double v : *values) {
      if (!std::isfinite(v)) fail(key, quote(key) + " is not an array of finite numbers");
    }
  }
  return values;
}

std::optional<std::array<std::int64_t, 3>> Section::integer3(std::string_view key) const {
  return array3<std::int64_t>(key, as_integer, "an array of 3 integers [x, y, z]");
}

std::optional<std::array<bool, 3>> Section::boolean3(std::string_view key) const {
  return array3<bool>(key, as_boolean, "an array of 3 booleans [x, y, z]");
}

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
      const std::string_view name = key.str();  // a structured binding cannot be captured in C++17 (clang)
      const auto section = std::find_if(case_file_schema().begin(), case_file_schema().end(),
                                        [&](const CaseSection& s) { return s.name == name; });
      if (!section->array_of_tables) top_section(source, root, key.str());  // throws unless a table
      continue;  // arrays of tables ([[solid]]): their reader checks the type
    }
    std::string hint = suggestion(key.str(), names);
    bool in_a_table = false;  // a key of a plain section wins over one of [[solid]] ("name")
    for (const auto& section : case_file_schema()) {
      if (std::find(section.keys.begin(), section.keys.end(), key.str()) == section.keys.end()) continue;
      if (section.array_of_tables && in_a_table) continue;
      in_a_table = in_a_table || !section.array_of_tables;
      const std::string header = section.array_of_tables ? "[[" + std::string(section.name) + "]]"
                                                         : "[" + std::string(section.name) + "]";
      hint = " (did you mean '" + std::string(section.name) + "." + std::string(key.str()) + "' under " + header +
             "?)";
    }
    source.fail(key.str(), "unknown section or top-level key '" + std::string(key.str()) + "'" + hint +
                               "; allowed sections: " + join(names));
  }
}

std::vector<std::string> Section::distinct_names(std::string_view key,
                                                 const std::function<void(const std::string&)>& check,
                                                 const std::string& empty_message) const {
  const toml::array* list = find(key)->as_array();
  if (!list || (list->empty() && empty_message.empty())) wrong_type(key, "a non-empty array of field names");
  if (list->empty()) fail(key, empty_message);
  std::vector<std::string> names;
  for (const toml::node& item : *list) {
    const auto* name = item.as_string();
    if (!name) wrong_type(key, "an array of strings (field names in double quotes)");
    const std::string text = name->get();
    check(text);
    if (std::find(names.begin(), names.end(), text) != names.end())
      fail(key, quote(key) + ": '" + text + "' is listed twice");
    names.push_back(text);
  }
  return names;
}

}  // namespace eddy::case_io
