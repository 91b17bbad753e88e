// The Python exceptions of the module: one class per entry of solver/errors.hpp's list (EDDY_ERROR_TYPES), made from
// that list at import, and the translation of a C++ exception into its class with the same message.
#pragma once

#include <pybind11/pybind11.h>

#include <stdexcept>

namespace eddy::python {

/// Use of a simulation after close(), or of one of its arrays: Python's ValueError (as for a closed file).
class ClosedError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Adds eddy.Error (the base, an Exception with exit_code 1) and one subclass per error type to `module`, each with
/// the type's parent, its `exit_code` (the code `eddy run` exits with) and its doc line, and installs the
/// translator: an exception of a listed type raises its class with what(); std::bad_alloc raises OutOfMemoryError
/// with the command line's message; ClosedError raises ValueError; anything else goes on to pybind11's defaults.
void register_errors(pybind11::module_& module);

}  // namespace eddy::python
