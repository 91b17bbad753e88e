// io/case/toml_guards.hpp: scans of the raw case text that run before toml::parse, refusing input that toml++ 3.3.0
// (Debian 12) mishandles: keys nested so deep that its recursion overflows the stack, and non-ASCII characters where
// its Unicode whitespace test reaches undefined behaviour. Plain text in, no toml++ here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace eddy::case_io {

/// Dot-separated parts of one key or table header at most (in the file and in --set).
inline constexpr int kMaxKeyParts = 64;

/// The line of the first key or table header with more than kMaxKeyParts dot-separated parts, if any.
/// toml++ nests one table per part recursively, so tens of thousands of parts ([a.a.a...]) overflow its stack: this
/// scan runs before toml::parse. It follows just enough TOML to know where keys are: table headers [..] / [[..]],
/// the key before '=' at the start of a line and the keys inside inline tables {..}. Quoted strings (all four kinds,
/// multi-line too) and comments are skipped, so dots inside quoted keys and in values do not count.
std::optional<std::size_t> deep_key_line(std::string_view text);

/// Throws "<origin>:<line>: key nesting deeper than 64 levels" for a key or header of more than 64 parts.
void check_key_nesting(std::string_view text, const std::string& origin);

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
std::optional<NonAscii> unsafe_non_ascii(std::string_view text);

/// Why unsafe_non_ascii refuses the text, for messages.
std::string non_ascii_problem(const NonAscii& found);

/// Throws "<origin>:<line>: non-ASCII character ..." for text that unsafe_non_ascii refuses.
void check_non_ascii(std::string_view text, const std::string& origin);

}  // namespace eddy::case_io
