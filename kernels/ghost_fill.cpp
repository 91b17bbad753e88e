// Periodic ghost copies of one block (a periodic axis that this rank spans alone), for the in-place AA scheme
// (kernels/streaming.hpp). At ghost plane 0 the 5 populations with c_i[axis] = -1 are copied, at plane n + 1 those
// with c_i[axis] = +1: the ones that point out of the block there.
//   into the ghosts (before an odd step): plane 0 <- plane n, plane n + 1 <- plane 1. These slots hold the
//     post-collision populations that the interior planes send across the periodic boundary. The ghost nodes of
//     open faces (kOpen, on the edges where an open face meets this axis) are skipped: the open-face pass writes
//     there the populations the odd step gathers from them, and a fill repeated after that pass (a caller that
//     took the population array, solver/lattice_simulation.cpp) must not overwrite them. No step reads their
//     other slots.
//   out of the ghosts (after an odd step): plane n <- plane 0, plane 1 <- plane n + 1. The odd step wrote there
//     the populations that left the block; they arrive at the other side. A slot whose upstream cell (the cell it
//     streams from, x - c_i) is solid is skipped: the odd step bounced a population into it at x itself.
// Each copy spans the whole extent of the two other axes, ghosts included: x, y, z into the ghosts and z, y, x out
// of them carry edges and corners (a diagonal population moves one axis per pass).
// Bytes per ghost cell: 5 * sizeof(T) read + 5 * sizeof(T) written.
#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "kernels/halo_pack.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

template <class T>
struct PeriodicCopy {
  PopulationView<T> a;
  BlockShape shape;
  FlagView flags;
  int axis;
  bool into_ghosts;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    int p[3] = {x, y, z};
    const int ghost_plane = p[axis];
    const int outwards = ghost_plane == 0 ? -1 : 1;
    p[axis] = ghost_plane == 0 ? shape.n[axis] : 1;  // the interior cell paired with this ghost
    const std::int64_t ghost = shape.index(x, y, z);
    const std::int64_t interior = shape.index(p[0], p[1], p[2]);
    if (into_ghosts && is_open(flags.flag[ghost])) return;
    const std::int64_t to = into_ghosts ? ghost : interior, from = into_ghosts ? interior : ghost;
EDDY_UNROLL
    for (int i = 1; i < d3q19::Q; ++i) {
      if (d3q19::c(i, axis) != outwards) continue;
      // Out of the ghosts, a slot whose upstream cell is solid holds the interior cell's own bounced population,
      // and one whose upstream cell lies beyond the block (in a ghost row) is read by no cell.
      if (!into_ghosts && !upstream_is_fluid(flags, shape, p, i)) continue;
      a.f[i * a.n_cells + to] = a.f[i * a.n_cells + from];
    }
  }
};

}  // namespace

template <class T>
void copy_periodic_ghosts(const PopulationView<T>& a, const FlagView& flags, const BlockShape& shape, int axis,
                          bool into_ghosts, const backend::Stream* stream) {
  Box low = shape.whole();
  low.hi[axis] = 1;
  Box high = shape.whole();
  high.lo[axis] = shape.n[axis] + 1;
  parallel_for(low, PeriodicCopy<T>{a, shape, flags, axis, into_ghosts}, "copy_periodic_ghosts", stream);
  parallel_for(high, PeriodicCopy<T>{a, shape, flags, axis, into_ghosts}, "copy_periodic_ghosts", stream);
}

template void copy_periodic_ghosts<float>(const PopulationView<float>&, const FlagView&, const BlockShape&, int, bool,
                                          const backend::Stream*);
template void copy_periodic_ghosts<double>(const PopulationView<double>&, const FlagView&, const BlockShape&, int, bool,
                                           const backend::Stream*);
template void copy_periodic_ghosts<half_t>(const PopulationView<half_t>&, const FlagView&, const BlockShape&, int, bool,
                                           const backend::Stream*);

}  // namespace eddy
