// Copies of populations between two arrays of one block (kernels/launchers.hpp), for the out-of-place steps of the
// adjoint's kept states (solver/adjoint.cpp, Simulation::advance_into):
//   copy_fluid_populations: a state without the slots of solid cells, which are not part of it (no step reads them:
//     kernels/streaming.hpp) and which the array written keeps; 19 * sizeof(T) read and written per non-solid cell;
//   copy_open_ghost_populations: the ghost nodes of open faces only. The open-face pass sets their slots that point
//     into the domain; the others, which no step writes, a later exchange may copy along a periodic or rank face to
//     where a step reads them (a second exchange after Simulation::population_array, for one). Copied before an
//     out-of-place step, they hold what an in-place step would have left. The other ghost slots an out-of-place step
//     does not write are not read before the exchange or the step writes them (kernels/streaming.hpp).
#include <cstdint>

#include "kernels/cell_flags.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

/// Which cells' slots CopyCells copies.
enum class Cells { non_solid, open_ghosts };

/// All 19 slots of the cells of a box that are not solid (Cells::non_solid) or that are ghost nodes of open faces
/// (Cells::open_ghosts).
template <class T, Cells kCells>
struct CopyCells {
  PopulationView<T> to, from;
  FlagView flags;
  BlockShape shape;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    const CellFlag flag = flags.flag[cell];
    if (kCells == Cells::non_solid ? is_solid(flag) : !is_open(flag)) return;
    for (int i = 0; i < d3q19::Q; ++i) to.f[i * to.n_cells + cell] = from.f[i * from.n_cells + cell];
  }
};

}  // namespace

template <class T>
void copy_open_ghost_populations(const PopulationView<T>& to, const PopulationView<T>& from, const FlagView& flags,
                                 const BlockShape& shape, const bool (&faces)[6], const backend::Stream* stream) {
  for (int face = 0; face < 6; ++face) {
    if (!faces[face]) continue;
    const int axis = face / 2;
    Box plane = shape.whole();
    plane.lo[axis] = face % 2 == 0 ? 0 : shape.n[axis] + 1;
    plane.hi[axis] = plane.lo[axis] + 1;
    parallel_for(plane, CopyCells<T, Cells::open_ghosts>{to, from, flags, shape}, "copy_open_ghost_populations",
                 stream);
  }
}

template <class T>
void copy_fluid_populations(const PopulationView<T>& to, const PopulationView<T>& from, const FlagView& flags,
                            const BlockShape& shape, const backend::Stream* stream) {
  parallel_for_aligned(shape, shape.whole(), CopyCells<T, Cells::non_solid>{to, from, flags, shape},
                       "copy_fluid_populations", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                         \
  template void copy_fluid_populations<T>(const PopulationView<T>&, const PopulationView<T>&, const FlagView&,      \
                                          const BlockShape&, const backend::Stream*);                               \
  template void copy_open_ghost_populations<T>(const PopulationView<T>&, const PopulationView<T>&, const FlagView&, \
                                               const BlockShape&, const bool(&)[6], const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
