// Host-side views of a block's population array, shared by the in-core simulation (which downloads the array) and
// the out-of-core one (whose array lives in host memory): the interior cells' f_i, and their raw slots.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "kernels/storage.hpp"
#include "kernels/streaming.hpp"

namespace eddy {

/// Calls fn(k, cell) for every interior cell of `shape`: k its interior index (x fastest), cell its block index.
template <class Fn>
void for_each_interior(const BlockShape& shape, Fn fn) {
  std::int64_t k = 0;
  for (int z = 1; z <= shape.n[2]; ++z)
    for (int y = 1; y <= shape.n[1]; ++y)
      for (int x = 1; x <= shape.n[0]; ++x) fn(k++, shape.index(x, y, z));
}

/// The same on all host threads, z-planes shared out: fn must only touch cell k's own data.
template <class Fn>
void for_each_interior_parallel(const BlockShape& shape, Fn fn) {
  const std::int64_t plane = std::int64_t(shape.n[0]) * shape.n[1];
#pragma omp parallel for schedule(static)
  for (int z = 1; z <= shape.n[2]; ++z) {
    std::int64_t k = (z - 1) * plane;
    for (int y = 1; y <= shape.n[1]; ++y)
      for (int x = 1; x <= shape.n[0]; ++x) fn(k++, shape.index(x, y, z));
  }
}

/// Post-collision populations f_i (not shifted) of the interior cells, [i * interior_cells + k], from the block
/// array `all` ([i * n_cells + cell], f_i - w_i as stored) held in `layout`, with every pending exchange done.
template <class T>
std::vector<double> interior_populations(const T* all, const CellFlag* flags, const BlockShape& shape,
                                         PopulationLayout layout, const WallVelocities<compute_t<T>>& walls) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells();
  std::vector<double> out(std::size_t(d3q19::Q) * std::size_t(n));
  for_each_interior(shape, [&](std::int64_t k, std::int64_t cell) {
    for (int i = 0; i < d3q19::Q; ++i) {
      // f*_i(x): "swapped" keeps it in slot opp(i) of x; "own" has moved it to slot i of x + c_i, or, when that
      // cell is solid, bounced it into slot opp(i) of x with the wall's Ladd term added.
      double g;
      if (layout == PopulationLayout::swapped) {
        g = double(Stored<T>::load(all[d3q19::opp(i) * stride + cell]));
      } else {
        const std::int64_t to = cell + shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2));
        const CellFlag neighbour = flags[to];
        if (!is_solid(neighbour)) {
          g = double(Stored<T>::load(all[i * stride + to]));
        } else {
          g = double(Stored<T>::load(all[d3q19::opp(i) * stride + cell]));
          if (neighbour >= kMovingWall) g -= double(ladd_term(d3q19::opp(i), walls.u[neighbour - kMovingWall]));
        }
      }
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

/// Copies the 19 raw slots of every interior cell between the block array and a packed array [i * interior + k].
template <class T>
void pack_interior_slots(const T* all, const BlockShape& shape, T* packed) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells();
  for_each_interior_parallel(shape, [&](std::int64_t k, std::int64_t cell) {
    for (int i = 0; i < d3q19::Q; ++i) packed[i * n + k] = all[std::size_t(i * stride + cell)];
  });
}
template <class T>
void unpack_interior_slots(const T* packed, const BlockShape& shape, T* all) {
  const std::int64_t n = shape.interior_cells(), stride = shape.n_cells();
  for_each_interior_parallel(shape, [&](std::int64_t k, std::int64_t cell) {
    for (int i = 0; i < d3q19::Q; ++i) all[std::size_t(i * stride + cell)] = packed[i * n + k];
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
/// The inverse of packed_interior_bytes: `bytes` (sized by the caller's checks) into the block array `all`.
template <class T>
void unpack_interior_bytes(const std::vector<unsigned char>& bytes, const BlockShape& shape, T* all) {
  unpack_interior_slots(reinterpret_cast<const T*>(bytes.data()), shape, all);
}

}  // namespace eddy
