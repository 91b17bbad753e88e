// The error path of EDDY_GPU_CHECK (kernels/backend.hpp), shared by every backend.
#include <string>

#include "kernels/backend.hpp"

namespace eddy {

void throw_device_error(const char* call, const char* file, int line, const char* error_name, const char* error_string,
                        bool out_of_memory) {
  const std::string what = std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + error_name +
                           " (" + error_string + ")";
  if (out_of_memory) throw OutOfMemoryError(what);
  throw DeviceError(what);
}

}  // namespace eddy
