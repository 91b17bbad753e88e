// LatticeSimulation<T>: the Simulation of one block on this build's backend, T = storage precision.
#include "solver/simulation.hpp"

#include <cmath>

#include "io/vtk_output.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"

namespace eddy {

OutputScaling OutputScaling::of(const CaseConfig& config) {
  OutputScaling s;
  s.length = config.length > 0.0 ? config.length : 1.0;
  s.velocity = config.velocity > 0.0 ? config.velocity : 1.0;
  return s;
}

namespace {

template <class T>
class LatticeSimulation final : public Simulation {
 public:
  explicit LatticeSimulation(const CaseConfig& config)
      : Simulation(config),
        shape_(domain_shape(config)),
        relax_(relaxation<T>(config)),
        walls_(wall_velocities<T>(config)) {
    const std::size_t populations = std::size_t(d3q19::Q) * std::size_t(shape_.n_cells());
    f_[0] = DeviceBuffer<T>(populations);
    f_[1] = DeviceBuffer<T>(populations);
    flags_ = DeviceBuffer<CellFlag>(std::size_t(shape_.n_cells()));
    flags_.upload(build_flags(config, shape_));
    initialize_equilibrium(view(0), shape_, initial_field(config));
    initialize_equilibrium(view(1), shape_, initial_field(config));
    for (int a = 0; a < 3; ++a) periodic_[a] = config.faces[2 * a].kind == FaceKind::periodic;
    backend::synchronize();
  }

  void advance(std::int64_t steps) override {
    const Box interior = shape_.interior();
    for (std::int64_t s = 0; s < steps; ++s) {
      fill_ghosts();
      stream_collide(view(current_), view(1 - current_), FlagView{flags_.data()}, shape_, interior, relax_, walls_);
      current_ = 1 - current_;
      ++step_;
    }
  }

  void synchronize() override { backend::synchronize(); }
  std::int64_t time_step() const override { return step_; }

  MacroscopicFields fields() override {
    const std::vector<T> host = download_moments();
    const std::size_t n = std::size_t(shape_.interior_cells());
    MacroscopicFields out;
    out.size = {shape_.n[0], shape_.n[1], shape_.n[2]};
    out.rho.assign(host.begin(), host.begin() + n);
    for (int a = 0; a < 3; ++a) out.u[a].assign(host.begin() + (a + 1) * n, host.begin() + (a + 2) * n);
    return out;
  }

  Diagnostics diagnose() override {
    const std::vector<T> host = download_moments();
    const std::int64_t n = shape_.interior_cells();
    Diagnostics d;
    double max_speed2 = -1.0;
    std::int64_t fastest = 0, first_bad = -1;
    for (std::int64_t k = 0; k < n; ++k) {
      const double rho = host[k], ux = host[n + k], uy = host[2 * n + k], uz = host[3 * n + k];
      const double speed2 = ux * ux + uy * uy + uz * uz;
      if (!std::isfinite(rho) || !std::isfinite(speed2)) {
        if (first_bad < 0) first_bad = k;
        continue;
      }
      d.mass += rho;
      if (speed2 > max_speed2) {
        max_speed2 = speed2;
        fastest = k;
      }
    }
    d.max_speed = std::sqrt(std::max(max_speed2, 0.0));
    d.fastest_cell = coordinates(fastest);
    d.finite = first_bad < 0;
    if (!d.finite) d.first_nonfinite_cell = coordinates(first_bad);
    return d;
  }

  void write_vti(const std::string& path, const OutputScaling& scaling) override {
    std::vector<T> host = download_moments();
    const std::size_t n = std::size_t(shape_.interior_cells());
    const T inv_u = T(1.0 / scaling.velocity);
    for (std::size_t k = n; k < 4 * n; ++k) host[k] *= inv_u;
    GridGeometry grid;
    for (int a = 0; a < 3; ++a) {
      grid.size[a] = shape_.n[a];
      grid.spacing[a] = 1.0 / scaling.length;
      grid.origin[a] = 0.5 / scaling.length;
    }
    const std::vector<PointField<T>> point_fields = {
        {"density", {host.data()}},
        {"velocity", {host.data() + n, host.data() + 2 * n, host.data() + 3 * n}}};
    eddy::write_vti<T>(path, grid, point_fields, scaling.time(step_));
  }

