// io/case/toml_guards.cpp: the pre-parse scans of io/case/toml_guards.hpp.

#include "io/case/toml_guards.hpp"

#include <vector>

#include "solver/errors.hpp"

namespace eddy::case_io {

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
    throw InputError(blank_control_characters(
        origin + ":" + std::to_string(*line) + ": key nesting deeper than " + std::to_string(kMaxKeyParts) +
        " levels (a key or table header may have at most " + std::to_string(kMaxKeyParts) + " dot-separated parts)"));
  }
}

std::optional<NonAscii> unsafe_non_ascii(std::string_view text) {
  const auto non_ascii = [&](std::size_t at) {
    return at < text.size() && static_cast<unsigned char>(text[at]) >= 0x80;
  };
  const auto one_of = [](std::string_view set, char ch) { return set.find(ch) != std::string_view::npos; };
  std::size_t line = 1;
  std::size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // a UTF-8 byte order mark, which toml++ skips
  std::vector<char> nesting;                                    // the open '[' and '{' of the current value
  bool value = false;    // after '=' or in an array, else in a key or table header
  bool bare = false;     // inside a bare value
  char previous = '\n';  // the last character outside strings
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
    throw InputError(
        blank_control_characters(origin + ":" + std::to_string(found->line) + ": " + non_ascii_problem(*found)));
  }
}

}  // namespace eddy::case_io
