// Host-side views of a block's population array, shared by the in-core simulation (which downloads the array) and
// the out-of-core one (whose array lives in host memory): the interior cells' f_i, and their raw slots.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "kernels/storage.hpp"
#include "kernels/streaming.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

/// Calls fn(k, cell) for every interior cell of `shape`: k its interior index (x fastest), cell its block index.
template <class Fn>
void for_each_interior(const BlockShape& shape, Fn fn) {
  std::int64_t k = 0;
  for (int z = 1; z <= shape.n[2]; ++z)
    for (int y = 1; y <= shape.n[1]; ++y)
      for (int x = 1; x <= shape.n[0]; ++x) fn(k++, shape.index(x, y, z));
}

/// Post-collision populations f_i (not shifted) of the interior cells, [i * interior_cells + k], from the block
/// array `all` ([i * n_cells + cell], f_i - w_i as stored) held in `layout`, with every pending exchange done.
template <class T>
std::vector<double> interior_populations(const T* all, const CellFlag* flags, const BlockShape& shape,
                                         PopulationLayout layout, const WallVelocities<compute_t<T>>& walls) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells();
  std::vector<double> out(std::size_t(d3q19::Q) * std::size_t(n));
  const PopulationView<const T> view{all, stride};
  for_each_interior(shape, [&](std::int64_t k, std::int64_t cell) {
    for (int i = 0; i < d3q19::Q; ++i) {
      const double g =
          load_leaving<double>(view, layout == PopulationLayout::swapped, FlagView{flags}, shape, cell, walls, i);
      out[i * n + k] = g + d3q19::w<double>(i);
    }
  });
  return out;
}

/// Writes post-collision populations f ([i * interior_cells + k]) into the interior slots of `all` in the "swapped"
/// layout (the next step streams them).
template <class T>
void set_interior_populations(T* all, const BlockShape& shape, const std::vector<double>& f) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells();
  for_each_interior(shape, [&](std::int64_t k, std::int64_t cell) {
    for (int i = 0; i < d3q19::Q; ++i) {
      all[d3q19::opp(i) * stride + cell] = Stored<T>::store(compute_t<T>(f[i * n + k] - d3q19::w<double>(i)));
    }
  });
}

/// Calls fn(i, z, y) for every population i and interior row (y, z) of `shape`, the rows shared out over the host
/// threads. Rows are contiguous in the block array (x fastest) and in the packed one.
template <class Fn>
void for_each_interior_row(const BlockShape& shape, int z_first, int z_last, Fn fn) {
  const int rows = shape.n[1], planes = z_last - z_first + 1;
#pragma omp parallel for collapse(3) schedule(static)
  for (int i = 0; i < d3q19::Q; ++i)
    for (int dz = 0; dz < planes; ++dz)
      for (int y = 1; y <= rows; ++y) fn(i, z_first + dz, y);
}

/// Copies the 19 raw slots of every interior cell between the block array and a packed array [i * interior + k],
/// a row of x at a time.
template <class T>
void pack_interior_slots(const T* all, const BlockShape& shape, T* packed) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells(), row = shape.n[0];
  for_each_interior_row(shape, 1, shape.n[2], [&](int i, int z, int y) {
    std::copy_n(all + i * stride + shape.index(1, y, z), row,
                packed + i * n + (std::int64_t(z - 1) * shape.n[1] + (y - 1)) * row);
  });
}
template <class T>
void unpack_interior_slots(const T* packed, const BlockShape& shape, T* all) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells(), row = shape.n[0];
  for_each_interior_row(shape, 1, shape.n[2], [&](int i, int z, int y) {
    std::copy_n(packed + i * n + (std::int64_t(z - 1) * shape.n[1] + (y - 1)) * row, row,
                all + i * stride + shape.index(1, y, z));
  });
}

