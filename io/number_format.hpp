// Round-trip number formatting for text output (CSV, .pvd).
#pragma once

#include <charconv>
#include <string>

namespace eddy {

/// `value` with 17 significant digits, as printf("%.17g") prints it in the C locale, whatever the process
/// locale ("nan", "inf" for non-finite values). Reading it back gives the same double.
inline std::string format_exact(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general, 17);
  return std::string(buffer, result.ptr);
}

}  // namespace eddy
