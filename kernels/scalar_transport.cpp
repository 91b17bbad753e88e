// Launcher of the scalar transport step (kernels/scalar_transport.hpp): one pass over the interior cells, each
// column walked along z (kernels/column_march.hpp).
#include <cstdint>

#include "kernels/column_march.hpp"
#include "kernels/scalar_launchers.hpp"

namespace eddy {

template <class R>
void advance_scalar(const R* t, R* t_next, const R* const (&u)[3], const FlagView& flags, const BlockShape& shape,
                    const Box& box, const ScalarWalls<R>& walls, R kappa, R dt, const backend::Stream* stream) {
  if (std::uint64_t(shape.n_cells()) <= std::uint64_t(UINT32_MAX)) {
    const ScalarColumnStep<R, std::uint32_t> k{{t, t_next, {u[0], u[1], u[2]}, flags, shape, walls, kappa, dt}};
    parallel_for_columns(box, k, "advance_scalar", stream);
  } else {
    const ScalarColumnStep<R, std::int64_t> k{{t, t_next, {u[0], u[1], u[2]}, flags, shape, walls, kappa, dt}};
    parallel_for_columns(box, k, "advance_scalar", stream);
  }
}

#define EDDY_INSTANTIATE(R)                                                                                           \
  template void advance_scalar<R>(const R*, R*, const R* const(&)[3], const FlagView&, const BlockShape&, const Box&, \
                                  const ScalarWalls<R>&, R, R, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
