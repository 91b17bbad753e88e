#include "solver/thermal_field.hpp"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>

#include "kernels/scalar_launchers.hpp"
#include "solver/mpi_check.hpp"
#include "solver/precision.hpp"

namespace eddy {

namespace {

/// Uniform in [-1, 1) from a 64-bit key (splitmix64 finaliser; Steele, Lea & Flood 2014).
double hashed_unit(std::uint64_t key) {
  std::uint64_t z = key + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

std::size_t thermal_device_bytes(const CaseConfig& config, std::int64_t block_cells) {
  if (!config.thermal.enabled) return 0;
  const std::size_t value = arithmetic_bytes(config.precision);
  return 5 * value * std::size_t(block_cells);
}

template <class R>
ThermalParameters<R>::ThermalParameters(const ThermalConfig& th)
    : kappa(R(th.diffusivity)),
      dt(R(1.0 / th.substeps)),
      substeps(th.substeps),
      reference(R(th.reference_temperature)),
      buoyant(th.buoyancy != 0.0) {
  for (int face = 0; face < 6; ++face) {
    walls.fixed[face] = th.walls[face] == ThermalWall::fixed;
    walls.value[face] = R(th.wall_temperature[face]);
  }
  for (int d = 0; d < 3; ++d) buoyancy[d] = R(-th.buoyancy * th.gravity_direction[d]);
}

template <class R>
ForceFieldView<R> ThermalParameters<R>::with_buoyancy(ForceFieldView<R> force, const R* t) const {
  if (!buoyant) return force;
  force.scalar = t;
  for (int d = 0; d < 3; ++d) force.buoyancy[d] = buoyancy[d];
  force.reference = reference;
  return force;
}

template <class R>
std::vector<R> initial_temperature(const CaseConfig& config, const Decomposition& decomposition,
                                   const BlockShape& shape) {
  const ThermalConfig& th = config.thermal;
  // T everywhere (ghosts and solid cells included, so no cell holds garbage).
  std::vector<R> t(std::size_t(shape.n_cells()), R(th.initial_temperature));
  if (th.perturbation > 0.0) {
    const auto& g = decomposition.global_size;
    for (int z = 1; z <= shape.n[2]; ++z)
      for (int y = 1; y <= shape.n[1]; ++y)
        for (int x = 1; x <= shape.n[0]; ++x) {
          const std::uint64_t gx = std::uint64_t(decomposition.offset[0] + x - 1);
          const std::uint64_t gy = std::uint64_t(decomposition.offset[1] + y - 1);
          const std::uint64_t gz = std::uint64_t(decomposition.offset[2] + z - 1);
          const std::uint64_t global = gx + std::uint64_t(g[0]) * (gy + std::uint64_t(g[1]) * gz);
          t[shape.index(x, y, z)] = R(th.initial_temperature + th.perturbation * hashed_unit(global));
        }
  }
  return t;
}

template <class R>
ThermalField<R>::ThermalField(const CaseConfig& config, const Decomposition& decomposition, const BlockShape& shape,
                              const std::vector<CellFlag>& flags)
    : decomposition_(decomposition), shape_(shape), flags_(flags), p_(config.thermal), halo_(decomposition, shape) {
  const std::size_t cells = std::size_t(shape.n_cells());
  const std::vector<R> t = initial_temperature<R>(config, decomposition, shape);
  for (auto& buffer : t_) {
    buffer = DeviceBuffer<R>(cells);
    buffer.upload(t);
  }
  const std::vector<R> zero(cells, R(0));  // u = 0 until the first kernel step
  for (auto& component : u_) {
    component = DeviceBuffer<R>(cells);
    component.upload(zero);
  }
}

template <class R>
ForceFieldView<R> ThermalField<R>::with_buoyancy(ForceFieldView<R> force) const {
  return p_.with_buoyancy(force, current());
}

template <class R>
void ThermalField<R>::step(const FlagView& flags, const backend::Stream* stream) {
  for (auto& component : u_) halo_.fill_ghosts(component.data(), stream);
  const R* const u[3] = {u_[0].data(), u_[1].data(), u_[2].data()};
  for (int s = 0; s < p_.substeps; ++s) {
    halo_.fill_ghosts(t_[current_].data(), stream);
    advance_scalar(t_[current_].data(), t_[1 - current_].data(), u, flags, shape_, shape_.interior(), p_.walls,
                   p_.kappa, p_.dt, stream);
    current_ = 1 - current_;
  }
}

template <class R>
template <class Fn>
void ThermalField<R>::for_each_interior(Fn fn) const {
  std::int64_t k = 0;
  for (int z = 1; z <= shape_.n[2]; ++z)
    for (int y = 1; y <= shape_.n[1]; ++y)
      for (int x = 1; x <= shape_.n[0]; ++x) fn(k++, shape_.index(x, y, z));
}

template <class R>
std::vector<double> ThermalField<R>::interior() const {
  const std::vector<R> t = interior_raw();
  return std::vector<double>(t.begin(), t.end());
}

template <class R>
void ThermalField<R>::set_interior(const std::vector<double>& t) {
  set_interior_raw(std::vector<R>(t.begin(), t.end()));
}

template <class R>
std::vector<R> ThermalField<R>::interior_raw() const {
  const std::vector<R> all = t_[current_].download();
  std::vector<R> out(std::size_t(shape_.interior_cells()));
  for_each_interior([&](std::int64_t k, std::int64_t cell) { out[std::size_t(k)] = all[std::size_t(cell)]; });
  return out;
}

template <class R>
std::vector<unsigned char> ThermalField<R>::interior_bytes() const {
  const std::vector<R> t = interior_raw();
  std::vector<unsigned char> bytes(t.size() * sizeof(R));
  std::memcpy(bytes.data(), t.data(), bytes.size());
  return bytes;
}

template <class R>
void ThermalField<R>::set_interior_bytes(const std::vector<unsigned char>& bytes) {
  std::vector<R> t(std::size_t(shape_.interior_cells()));
  std::memcpy(t.data(), bytes.data(), bytes.size());
  set_interior_raw(t);
}

template <class R>
void ThermalField<R>::set_interior_raw(const std::vector<R>& t) {
  std::vector<R> all = t_[current_].download();
  for_each_interior([&](std::int64_t k, std::int64_t cell) { all[std::size_t(cell)] = t[std::size_t(k)]; });
  t_[current_].upload(all);
}

template <class R>
std::array<double, 6> wall_heat_inflow(const R* t, const CellFlag* flags, const BlockShape& shape,
                                       const ThermalParameters<R>& p, const Decomposition& decomposition) {
  std::array<double, 6> inflow{};
  for (int z = 1; z <= shape.n[2]; ++z)
    for (int y = 1; y <= shape.n[1]; ++y)
      for (int x = 1; x <= shape.n[0]; ++x) {
        const std::int64_t c = shape.index(x, y, z);
        if (flags[c] == kFluid || is_solid(flags[c])) continue;
        for (int a = 0; a < 3; ++a) {
          const std::int64_t step = shape.offset(a == 0, a == 1, a == 2);
          for (int s = -1; s <= 1; s += 2) {
            const int face = 2 * a + (s > 0 ? 1 : 0);
            if (!p.walls.fixed[face] || !is_solid(flags[c + s * step])) continue;
            const std::int64_t pp = c - s * step;
            inflow[face] += double(wall_inflow(p.kappa, p.walls.value[face], t[c], t[pp], !is_solid(flags[pp])));
          }
        }
      }
  if (!decomposition.serial() && decomposition.size > 1) {
    std::array<double, 6> total{};
    EDDY_MPI_CHECK(MPI_Allreduce(inflow.data(), total.data(), 6, MPI_DOUBLE, MPI_SUM, decomposition.comm));
    inflow = total;
  }
  return inflow;
}

template <class R>
std::array<double, 6> ThermalField<R>::face_inflow() const {
  const std::vector<R> t = t_[current_].download();
  return wall_heat_inflow(t.data(), flags_.data(), shape_, p_, decomposition_);
}

template <class R>
ThermalDiagnostics ThermalField<R>::diagnose() const {
  return temperature_diagnostics(interior(), flags_.data(), shape_, decomposition_);
}

ThermalDiagnostics temperature_diagnostics(const std::vector<double>& t, const CellFlag* flags, const BlockShape& shape,
                                           const Decomposition& decomposition) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0.0;
  long long first_bad = std::numeric_limits<long long>::max();  // global linear index
  const auto& g = decomposition.global_size;
  const auto& n = decomposition.local_size;
  std::size_t k = 0;  // interior index (MacroscopicFields order), the cells in that order
  for (int z = 0; z < n[2]; ++z) {
    for (int y = 0; y < n[1]; ++y) {
      const CellFlag* row = flags + shape.index(1, y + 1, z + 1);
      for (int x = 0; x < n[0]; ++x, ++k) {
        if (is_solid(row[x])) continue;
        const double v = t[k];
        if (!std::isfinite(v)) {
          if (first_bad == std::numeric_limits<long long>::max()) {
            const long long gx = decomposition.offset[0] + x, gy = decomposition.offset[1] + y;
            const long long gz = decomposition.offset[2] + z;
            first_bad = gx + g[0] * (gy + (long long)g[1] * gz);
          }
          continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
    }
  }
  if (!decomposition.serial() && decomposition.size > 1) {
    double in[2] = {-lo, hi}, out[2];
    EDDY_MPI_CHECK(MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, decomposition.comm));
    double total = 0.0;
    EDDY_MPI_CHECK(MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, decomposition.comm));
    long long bad = first_bad;
    EDDY_MPI_CHECK(MPI_Allreduce(&bad, &first_bad, 1, MPI_LONG_LONG, MPI_MIN, decomposition.comm));
    lo = -out[0];
    hi = out[1];
    sum = total;
  }
  ThermalDiagnostics d;
  d.min = lo;
  d.max = hi;
  d.finite = first_bad == std::numeric_limits<long long>::max();
  d.total = d.finite ? sum : std::nan("");
  if (!d.finite) {
    d.first_nonfinite_cell = {int(first_bad % g[0]), int((first_bad / g[0]) % g[1]),
                              int(first_bad / ((long long)g[0] * g[1]))};
  }
  return d;
}

double face_cells(const CaseConfig& config, int face) {
  const int axis = face / 2;
  return double(config.size[(axis + 1) % 3]) * double(config.size[(axis + 2) % 3]);
}

double nusselt_number(const CaseConfig& config, int face, double inflow) {
  const ThermalConfig& th = config.thermal;
  return inflow / face_cells(config, face) * config.length / (th.diffusivity * th.temperature_difference);
}

#define EDDY_INSTANTIATE(R)                                                                                   \
  template struct ThermalParameters<R>;                                                                       \
  template class ThermalField<R>;                                                                             \
  template std::vector<R> initial_temperature<R>(const CaseConfig&, const Decomposition&, const BlockShape&); \
  template std::array<double, 6> wall_heat_inflow<R>(const R*, const CellFlag*, const BlockShape&,            \
                                                     const ThermalParameters<R>&, const Decomposition&);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
