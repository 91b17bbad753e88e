// Host memory as Linux reports it (/proc/meminfo), for the memory checks made before large host allocations.
#pragma once

#include <cstddef>

namespace eddy {

/// The value of `key` ("MemTotal:", "MemAvailable:", ...) in /proc/meminfo, in bytes; 0 when it cannot be read.
std::size_t host_meminfo_bytes(const char* key);

/// Memory the host can give without swapping (MemAvailable), in bytes; 0 when unknown.
inline std::size_t host_available_memory() { return host_meminfo_bytes("MemAvailable:"); }

}  // namespace eddy
