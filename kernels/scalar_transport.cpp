// Launcher of the scalar transport step (kernels/scalar_transport.hpp): one pass over the interior cells.
#include "kernels/parallel_for.hpp"
#include "kernels/scalar_launchers.hpp"

namespace eddy {

template <class R>
void advance_scalar(const R* t, R* t_next, const R* const (&u)[3], const FlagView& flags, const BlockShape& shape,
                    const ScalarWalls<R>& walls, R kappa, R dt, const backend::Stream* stream) {
  const ScalarStep<R> k{t, t_next, {u[0], u[1], u[2]}, flags, shape, walls, kappa, dt};
  parallel_for(shape.interior(), k, "advance_scalar", stream);
}

#define EDDY_INSTANTIATE(R)                                                                               \
  template void advance_scalar<R>(const R*, R*, const R* const(&)[3], const FlagView&, const BlockShape&, \
                                  const ScalarWalls<R>&, R, R, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
