// DeviceArray: a strided array in device memory (host memory on the cpu backend), described for zero-copy views of a
// rank's block outside the solver (the Python module, python/): where the array starts, its element type, and its
// shape and strides over the block's interior cells. Plain data, no ownership: the Simulation that handed it out
// owns the memory (Simulation::population_array and the others, solver/simulation.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/block.hpp"

namespace eddy {

/// The array's element at index (i0, i1, ...) lives at data + sum_k i_k strides[k] elements.
struct DeviceArray {
  void* data = nullptr;
  char kind = 'f';                    ///< 'f': IEEE binary floating point (2, 4 or 8 bytes), 'u': unsigned integer
  int bytes = 0;                      ///< bytes of one element
  std::vector<std::int64_t> shape;    ///< extents, slowest axis first
  std::vector<std::int64_t> strides;  ///< in elements, one per axis
  bool writable = false;              ///< writes change the state the next step starts from
};

/// The interior cells of a per-cell array of block `shape` (kernels/block.hpp: ghost layer and row padding, x
/// fastest) whose element 0 is at `base`: shape (nz, ny, nx), or (components, nz, ny, nx) when `components` > 0
/// with `component_stride` elements from one component to the next; with `components_last` the component axis
/// comes last instead, (nz, ny, nx, components).
inline DeviceArray block_interior_array(void* base, const BlockShape& shape, char kind, int bytes, bool writable,
                                        int components = 0, std::int64_t component_stride = 0,
                                        bool components_last = false) {
  DeviceArray a;
  a.kind = kind;
  a.bytes = bytes;
  a.writable = writable;
  a.data = static_cast<unsigned char*>(base) + shape.index(1, 1, 1) * std::int64_t(bytes);
  a.shape = {shape.n[2], shape.n[1], shape.n[0]};
  a.strides = {std::int64_t(shape.pitch()) * (shape.n[1] + 2), shape.pitch(), 1};
  if (components > 0) {
    a.shape.insert(components_last ? a.shape.end() : a.shape.begin(), components);
    a.strides.insert(components_last ? a.strides.end() : a.strides.begin(), component_stride);
  }
  return a;
}

}  // namespace eddy
