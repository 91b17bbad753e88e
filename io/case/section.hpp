// io/case/section.hpp: one table of the parsed case file (toml++) with typed getters that report a wrong type, a
// non-finite number or a bad choice, naming "<section>.<key>"; and the checks of the top level.
//
// toml++ (Debian 12: 3.3.0) does not compile under nvcc: include this header only in host-only io/ sources.
#pragma once

#include <toml++/toml.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/case/rules.hpp"
#include "io/case/schema.hpp"

namespace eddy::case_io {

/// Shortest text of a double that reads back to the same value (1e-05 style exponents are fine in messages).
std::string float_text(double value);
/// One-line TOML-like text of a node for messages: strings in double quotes, arrays as [a, b, c], tables as {...}.
std::string node_text(const toml::node& node);
/// "a string", "an integer", "an array of 3 elements (integer, float, string)", ... for messages.
std::string type_name(const toml::node& node);

/// The value of a number node (integer or float), an integer node, a boolean node; nullopt for another type.
std::optional<double> as_number(const toml::node& node);
std::optional<std::int64_t> as_integer(const toml::node& node);
std::optional<bool> as_boolean(const toml::node& node);

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

  /// The key and its value as written, for the range helpers of io/case/rules.hpp (the key must be present).
  Entry entry(std::string_view key) const { return Entry(source_, path(key), node_text(*find(key)), true); }

  [[noreturn]] void fail(std::string_view key, const std::string& message) const { source_.fail(path(key), message); }

  /// Rejects any key of this table that is not in `allowed` (the schema), listing the allowed keys.
  void check_keys(const std::vector<std::string_view>& allowed) const;

  /// Throws "<section>.<key> = <value> has the wrong type (<type>): expected <expected>".
  [[noreturn]] void wrong_type(std::string_view key, std::string_view expected) const;

  /// The value of `key`, nullopt when absent; throws on a wrong type (and, for numbers, a non-finite value).
  std::optional<double> number(std::string_view key) const;
  std::optional<std::int64_t> integer(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  /// The array of strings at `key` (present), a name list such as [output] fields: each name once and each passed
  /// to `check`, which throws (fail) with its own reason for a name it refuses. `empty_message`: the error for an
  /// empty array; empty itself, an empty array is refused as the wrong type, like a non-array.
  std::vector<std::string> distinct_names(std::string_view key, const std::function<void(const std::string&)>& check,
                                          const std::string& empty_message = {}) const;
  /// Arrays of exactly three values [x, y, z] (numbers finite).
  std::optional<std::array<double, 3>> number3(std::string_view key) const;
  std::optional<std::array<std::int64_t, 3>> integer3(std::string_view key) const;
  std::optional<std::array<bool, 3>> boolean3(std::string_view key) const;

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
Section sub_section(const Section& parent, std::string_view key);

/// The top-level table [name], possibly absent; a non-table is a type error.
Section top_section(const Source& source, const toml::table& root, std::string_view name);

/// Rejects unknown top-level names and sections that are not tables; a key that belongs in a section ("steps") gets
/// a hint ("run.steps").
void check_top_level(const Source& source, const toml::table& root);

}  // namespace eddy::case_io
