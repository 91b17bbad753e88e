// OutputError: a file eddy must write could not be written (unwritable or full directory, failed rename).
#pragma once

#include <stdexcept>

namespace eddy {

/// Thrown by io/ writers when output cannot be written; main() reports it once and exits with code 5.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace eddy
