// Initial populations at equilibrium, f_i = f_eq_i(rho, u) (Krueger et al. 2017, eq. 3.54), for analytic
// initial fields (rest, Taylor-Green), stored shifted as f_i - w_i. Bytes per cell: 19 * sizeof(T) written.
#include <cmath>

#include "kernels/equilibrium.hpp"
#include "kernels/storage.hpp"
#include "kernels/launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

EDDY_HOST_DEVICE inline void taylor_green(const InitialField& init, double px, double py, double pz, double& rho,
                                          double (&u)[3]) {
  const double a = init.amplitude;
  const double sx = sin(init.k[0] * px), cx = cos(init.k[0] * px);
  const double sy = sin(init.k[1] * py), cy = cos(init.k[1] * py);
  const double ratio = init.k[0] / init.k[1];
  const double c2x = cos(2.0 * init.k[0] * px), c2y = cos(2.0 * init.k[1] * py);
  double p;
  if (init.kind == InitialField::kTaylorGreen2d) {
    u[0] = a * sx * cy;
    u[1] = -a * ratio * cx * sy;
    p = 0.25 * a * a * (c2x + ratio * ratio * c2y);
  } else {
    const double cz = cos(init.k[2] * pz), c2z = cos(2.0 * init.k[2] * pz);
    u[0] = a * sx * cy * cz;
    u[1] = -a * ratio * cx * sy * cz;
    p = a * a / 16.0 * (c2x + c2y) * (c2z + 2.0);
  }
  u[2] = 0.0;
  rho = 1.0 + 3.0 * p;  // rho = rho0 + p / c_s^2
}

EDDY_HOST_DEVICE inline void initial_state_impl(const InitialField& init, double px, double py, double pz,
                                                double& rho, double (&u)[3]) {
  if (init.kind == InitialField::kRest) {
    rho = 1.0;
    u[0] = u[1] = u[2] = 0.0;
  } else {
    taylor_green(init, px, py, pz, rho, u);
  }
}

template <class T>
struct Initialize {
  PopulationView<T> f;
  BlockShape shape;
  InitialField init;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    double rho, u[3];
    initial_state_impl(init, init.offset[0] + x - 0.5, init.offset[1] + y - 0.5, init.offset[2] + z - 0.5, rho, u);
    const std::int64_t cell = shape.index(x, y, z);
EDDY_UNROLL
    for (int i = 0; i < d3q19::Q; ++i) {
      const double g = equilibrium<double>(i, rho, u[0], u[1], u[2]) - d3q19::w<double>(i);
      f.f[i * f.n_cells + cell] = Stored<T>::store(compute_t<T>(g));
    }
  }
};

}  // namespace

void initial_state(const InitialField& init, double px, double py, double pz, double& rho, double (&u)[3]) {
  initial_state_impl(init, px, py, pz, rho, u);
}

template <class T>
void initialize_equilibrium(const PopulationView<T>& f, const BlockShape& shape, const InitialField& init) {
  parallel_for(shape.whole(), Initialize<T>{f, shape, init}, "initialize_equilibrium");
}

template void initialize_equilibrium<float>(const PopulationView<float>&, const BlockShape&, const InitialField&);
template void initialize_equilibrium<double>(const PopulationView<double>&, const BlockShape&, const InitialField&);
template void initialize_equilibrium<half_t>(const PopulationView<half_t>&, const BlockShape&, const InitialField&);

}  // namespace eddy
