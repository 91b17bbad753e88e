// Fluid velocity on every cell of a block, for the particles (kernels/particles.hpp):
//   u = (sum_i f_i c_i + F/2) / rho                                   Guo, Zheng & Shi 2002, Phys. Rev. E 65, 046308
// from the populations that have arrived at each interior cell (the own slots in the "own" layout, the odd step's
// gather in the "swapped" layout: kernels/streaming.hpp), through the one moment read-out (kernels/cell_moments.hpp).
// F is the uniform body force plus, with two-way coupled particles, the cell's deposited force. Solid cells carry
// their wall's velocity, so interpolation between the first fluid cell and the wall gives the wall velocity halfway,
// where bounce-back puts the wall.
// Bytes per fluid cell: 19 * sizeof(T) read + 1 flag byte (+ 3 * sizeof(R) force) + 3 * sizeof(R) written.
#include "kernels/cell_moments.hpp"
#include "kernels/field_launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

template <class T>
struct VelocityField {
  using R = compute_t<T>;
  PopulationView<T> a;
  PopulationLayout layout;
  FlagView flags;
  BlockShape shape;
  R force[3];
  ForceFieldView<R> force_field;
  WallVelocities<R> walls;
  VelocityOutView<R> out;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    const CellFlag own = flags.flag[cell];
    if (is_solid(own)) {
      const R wall[3] = {solid_velocity(own, walls, 0), solid_velocity(own, walls, 1), solid_velocity(own, walls, 2)};
      out.store(cell, wall);
      return;
    }
    const bool ghost = x == 0 || y == 0 || z == 0 || x > shape.n[0] || y > shape.n[1] || z > shape.n[2];
    if (ghost) return;
    R rho, u[3];
    arrived_moments(a, layout == PopulationLayout::swapped, flags, shape, cell, own, walls, force, force_field, rho, u);
    out.store(cell, u);
  }
};

}  // namespace

template <class T>
void compute_velocity_field(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                            const BlockShape& shape, const compute_t<T> (&force)[3],
                            const ForceFieldView<compute_t<T>>& force_field, const WallVelocities<compute_t<T>>& walls,
                            compute_t<T>* const (&u)[3], const backend::Stream* stream) {
  VelocityField<T> k{a, layout, flags, shape, {force[0], force[1], force[2]}, force_field, walls, {{u[0], u[1], u[2]}}};
  parallel_for(shape.whole(), k, "compute_velocity_field", stream);
}

#define EDDY_INSTANTIATE(T)                                                                                         \
  template void compute_velocity_field<T>(const PopulationView<T>&, PopulationLayout, const FlagView&,                \
                                          const BlockShape&, const compute_t<T>(&)[3],                               \
                                          const ForceFieldView<compute_t<T>>&, const WallVelocities<compute_t<T>>&,  \
                                          compute_t<T>* const(&)[3], const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