/// The interior slots of the block array `all` as the bytes of RawState::populations ([i * interior + k], the
/// storage type's bytes each).
template <class T>
std::vector<unsigned char> packed_interior_bytes(const T* all, const BlockShape& shape) {
  std::vector<unsigned char> bytes(std::size_t(d3q19::Q) * std::size_t(shape.interior_cells()) * sizeof(T));
  pack_interior_slots(all, shape, reinterpret_cast<T*>(bytes.data()));
  return bytes;
}
/// Moves the interior slots of a block array in device memory (`device_all`) and a packed host array
/// ([i * interior + k]) without a host copy of the whole array: each population's planes travel a slab at a time
/// through a page-locked buffer of about `chunk_bytes` (fast transfers on a GPU), its rows copied by the host
/// threads. `to_device` false: device to packed; true: packed into the device array's interior (the slab is read
/// first, so the ghost layer keeps its values). The device must be synchronised with the array's last writer.
template <class T>
void transfer_interior_slots(T* device_all, const BlockShape& shape, T* packed, bool to_device,
                             std::size_t chunk_bytes = std::size_t(64) << 20) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells(), row = shape.n[0];
  const std::int64_t plane = std::int64_t(shape.pitch()) * (shape.n[1] + 2);
  const int slab = int(std::clamp<std::int64_t>(std::int64_t(chunk_bytes / (plane * sizeof(T))), 1, shape.n[2]));
  PinnedBuffer<T> staging(std::size_t(slab) * std::size_t(plane));
  for (int i = 0; i < d3q19::Q; ++i) {
    for (int z0 = 1; z0 <= shape.n[2]; z0 += slab) {
      const int planes = std::min(shape.n[2], z0 + slab - 1) - z0 + 1, rows = shape.n[1];
      T* device = device_all + i * stride + shape.index(0, 0, z0);
      const std::size_t bytes = std::size_t(planes) * std::size_t(plane) * sizeof(T);
      backend::copy_to_host(staging.data(), device, bytes);
#pragma omp parallel for collapse(2) schedule(static)
      for (int dz = 0; dz < planes; ++dz)
        for (int y = 1; y <= rows; ++y) {
          T* slot = staging.data() + dz * plane + shape.index(1, y, 0);
          T* value = packed + i * n + (std::int64_t(z0 + dz - 1) * rows + (y - 1)) * row;
          if (to_device) {
            std::copy_n(value, row, slot);
          } else {
            std::copy_n(slot, row, value);
          }
        }
      if (to_device) backend::copy_to_device(device, staging.data(), bytes);
    }
  }
}

/// packed_interior_bytes of a block array in device memory (transfer_interior_slots), into `reuse` when it is given
/// (an earlier result of the same size: filled as it is, without clearing or new pages).
template <class T>
std::vector<unsigned char> download_interior_bytes(const T* device_all, const BlockShape& shape,
                                                   std::vector<unsigned char> reuse = {}) {
  std::vector<unsigned char> bytes = std::move(reuse);
  bytes.resize(std::size_t(d3q19::Q) * std::size_t(shape.interior_cells()) * sizeof(T));
  transfer_interior_slots(const_cast<T*>(device_all), shape, reinterpret_cast<T*>(bytes.data()), false);
  return bytes;
}

/// The inverse of download_interior_bytes: `bytes` ([i * interior + k], sized by the caller's checks) into the
/// interior of the block array in device memory.
template <class T>
void upload_interior_bytes(const std::vector<unsigned char>& bytes, const BlockShape& shape, T* device_all) {
  // Read only when copying to the device: the cast lets one routine serve both directions.
  transfer_interior_slots(device_all, shape, reinterpret_cast<T*>(const_cast<unsigned char*>(bytes.data())), true);
}

/// The inverse of packed_interior_bytes: `bytes` (sized by the caller's checks) into the block array `all`.
template <class T>
void unpack_interior_bytes(const std::vector<unsigned char>& bytes, const BlockShape& shape, T* all) {
  unpack_interior_slots(reinterpret_cast<const T*>(bytes.data()), shape, all);
}

}  // namespace eddy
