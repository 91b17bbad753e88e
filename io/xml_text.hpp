// XML text helpers for the plain-text VTK XML files eddy writes itself (.pvd collection, .pvti).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace eddy {

/// `text` with the five XML special characters replaced by entities (safe in attribute values and text).
inline std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// Inverse of xml_escape, also for numeric character references (&#38; &#x26;, written as UTF-8). Other '&'
/// sequences are kept as they are.
inline std::string xml_unescape(const std::string& text) {
  static const char* const kEntities[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""},
                                             {"&apos;", "'"}};
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text.compare(i, 2, "&#") == 0) {
      const bool hex = i + 2 < text.size() && (text[i + 2] == 'x' || text[i + 2] == 'X');
      std::size_t p = i + (hex ? 3 : 2);
      std::uint32_t code = 0;
      bool digits = false, too_large = false;
      for (; p < text.size(); ++p) {
        const char c = text[p];
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
        if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0) break;
        code = code * (hex ? 16u : 10u) + std::uint32_t(d);
        too_large = too_large || code > 0x10ffffu;
        digits = true;
      }
      if (digits && !too_large && code > 0 && p < text.size() && text[p] == ';') {
        if (code < 0x80) {
          out += char(code);
        } else if (code < 0x800) {
          out += char(0xc0 | (code >> 6));
          out += char(0x80 | (code & 0x3f));
        } else if (code < 0x10000) {
          out += char(0xe0 | (code >> 12));
          out += char(0x80 | ((code >> 6) & 0x3f));
          out += char(0x80 | (code & 0x3f));
        } else {
          out += char(0xf0 | (code >> 18));
          out += char(0x80 | ((code >> 12) & 0x3f));
          out += char(0x80 | ((code >> 6) & 0x3f));
          out += char(0x80 | (code & 0x3f));
        }
        i = p + 1;
        continue;
      }
    }
    for (const auto& entity : kEntities) {
      const std::string name = entity[0];
      if (text.compare(i, name.size(), name) == 0) {
        out += entity[1];
        i += name.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

}  // namespace eddy
