#include "solver/host_memory.hpp"

#include <fstream>
#include <string>

namespace eddy {

std::size_t host_meminfo_bytes(const char* key) {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  std::size_t kib = 0;
  std::string unit;
  while (meminfo >> name >> kib >> unit) {
    if (name == key) return kib * 1024;
  }
  return 0;
}

}  // namespace eddy
