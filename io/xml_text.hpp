// XML text helpers for the plain-text VTK XML files eddy writes itself (.pvd collection, .pvti).
#pragma once

#include <cstddef>
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

/// Inverse of xml_escape: the five entities replaced by their characters (other text, including other '&'
/// sequences, is kept as it is).
inline std::string xml_unescape(const std::string& text) {
  static const char* const kEntities[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""},
                                             {"&apos;", "'"}};
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
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
