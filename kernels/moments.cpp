// Macroscopic fields of a block: rho = sum_i f_i, u = (sum_i f_i c_i + F/2) / rho (Guo et al. 2002, eq. 17), from
// the populations that have arrived at each interior cell: the cell's own slots in the "own" layout, the same
// gather as the odd step of the fused kernel in the "swapped" layout (kernels/streaming.hpp), through the one moment
// read-out (kernels/cell_moments.hpp). No collision.
// Bytes per cell: 19 * sizeof(T) read + 1 flag byte + 4 * sizeof(R) written. Used for output and diagnostics,
// a slab of z-planes at a time so the output buffer stays small.
#include "kernels/cell_moments.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

template <class T>
struct Moments {
  using R = compute_t<T>;
  PopulationView<T> a;
  PopulationLayout layout;
  FlagView flags;
  BlockShape shape;
  R force[3];
  WallVelocities<R> walls;
  MomentSlab<R> out;
  ForceFieldView<R> force_field;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    const CellFlag own = flags.flag[cell];
    if (is_solid(own)) {
      const R zero[3] = {R(0), R(0), R(0)};
      out.store(x, y, z, R(0), zero);
      return;
    }
    R rho, u[3];
    arrived_moments(a, layout == PopulationLayout::swapped, flags, shape, cell, own, walls, force, force_field, rho, u);
    out.store(x, y, z, rho, u);
  }
};

}  // namespace

template <class T>
void compute_moments(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                     const BlockShape& shape, const compute_t<T> (&force)[3],
                     const WallVelocities<compute_t<T>>& walls, const MomentView<compute_t<T>>& out, int z_begin,
                     int z_end, const backend::Stream* stream, const ForceFieldView<compute_t<T>>& force_field) {
  const MomentSlab<compute_t<T>> slab_out{out, shape.n[0], shape.n[1], z_begin};
  Moments<T> m{a, layout, flags, shape, {force[0], force[1], force[2]}, walls, slab_out, force_field};
  Box slab = shape.interior();
  slab.lo[2] = z_begin;
  slab.hi[2] = z_end;
  parallel_for(slab, m, "compute_moments", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                        \
  template void compute_moments<T>(const PopulationView<T>&, PopulationLayout, const FlagView&, const BlockShape&,  \
                                   const compute_t<T>(&)[3], const WallVelocities<compute_t<T>>&,                  \
                                   const MomentView<compute_t<T>>&, int, int, const backend::Stream*,             \
                                   const ForceFieldView<compute_t<T>>&);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
