// Macroscopic fields of a block: rho = sum_i f_i, u = (sum_i f_i c_i + F/2) / rho (Guo et al. 2002, eq. 17),
// from the populations streaming into each interior cell (same gather as the fused kernel, no collision), or, before
// the first step, from each cell's own (initial) populations.
// Bytes per cell: 19 * sizeof(T) read + 1 flag byte + 4 * sizeof(T) written. Used for output and diagnostics.
#include "kernels/equilibrium.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/streaming.hpp"

namespace eddy {
namespace {

template <class T>
struct Moments {
  using R = compute_t<T>;
  PopulationView<T> src;
  FlagView flags;
  BlockShape shape;
  R force[3];
  WallVelocities<R> walls;
  MomentView<R> out;
  bool stream;  // false: moments of the cell's own populations (the initial state, before any step)

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    const std::int64_t k = (x - 1) + std::int64_t(shape.n[0]) * ((y - 1) + std::int64_t(shape.n[1]) * (z - 1));
    const CellFlag own = flags.flag[cell];
    if (is_solid(own)) {
      out.rho[k] = R(0);
      out.u[0][k] = out.u[1][k] = out.u[2][k] = R(0);
      return;
    }
    R f[d3q19::Q];
    if (stream) {
      gather_populations(src, flags, shape, cell, own, walls, f);
    } else {
      EDDY_UNROLL
      for (int i = 0; i < d3q19::Q; ++i) f[i] = Stored<T>::load(src.f[i * src.n_cells + cell]);
    }
    R drho, rho, u[3];
    shifted_moments(f, force, drho, rho, u);
    out.rho[k] = rho;
    out.u[0][k] = u[0];
    out.u[1][k] = u[1];
    out.u[2][k] = u[2];
  }
};

}  // namespace

template <class T>
void compute_moments(const PopulationView<T>& src, const FlagView& flags, const BlockShape& shape,
                     const compute_t<T> (&force)[3], const WallVelocities<compute_t<T>>& walls,
                     const MomentView<compute_t<T>>& out, bool stream_in, const backend::Stream* stream) {
  Moments<T> m{src, flags, shape, {force[0], force[1], force[2]}, walls, out, stream_in};
  parallel_for(shape.interior(), m, "compute_moments", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                    \
  template void compute_moments<T>(const PopulationView<T>&, const FlagView&, const BlockShape&,                   \
                                   const compute_t<T>(&)[3], const WallVelocities<compute_t<T>>&,                  \
                                   const MomentView<compute_t<T>>&, bool, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
