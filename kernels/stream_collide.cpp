// Fused stream-collide kernel, D3Q19, pull scheme with two population buffers (structure of arrays).
//
// One pass per time step: each fluid cell gathers its 19 incoming populations (kernels/streaming.hpp: pull
// streaming with halfway bounce-back and moving walls), collides them (kernels/collision.hpp: TRT/BGK with Guo
// forcing) and writes the 19 results once.
//   f_i(x + c_i, t + 1) = f_i(x, t) + Omega_i(f(x, t)) + (1 - omega/2) S_i        Krueger et al. 2017, eq. 3.9
//
// Bytes moved per fluid cell per step: 19 * sizeof(T) read + 19 * sizeof(T) written + 1 flag byte read
//   = 153 B with float storage, 305 B with double, 77 B with fp16 (neighbour flags of near-wall cells come from
//   cache). Populations are stored as f_i - w_i (kernels/storage.hpp) and collided in compute_t<T>.
#include "kernels/collision.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/streaming.hpp"

namespace eddy {
namespace {

template <class T>
struct StreamCollide {
  using R = compute_t<T>;
  PopulationView<T> src;
  PopulationView<T> dst;
  FlagView flags;
  BlockShape shape;
  Relaxation<R> relax;
  WallVelocities<R> walls;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    const CellFlag own = flags.flag[cell];
    if (is_solid(own)) return;
    R f[d3q19::Q];
    gather_populations(src, flags, shape, cell, own, walls, f);
    R rho, u[3];
    collide(f, relax, rho, u);
    EDDY_UNROLL
    for (int i = 0; i < d3q19::Q; ++i) dst.f[i * dst.n_cells + cell] = Stored<T>::store(f[i]);
  }
};

}  // namespace

template <class T>
void stream_collide(const PopulationView<T>& src, const PopulationView<T>& dst, const FlagView& flags,
                    const BlockShape& shape, const Box& box, const Relaxation<compute_t<T>>& relax,
                    const WallVelocities<compute_t<T>>& walls, const backend::Stream* stream) {
  parallel_for(box, StreamCollide<T>{src, dst, flags, shape, relax, walls}, "stream_collide", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                      \
  template void stream_collide<T>(const PopulationView<T>&, const PopulationView<T>&, const FlagView&,               \
                                  const BlockShape&, const Box&, const Relaxation<compute_t<T>>&,                    \
                                  const WallVelocities<compute_t<T>>&, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
