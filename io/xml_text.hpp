// XML text helpers for the plain-text VTK XML files eddy writes itself (.pvd collection, .pvti).
#pragma once

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

}  // namespace eddy
