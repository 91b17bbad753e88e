// Number formatting for text output: round-trip numbers (CSV, .pvd), memory sizes for messages.
#pragma once

#include <charconv>
#include <cstdio>
#include <string>

namespace eddy {

/// `value` with 17 significant digits, as printf("%.17g") prints it in the C locale, whatever the process
/// locale ("nan", "inf" for non-finite values). Reading it back gives the same double.
inline std::string format_exact(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general, 17);
  return std::string(buffer, result.ptr);
}

/// A memory size for messages: 3 significant digits in the largest binary unit it reaches ("4.00 MiB",
/// "7.71 GiB", "512 B").
inline std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (unit < 6 && bytes >= 1024.0) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s",
                bytes, units[unit]);
  return text;
}

}  // namespace eddy
