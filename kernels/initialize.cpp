// Initial populations of analytic initial fields (rest, Taylor-Green): equilibrium plus the first-order
// non-equilibrium part of the field's velocity gradient,
//   f_i = f_eq_i(rho, u) + f_neq_i,   f_neq_i = -(w_i rho tau / c_s^2) Q_iab d_a u_b,
// (Krueger et al. 2017, eq. 3.54 for f_eq; kernels/nonequilibrium.hpp for f_neq and its sources), stored shifted
// as f_i - w_i. These are the populations that have arrived at each cell at t = 0 ("own" layout,
// kernels/streaming.hpp), i.e. the pre-collision state the first (even) step collides, so f_neq carries tau, not
// tau - 1. The rest state has no gradient: f_i = f_eq_i(1, 0).
// A start at f_eq (f_neq = 0) sets the viscous stress to zero, which the first collisions then build up.
// Bytes per cell: 19 * sizeof(T) written.
#include <cmath>

#include "kernels/equilibrium.hpp"
#include "kernels/nonequilibrium.hpp"
#include "kernels/storage.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

EDDY_HOST_DEVICE inline void taylor_green(const InitialField& init, double px, double py, double pz, double& rho,
                                          double (&u)[3], double (&grad_u)[3][3]) {
  const double a = init.amplitude;
  const double sx = sin(init.k[0] * px), cx = cos(init.k[0] * px);
  const double sy = sin(init.k[1] * py), cy = cos(init.k[1] * py);
  const double ratio = init.k[0] / init.k[1];
  const double c2x = cos(2.0 * init.k[0] * px), c2y = cos(2.0 * init.k[1] * py);
  const double kx = init.k[0], ky = init.k[1], kz = init.k[2];
  for (auto& row : grad_u) row[0] = row[1] = row[2] = 0.0;
  double p;
  if (init.kind == InitialField::kTaylorGreen2d) {
    u[0] = a * sx * cy;
    u[1] = -a * ratio * cx * sy;
    p = 0.25 * a * a * (c2x + ratio * ratio * c2y);
    grad_u[0][0] = a * kx * cx * cy;           // d_x u
    grad_u[1][0] = -a * ky * sx * sy;          // d_y u
    grad_u[0][1] = a * ratio * kx * sx * sy;   // d_x v
    grad_u[1][1] = -a * ratio * ky * cx * cy;  // d_y v = -d_x u
  } else {
    const double cz = cos(kz * pz), sz = sin(kz * pz), c2z = cos(2.0 * kz * pz);
    u[0] = a * sx * cy * cz;
    u[1] = -a * ratio * cx * sy * cz;
    p = a * a / 16.0 * (c2x + c2y) * (c2z + 2.0);
    grad_u[0][0] = a * kx * cx * cy * cz;           // d_x u
    grad_u[1][0] = -a * ky * sx * sy * cz;          // d_y u
    grad_u[2][0] = -a * kz * sx * cy * sz;          // d_z u
    grad_u[0][1] = a * ratio * kx * sx * sy * cz;   // d_x v
    grad_u[1][1] = -a * ratio * ky * cx * cy * cz;  // d_y v = -d_x u
    grad_u[2][1] = a * ratio * kz * cx * sy * sz;   // d_z v
  }
  u[2] = 0.0;
  rho = 1.0 + 3.0 * p;  // rho = rho0 + p / c_s^2
}

EDDY_HOST_DEVICE inline void initial_state_impl(const InitialField& init, double px, double py, double pz,
                                                double& rho, double (&u)[3], double (&grad_u)[3][3]) {
  if (init.kind == InitialField::kRest) {
    rho = 1.0;
    u[0] = u[1] = u[2] = 0.0;
    for (auto& row : grad_u) row[0] = row[1] = row[2] = 0.0;
  } else {
    taylor_green(init, px, py, pz, rho, u, grad_u);
  }
}

template <class T>
struct Initialize {
  PopulationView<T> f;
  BlockShape shape;
  InitialField init;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    double rho, u[3], grad_u[3][3];
    initial_state_impl(init, init.offset[0] + x - 0.5, init.offset[1] + y - 0.5, init.offset[2] + z - 0.5, rho, u,
                       grad_u);
    const std::int64_t cell = shape.index(x, y, z);
EDDY_UNROLL
    for (int i = 0; i < d3q19::Q; ++i) {
      const double g = equilibrium<double>(i, rho, u[0], u[1], u[2]) - d3q19::w<double>(i) +
                       nonequilibrium_from_gradient<double>(i, rho, init.tau, grad_u);
      f.f[i * f.n_cells + cell] = Stored<T>::store(compute_t<T>(g));
    }
  }
};

}  // namespace

void initial_state(const InitialField& init, double px, double py, double pz, double& rho, double (&u)[3],
                   double (&grad_u)[3][3]) {
  initial_state_impl(init, px, py, pz, rho, u, grad_u);
}

template <class T>
void initialize_populations(const PopulationView<T>& f, const BlockShape& shape, const InitialField& init) {
  parallel_for(shape.whole(), Initialize<T>{f, shape, init}, "initialize_populations");
}

template void initialize_populations<float>(const PopulationView<float>&, const BlockShape&, const InitialField&);
template void initialize_populations<double>(const PopulationView<double>&, const BlockShape&, const InitialField&);
template void initialize_populations<half_t>(const PopulationView<half_t>&, const BlockShape&, const InitialField&);

}  // namespace eddy
