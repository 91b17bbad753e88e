// A state's populations copied from one array to another without the slots of solid cells (copy_fluid_populations,
// kernels/launchers.hpp): what a step reads, for the adjoint's kept states (solver/adjoint.cpp). The slots of solid
// cells are not part of the state (no step reads them: kernels/streaming.hpp), and the array written keeps its own.
// Bytes per non-solid cell: 19 * sizeof(T) read and written, 1 flag byte.
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

}  // namespace

template <class T>
void copy_fluid_populations(const PopulationView<T>& to, const PopulationView<T>& from, const FlagView& flags,
                            const BlockShape& shape, const backend::Stream* stream) {
  parallel_for_aligned(shape, shape.whole(), CopyFluidPopulations<T>{to, from, flags, shape}, "copy_fluid_populations",
                       stream);
}

#define EDDY_INSTANTIATE(T)                                                                                    \
  template void copy_fluid_populations<T>(const PopulationView<T>&, const PopulationView<T>&, const FlagView&, \
                                          const BlockShape&, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
