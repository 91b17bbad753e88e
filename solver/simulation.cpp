// Simulation: creation, and the read-outs written once over the storage and stepping of either kind of block
// (solver/simulation.hpp).
#include "solver/simulation.hpp"

#include <algorithm>
#include <stdexcept>

#include "io/output_fields.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "solver/derived_fields.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/lattice_simulation.hpp"
#include "solver/moment_readout.hpp"
#include "solver/out_of_core.hpp"
#include "solver/precision.hpp"

namespace eddy {

OutputScaling OutputScaling::of(const CaseConfig& config) {
  OutputScaling s;
  if (config.units.enabled) {
    s.length = 1.0 / config.units.dx;
    s.velocity = config.units.dt / config.units.dx;
    s.density = config.units.density;
    s.si = true;
    return s;
  }
  s.length = config.length > 0.0 ? config.length : 1.0;
  s.velocity = config.velocity > 0.0 ? config.velocity : 1.0;
  return s;
}

std::unique_ptr<Simulation> Simulation::create(const CaseConfig& config, const Decomposition& decomposition) {
  if (runs_out_of_core(config, decomposition, in_core_device_bytes(config, decomposition))) {
    return create_out_of_core(config, decomposition);
  }
  return create_in_core(config, decomposition);
}

std::unique_ptr<Simulation> Simulation::create(const CaseConfig& config) {
  return create(config, serial_decomposition(config));
}

namespace {

std::int64_t interior_cells(const Decomposition& d) {
  return std::int64_t(d.local_size[0]) * d.local_size[1] * d.local_size[2];
}

}  // namespace

int Simulation::population_bytes() const { return int(storage_bytes(config_.precision)); }

int Simulation::temperature_bytes() const { return int(arithmetic_bytes(config_.precision)); }

void Simulation::set_up_solid_labels(const BlockSolids& solids, int margin_z) {
  if (!wants_output(config_, "solid")) return;
  solid_labels_ = solid_labels(solids, decomposition().local_size, margin_z);
}

std::size_t Simulation::kernel_bytes_per_cell() const {
  return 2 * d3q19::Q * std::size_t(population_bytes()) + sizeof(CellFlag);
}

template <class R>
std::vector<R> Simulation::moments() {
  return gather_moments<R>(interior_cells(decomposition()), [&](auto fn) {
    for_each_moment_slab([&](const MomentSlab& s) { fn(static_cast<const R*>(s.values), s.slab, s.first, s.cells); });
  });
}

MacroscopicFields Simulation::fields() {
  if (temperature_bytes() == 8) return to_fields(moments<double>(), decomposition());
  return to_fields(moments<float>(), decomposition());
}

Diagnostics Simulation::diagnose() {
  DiagnosticsAccumulator sums;  // reduced slab by slab as the moments arrive
  const bool f64 = temperature_bytes() == 8;
  for_each_moment_slab([&](const MomentSlab& s) {
    if (f64) {
      sums.add(static_cast<const double*>(s.values), s.slab, s.first, s.cells);
    } else {
      sums.add(static_cast<const float*>(s.values), s.slab, s.first, s.cells);
    }
  });
  const Decomposition& d = decomposition();
  return sums.result(d.local_size, d.offset);
}

/// The requested derived fields on the interior cells, components back to back, scaled like the velocity: rates
/// (vorticity, |S|) by L / U, Q by (L / U)^2. Each velocity slab is differenced on the device and its interior
/// planes copied out.
template <class R>
std::vector<R> Simulation::derived_values(const OutputScaling& scaling, const std::vector<std::string>& names) {
  const int components = derived_components(names);
  const Decomposition& d = decomposition();
  const std::int64_t n = interior_cells(d), plane = std::int64_t(d.local_size[0]) * d.local_size[1];
  std::vector<R> out(std::size_t(components) * std::size_t(n));
  if (components == 0) return out;
  std::vector<R> all;
  for_each_velocity_slab([&](const VelocitySlab& s) {
    const R* const u[3] = {static_cast<const R*>(s.u[0]), static_cast<const R*>(s.u[1]), static_cast<const R*>(s.u[2])};
    R* const w[3] = {static_cast<R*>(s.scratch[0]), static_cast<R*>(s.scratch[1]), static_cast<R*>(s.scratch[2])};
    OuterLayerView<R> outer;
    for (int face = 0; face < 6; ++face) outer.face[face] = static_cast<const R*>(s.outer[face]);
    const std::size_t cells = std::size_t(s.shape.n_cells());
    all.resize(cells);
    int c = 0;
    run_derived_stencils<R>(
        u, outer, s.flags, s.shape, w, names, scaling.length / scaling.velocity,  // 1/step -> L/U
        [&](const R* component, double scale) {
          backend::synchronize();
          backend::copy_to_host(all.data(), component, cells * sizeof(R));
          R* to = out.data() + std::int64_t(c++) * n + std::int64_t(s.first_plane - 1) * plane;
          for (int z = s.lo; z < s.hi; ++z)
            for (int y = 1; y <= s.shape.n[1]; ++y)
              for (int x = 1; x <= s.shape.n[0]; ++x) *to++ = R(all[s.shape.index(x, y, z)] * scale);
        },
        s.stream);
  });
  return out;
}

std::vector<double> Simulation::derived_field(const std::string& name) {
  if (!is_derived_field(name)) throw std::invalid_argument("derived_field: unknown field '" + name + "'");
  if (temperature_bytes() == 8) return derived_values<double>(OutputScaling{}, {name});
  const std::vector<float> values = derived_values<float>(OutputScaling{}, {name});
  return std::vector<double>(values.begin(), values.end());
}

/// Components back to back in kOutputFields order: rho, u (3), the derived fields, T, the solid labels, the
/// statistics (piece_fields).
template <class R>
std::vector<StagedPiece> Simulation::stage_pieces(const std::vector<VtiTarget>& targets, const OutputScaling& scaling,
                                                  Diagnostics* diagnostics) {
  const Decomposition& d = decomposition();
  std::shared_ptr<std::vector<R>>& buffer = staging_buffer<R>();
  if (!buffer || buffer.use_count() > 1) buffer = std::make_shared<std::vector<R>>();  // the last one still in use
  std::vector<R>& host = *buffer;
  DiagnosticsAccumulator sums;  // diagnose()'s sums, over the same slabs in lattice units
  gather_moments_into(
      host, interior_cells(d),
      [&](auto fn) {
        for_each_moment_slab([&](const MomentSlab& s) {
          const R* values = static_cast<const R*>(s.values);
          if (diagnostics) sums.add(values, s.slab, s.first, s.cells);
          fn(values, s.slab, s.first, s.cells);
        });
      },
      moment_factors<R>(scaling));  // scaled as they are copied: no second pass over the staged array
  if (diagnostics) *diagnostics = sums.result(d.local_size, d.offset);
  const std::vector<R> derived = derived_values<R>(scaling, config_.output_fields);
  host.insert(host.end(), derived.begin(), derived.end());
  if (thermal_component_ && wants_output(config_, "temperature")) {
    const std::vector<double> t = thermal_component_->interior();
    host.insert(host.end(), t.begin(), t.end());
  }
  if (wants_output(config_, "solid")) {
    host.insert(host.end(), solid_labels_.begin(), solid_labels_.end());  // small integers: exact in float
  }
  if (statistics_component_) {  // the averages so far, scaled like the instantaneous fields
    const StatisticsSums sums = statistics_component_->host_sums();
    for (const OutputField& field : kOutputFields) {
      if (field.source != FieldSource::statistics || !wants_output(config_, field.name)) continue;
      const std::vector<double> values =
          statistics_field_values(sums, field.name, StatisticsScaling{scaling.density, scaling.velocity});
      host.insert(host.end(), values.begin(), values.end());
    }
  }
  const std::vector<std::pair<std::string, int>> fields = piece_fields(config_, thermal_component_ != nullptr);
  const std::vector<std::string> wanted = written_fields(config_);
  const std::shared_ptr<const std::vector<R>> shared = buffer;
  std::vector<StagedPiece> pieces;
  for (const VtiTarget& target : targets) {
    pieces.push_back(stage_piece_vti<R>(target.path, target.box, scaling, d, shared, fields, wanted, time_step(),
                                        config_.output_compression));
  }
  return pieces;
}

template <>
std::shared_ptr<std::vector<float>>& Simulation::staging_buffer<float>() {
  return staging_float_;
}
template <>
std::shared_ptr<std::vector<double>>& Simulation::staging_buffer<double>() {
  return staging_double_;
}

std::vector<StagedPiece> Simulation::stage_vti(const std::vector<VtiTarget>& targets, const OutputScaling& scaling,
                                               Diagnostics* diagnostics) {
  // The precision diagnose() reads the moments in, so the diagnostics are bitwise its own.
  if (temperature_bytes() == 8) return stage_pieces<double>(targets, scaling, diagnostics);
  return stage_pieces<float>(targets, scaling, diagnostics);
}

RawState Simulation::raw_state() {
  RawState state = raw_populations();
  if (thermal_component_) state.temperature = thermal_component_->interior_bytes();
  if (particle_component_) {
    state.particles = particle_component_->snapshot();
    state.particle_force = particle_component_->force_field_bytes();
  }
  if (statistics_component_) {
    state.statistics = statistics_component_->interior_bytes();
    state.statistics_samples = statistics_component_->samples();
    state.statistics_first_step = statistics_component_->first_step();
  }
  return state;
}

void Simulation::set_raw_state(const RawState& state) {
  const std::size_t n = std::size_t(interior_cells(decomposition()));
  const std::size_t value = std::size_t(temperature_bytes());
  if (state.populations.size() != std::size_t(d3q19::Q) * n * std::size_t(population_bytes())) {
    throw std::invalid_argument("set_raw_state: " + std::to_string(state.populations.size()) +
                                " population bytes do not fit this block");
  }
  if (particle_component_ && config_.particles.two_way && state.particle_force.size() != 3 * n * value) {
    throw std::invalid_argument("set_raw_state: the particles' force field does not fit this block");
  }
  if (thermal_component_ && state.temperature.size() != n * value) {
    throw std::invalid_argument("set_raw_state: the temperature does not fit this block");
  }
  if (state.layout != int(PopulationLayout::own) && state.layout != int(PopulationLayout::swapped)) {
    throw std::invalid_argument("set_raw_state: unknown population layout " + std::to_string(state.layout));
  }
  if (statistics_component_ && !state.statistics.empty() &&
      state.statistics.size() != std::size_t(statistics_component_->components()) * n * sizeof(double)) {
    throw std::invalid_argument("set_raw_state: the statistics' sums (" +
                                std::to_string(state.statistics.size() / std::max<std::size_t>(n * 8, 1)) +
                                " per cell) do not fit this case's [statistics] (" +
                                std::to_string(statistics_component_->components()) + " per cell)");
  }
  restore_populations(state);
  if (thermal_component_) thermal_component_->set_interior_bytes(state.temperature);
  if (particle_component_) particle_component_->restore_bytes(state.particles, state.particle_force);
  if (statistics_component_) {
    if (state.statistics.empty()) {
      statistics_component_->reset();
    } else {
      statistics_component_->restore(state.statistics, state.statistics_samples, state.statistics_first_step);
    }
  }
}

StatisticsSums Simulation::statistics_sums() const {
  if (!statistics_component_) throw std::logic_error("statistics: the case has no [statistics] section");
  return statistics_component_->host_sums();
}

std::vector<double> Simulation::statistics_field(const std::string& name) const {
  return statistics_field_values(statistics_sums(), name);
}

void Simulation::order_with_stream(void* stream, bool before, bool after) {
  void* const own = stream_handle();
  if (before) backend::order_streams(own, stream);
  if (after) backend::order_streams(stream, own);
}

void Simulation::set_temperature(const std::vector<double>& t) {
  if (!thermal_component_) throw std::logic_error("set_temperature: the case has no [thermal] section");
  thermal_component_->set_interior(t);
}

}  // namespace eddy
