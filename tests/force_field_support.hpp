// Writing a simulation's per-cell force field (Simulation::force_array, the Python module's sim.force) from a test,
// through its device array's shape and strides.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/backend.hpp"
#include "solver/device_arrays.hpp"
#include "solver/simulation.hpp"

namespace eddy::test {

/// Bytes from the first element of `a` to one past its last.
inline std::int64_t span_bytes(const DeviceArray& a) {
  std::int64_t last = 0;
  for (std::size_t k = 0; k < a.shape.size(); ++k) last += (a.shape[k] - 1) * a.strides[k];
  return (last + 1) * a.bytes;
}

/// Sets sim's force field to value(component, k) at interior cell k (x fastest), through the device array.
template <class Fn>
inline void set_force_field(Simulation& sim, Fn value) {
  const DeviceArray a = sim.force_array();
  ASSERT_EQ(a.shape.size(), 4u);
  ASSERT_EQ(a.shape[3], 3);
  std::vector<unsigned char> host(std::size_t(span_bytes(a)));
  backend::synchronize();
  backend::copy_to_host(host.data(), a.data, host.size());
  std::int64_t k = 0;
  for (std::int64_t z = 0; z < a.shape[0]; ++z)
    for (std::int64_t y = 0; y < a.shape[1]; ++y)
      for (std::int64_t x = 0; x < a.shape[2]; ++x, ++k)
        for (int c = 0; c < 3; ++c) {
          const std::int64_t at = (z * a.strides[0] + y * a.strides[1] + x * a.strides[2] + c * a.strides[3]) * a.bytes;
          const double v = value(c, k);
          if (a.bytes == 8) {
            std::memcpy(host.data() + at, &v, 8);
          } else {
            const float f = float(v);
            std::memcpy(host.data() + at, &f, 4);
          }
        }
  backend::copy_to_device(a.data, host.data(), host.size());
}

/// The elements of device array `a` (float or double) in C order of its shape, as double on the host.
inline std::vector<double> read_array(const DeviceArray& a) {
  std::vector<unsigned char> host(std::size_t(span_bytes(a)));
  backend::synchronize();
  backend::copy_to_host(host.data(), a.data, host.size());
  std::size_t count = 1;
  for (std::int64_t e : a.shape) count *= std::size_t(e);
  std::vector<double> out(count);
  std::vector<std::int64_t> index(a.shape.size(), 0);
  for (std::size_t n = 0; n < count; ++n) {
    std::int64_t at = 0;
    for (std::size_t k = 0; k < index.size(); ++k) at += index[k] * a.strides[k];
    if (a.bytes == 8) {
      std::memcpy(&out[n], host.data() + at * 8, 8);
    } else {
      float f;
      std::memcpy(&f, host.data() + at * 4, 4);
      out[n] = f;
    }
    for (std::size_t k = index.size(); k-- > 0;) {  // the next index in C order
      if (++index[k] < a.shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace eddy::test
