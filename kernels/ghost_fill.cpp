// Periodic ghost-layer fill of one block: ghost plane 0 <- interior plane n, ghost plane n+1 <- interior plane 1,
// over the whole extent of the other two axes (ghosts included). Only the 5 populations that stream from the ghost
// plane into the interior are copied (c_i pointing inwards along the axis). Filling x, then y, then z also fills
// edges and corners: a diagonal population reaches an edge ghost in the x pass and moves on in the y pass.
// Bytes per ghost cell: 5 * sizeof(T) read + 5 * sizeof(T) written.
#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

template <class T>
struct PeriodicCopy {
  PopulationView<T> f;
  BlockShape shape;
  int axis;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    int p[3] = {x, y, z};
    const int ghost = p[axis];
    const int inwards = ghost == 0 ? 1 : -1;
    p[axis] = ghost == 0 ? shape.n[axis] : 1;
    const std::int64_t to = shape.index(x, y, z);
    const std::int64_t from = shape.index(p[0], p[1], p[2]);
EDDY_UNROLL
    for (int i = 1; i < d3q19::Q; ++i) {
      if (d3q19::c(i, axis) == inwards) f.f[i * f.n_cells + to] = f.f[i * f.n_cells + from];
    }
  }
};

}  // namespace

template <class T>
void fill_periodic_ghosts(const PopulationView<T>& f, const BlockShape& shape, int axis,
                          const backend::Stream* stream) {
  Box low = shape.whole();
  low.hi[axis] = 1;
  Box high = shape.whole();
  high.lo[axis] = shape.n[axis] + 1;
  parallel_for(low, PeriodicCopy<T>{f, shape, axis}, "fill_periodic_ghosts", stream);
  parallel_for(high, PeriodicCopy<T>{f, shape, axis}, "fill_periodic_ghosts", stream);
}

template void fill_periodic_ghosts<float>(const PopulationView<float>&, const BlockShape&, int,
                                          const backend::Stream*);
template void fill_periodic_ghosts<double>(const PopulationView<double>&, const BlockShape&, int,
                                           const backend::Stream*);
template void fill_periodic_ghosts<half_t>(const PopulationView<half_t>&, const BlockShape&, int,
                                           const backend::Stream*);

}  // namespace eddy
