// Writing a simulation's per-cell force field and porosity (Simulation::force_array and porosity_array, the Python
// module's sim.force and sim.porosity) from a test, through their device arrays' shapes and strides.
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

/// Writes value(n) into device array `a` (float or double) for every element n in C order of its shape.
template <class Fn>
inline void write_array(const DeviceArray& a, Fn value) {
  std::vector<unsigned char> host(std::size_t(span_bytes(a)));
  backend::synchronize();
  backend::copy_to_host(host.data(), a.data, host.size());
  std::size_t count = 1;
  for (std::int64_t e : a.shape) count *= std::size_t(e);
  std::vector<std::int64_t> index(a.shape.size(), 0);
  for (std::size_t n = 0; n < count; ++n) {
    std::int64_t at = 0;
    for (std::size_t k = 0; k < index.size(); ++k) at += index[k] * a.strides[k];
    const double v = value(std::int64_t(n));
    if (a.bytes == 8) {
      std::memcpy(host.data() + at * 8, &v, 8);
    } else {
      const float f = float(v);
      std::memcpy(host.data() + at * 4, &f, 4);
    }
    for (std::size_t k = index.size(); k-- > 0;) {  // the next index in C order
      if (++index[k] < a.shape[k]) break;
      index[k] = 0;
    }
  }
  backend::copy_to_device(a.data, host.data(), host.size());
}

/// Sets sim's force field to value(component, k) at interior cell k (x fastest), through the device array.
template <class Fn>
inline void set_force_field(Simulation& sim, Fn value) {
  const DeviceArray a = sim.force_array();
  ASSERT_EQ(a.shape.size(), 4u);
  ASSERT_EQ(a.shape[3], 3);
  write_array(a, [&](std::int64_t n) { return value(int(n % 3), n / 3); });
}

/// Sets sim's porosity field (Simulation::porosity_array) to value(k) at interior cell k (x fastest).
template <class Fn>
inline void set_porosity(Simulation& sim, Fn value) {
  const DeviceArray a = sim.porosity_array();
  ASSERT_EQ(a.shape.size(), 3u);
  write_array(a, value);
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