  std::vector<double> populations() override {
    const std::vector<T> all = f_[current_].download();
    const std::int64_t n = shape_.interior_cells(), stride = shape_.n_cells();
    std::vector<double> out(std::size_t(d3q19::Q) * std::size_t(n));
    for_each_interior([&](std::int64_t k, std::int64_t cell) {
      for (int i = 0; i < d3q19::Q; ++i) out[i * n + k] = double(all[i * stride + cell]);
    });
    return out;
  }

  void set_populations(const std::vector<double>& f) override {
    std::vector<T> all = f_[current_].download();
    const std::int64_t n = shape_.interior_cells(), stride = shape_.n_cells();
    for_each_interior([&](std::int64_t k, std::int64_t cell) {
      for (int i = 0; i < d3q19::Q; ++i) all[i * stride + cell] = T(f[i * n + k]);
    });
    f_[current_].upload(all);
  }

  std::size_t bytes_per_cell() const override { return 2 * d3q19::Q * sizeof(T) + sizeof(CellFlag); }
  std::size_t output_bytes_per_cell() const override { return 4 * sizeof(T); }
  std::size_t kernel_bytes_per_cell() const override { return 2 * d3q19::Q * sizeof(T) + sizeof(CellFlag); }

 private:
  /// Periodic ghost layers of the current buffer, x then y then z (edges and corners included).
  void fill_ghosts() {
    for (int axis = 0; axis < 3; ++axis)
      if (periodic_[axis]) fill_periodic_ghosts(view(current_), shape_, axis);
  }

  PopulationView<T> view(int which) { return PopulationView<T>{f_[which].data(), shape_.n_cells()}; }

  std::array<int, 3> coordinates(std::int64_t k) const {
    const int x = int(k % shape_.n[0]);
    const int y = int((k / shape_.n[0]) % shape_.n[1]);
    const int z = int(k / (std::int64_t(shape_.n[0]) * shape_.n[1]));
    return {x, y, z};
  }

  /// Calls fn(k, cell) for every interior cell: k its interior index, cell its block index.
  template <class Fn>
  void for_each_interior(Fn fn) const {
    std::int64_t k = 0;
    for (int z = 1; z <= shape_.n[2]; ++z)
      for (int y = 1; y <= shape_.n[1]; ++y)
        for (int x = 1; x <= shape_.n[0]; ++x) fn(k++, shape_.index(x, y, z));
  }

  /// Computes rho, ux, uy, uz of the current time on the device and downloads them (4 blocks of n values).
  std::vector<T> download_moments() {
    const std::size_t n = std::size_t(shape_.interior_cells());
    if (moments_.size() == 0) moments_ = DeviceBuffer<T>(4 * n);
    T* base = moments_.data();
    const MomentView<T> out{base, {base + n, base + 2 * n, base + 3 * n}};
    const T force[3] = {relax_.force[0], relax_.force[1], relax_.force[2]};
    fill_ghosts();
    compute_moments(view(current_), FlagView{flags_.data()}, shape_, force, walls_, out);
    return moments_.download();
  }

  BlockShape shape_;
  Relaxation<T> relax_;
  WallVelocities<T> walls_;
  bool periodic_[3] = {false, false, false};
  DeviceBuffer<T> f_[2];
  DeviceBuffer<CellFlag> flags_;
  DeviceBuffer<T> moments_;
  int current_ = 0;
  std::int64_t step_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> Simulation::create(const CaseConfig& config) {
  if (config.precision == Precision::float64) return std::make_unique<LatticeSimulation<double>>(config);
  return std::make_unique<LatticeSimulation<float>>(config);
}

}  // namespace eddy
