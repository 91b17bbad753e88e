// sample_probe_cells (kernels/probe_samples.hpp): the moments and T of a list of cells, one thread per cell.
// Equation, source and traffic: kernels/probe_samples.hpp.
#include "kernels/probe_samples.hpp"

#include "kernels/cell_moments.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

template <class T>
struct ProbeSamples {
  using R = compute_t<T>;
  PopulationView<T> a;
  PopulationLayout layout;
  FlagView flags;
  BlockShape shape;
  R force[3];
  WallVelocities<R> walls;
  ForceFieldView<R> force_field;
  const R* temperature;
  const std::int64_t* cells;
  R* out;

  EDDY_HOST_DEVICE void operator()(int j, int, int) const {
    const std::int64_t cell = cells[j];
    R* v = out + std::int64_t(j) * kProbeValues;
    const CellFlag own = flags.flag[cell];
    if (is_solid(own)) {
      v[0] = R(1);
      for (int k = 1; k < kProbeValues; ++k) v[k] = R(0);
      return;
    }
    R rho, u[3];
    arrived_moments(a, layout == PopulationLayout::swapped, flags, shape, cell, own, walls, force, force_field, rho, u);
    v[0] = R(0);
    v[1] = rho;
    v[2] = u[0];
    v[3] = u[1];
    v[4] = u[2];
    v[5] = temperature ? temperature[cell] : R(0);
  }
};

}  // namespace

template <class T>
void sample_probe_cells(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                        const BlockShape& shape, const compute_t<T> (&force)[3],
                        const WallVelocities<compute_t<T>>& walls, const ForceFieldView<compute_t<T>>& force_field,
                        const compute_t<T>* temperature, const std::int64_t* cells, int count, compute_t<T>* out,
                        const backend::Stream* stream) {
  if (count <= 0) return;
  const ProbeSamples<T> s{a,     layout,      flags,       shape, {force[0], force[1], force[2]},
                          walls, force_field, temperature, cells, out};
  parallel_for(Box{{0, 0, 0}, {count, 1, 1}}, s, "sample_probe_cells", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                           \
  template void sample_probe_cells<T>(const PopulationView<T>&, PopulationLayout, const FlagView&, const BlockShape&, \
                                      const compute_t<T>(&)[3], const WallVelocities<compute_t<T>>&,                  \
                                      const ForceFieldView<compute_t<T>>&, const compute_t<T>*, const std::int64_t*,  \
                                      int, compute_t<T>*, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
