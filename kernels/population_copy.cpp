// Copies of populations between two arrays of one block (kernels/launchers.hpp), for the out-of-place steps of the
// adjoint's kept states (solver/adjoint.cpp, Simulation::advance_into):
//   copy_fluid_populations: a state without the slots of solid cells, which are not part of it (no step reads them:
//     kernels/streaming.hpp) and which the array written keeps; 19 * sizeof(T) read and written per non-solid cell;
//   copy_ghost_populations: the ghost layer only, the slots an out-of-place step does not write there but later
//     passes may read (the open faces' ghost nodes' other directions, the periodic planes' edges), so that they hold
//     what an in-place step would have left.
#include <cstdint>

#include "kernels/cell_flags.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

template <class T>
struct CopyFluidPopulations {
  PopulationView<T> to, from;
  FlagView flags;
  BlockShape shape;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    if (is_solid(flags.flag[cell])) return;
    for (int i = 0; i < d3q19::Q; ++i) to.f[i * to.n_cells + cell] = from.f[i * from.n_cells + cell];
  }
};

/// All 19 slots of every cell of a box.
template <class T>
struct CopyCells {
  PopulationView<T> to, from;
  BlockShape shape;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    for (int i = 0; i < d3q19::Q; ++i) to.f[i * to.n_cells + cell] = from.f[i * from.n_cells + cell];
  }
};

}  // namespace

template <class T>
void copy_ghost_populations(const PopulationView<T>& to, const PopulationView<T>& from, const BlockShape& shape,
                            const backend::Stream* stream) {
  const int e[3] = {shape.n[0] + 2, shape.n[1] + 2, shape.n[2] + 2};
  const int n[3] = {shape.n[0], shape.n[1], shape.n[2]};
  // The ghost layer as six slabs, each ghost cell once: the z planes whole, the y planes between them, the x planes
  // between those.
  const Box slabs[6] = {{{0, 0, 0}, {e[0], e[1], 1}},         {{0, 0, n[2] + 1}, {e[0], e[1], e[2]}},
                        {{0, 0, 1}, {e[0], 1, n[2] + 1}},     {{0, n[1] + 1, 1}, {e[0], e[1], n[2] + 1}},
                        {{0, 1, 1}, {1, n[1] + 1, n[2] + 1}}, {{n[0] + 1, 1, 1}, {e[0], n[1] + 1, n[2] + 1}}};
  for (const Box& slab : slabs) parallel_for(slab, CopyCells<T>{to, from, shape}, "copy_ghost_populations", stream);
}

template <class T>
void copy_fluid_populations(const PopulationView<T>& to, const PopulationView<T>& from, const FlagView& flags,
                            const BlockShape& shape, const backend::Stream* stream) {
  parallel_for_aligned(shape, shape.whole(), CopyFluidPopulations<T>{to, from, flags, shape}, "copy_fluid_populations",
                       stream);
}

#define EDDY_INSTANTIATE(T)                                                                                      \
  template void copy_fluid_populations<T>(const PopulationView<T>&, const PopulationView<T>&, const FlagView&,   \
                                          const BlockShape&, const backend::Stream*);                            \
  template void copy_ghost_populations<T>(const PopulationView<T>&, const PopulationView<T>&, const BlockShape&, \
                                          const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
