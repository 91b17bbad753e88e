// What `eddy run` prints (solver/run_report.hpp).
#include "solver/run_report.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "io/number_format.hpp"
#include "kernels/backend.hpp"
#include "kernels/lattice_units.hpp"
#include "solver/flow_statistics.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/open_boundaries.hpp"
#include "solver/output_box.hpp"
#include "solver/precision.hpp"
#include "solver/rank_device.hpp"
#include "solver/solid_shapes.hpp"
#include "solver/stop_signal.hpp"
#include "solver/thermal_field.hpp"

namespace eddy {

namespace {

/// An out-of-core plan that updates more than this many times the block's planes per step is warned about.
constexpr double kWorkFactorWarning = 3.0;

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

/// The "particles" line of the case summary.
std::string particle_summary(const ParticleConfig& p) {
  std::string text = "particles   ";
  text += p.positions_file.empty() ? std::to_string(p.count) : "from " + p.positions_file;
  text += p.kind == ParticleKind::tracer ? " tracers" : " inertial";
  text += ", d = " + format_number("%.4g", p.diameter);
  if (p.kind == ParticleKind::inertial) {
    text += ", rho_p/rho_f = " + format_number("%.4g", p.density);
    text += p.two_way ? ", two-way" : ", one-way";
    if (p.contacts)
      text += p.contact_search == ContactSearch::cell_list ? ", contacts (cell list)" : ", contacts (all pairs)";
    if (p.pair_force == PairForce::gravity) text += ", pair gravity";
  }
  text += p.walls == ParticleWalls::stick ? ", walls stick" : ", walls bounce";
  return text + "\n";
}

/// The unit conversion table of a case given in SI ([units]).
std::string units_summary(const CaseConfig& config) {
  const UnitsConfig& u = config.units;
  const double velocity = u.dx / u.dt;  // m/s per lattice velocity
  return "units       SI ([units]): dx = " + format_number("%.6g", u.dx) + " m, dt = " + format_number("%.6g", u.dt) +
         " s, L = " + format_number("%.6g", u.length) + " m = " + format_number("%.6g", config.length) + " cells\n" +
         "convert     U = " + format_number("%.6g", u.velocity) + " m/s = " + format_number("%.6g", config.velocity) +
         " lattice; nu = " + format_number("%.6g", u.viscosity) + " m^2/s = " + format_number("%.6g", config.nu) +
         " lattice; 1 lattice velocity = " + format_number("%.6g", velocity) +
         " m/s; 1 step = " + format_number("%.6g", u.dt) + " s; density 1 = " + format_number("%.6g", u.density) +
         " kg/m^3; output (VTK) in m, s, m/s, kg/m^3\n";
}


/// The "thermal" lines of the case summary.
std::string thermal_summary(const CaseConfig& config) {
  const ThermalConfig& th = config.thermal;
  std::string text = "thermal     Pr = " + format_number("%.4g", th.prandtl) +
                     ", Ra = " + format_number("%.4g", th.rayleigh) + " (L = " + format_number("%.6g", config.length) +
                     " cells), kappa = " + format_number("%.6g", th.diffusivity) + ", " + std::to_string(th.substeps) +
                     (th.substeps == 1 ? " sub-step" : " sub-steps") + " per step\n";
  if (th.buoyancy > 0) {
    text += "buoyancy    g beta = " + format_number("%.6g", th.buoyancy) + " along " + "(" +
            format_number("%.3g", th.gravity_direction[0]) + ", " + format_number("%.3g", th.gravity_direction[1]) +
            ", " + format_number("%.3g", th.gravity_direction[2]) +
            "), dT = " + format_number("%.4g", th.temperature_difference) +
            ", T_ref = " + format_number("%.4g", th.reference_temperature) + ", free-fall velocity " +
            format_number("%.4g", th.free_fall_velocity) + " (Ma " +
            format_number("%.3g", mach_number(th.free_fall_velocity)) + ")\n";
  }
  text += "T initial   " + format_number("%.4g", th.initial_temperature) +
          (th.perturbation > 0 ? " +- " + format_number("%.4g", th.perturbation) : std::string()) + ", walls:";
  bool any_wall = false;
  for (int f = 0; f < 6; ++f) {
    if (config.faces[f].kind == FaceKind::periodic) continue;
    any_wall = true;
    text +=
        std::string(" ") + kFaceNames[f] + "=" +
        (th.walls[f] == ThermalWall::fixed ? format_number("%.4g", th.wall_temperature[f]) : std::string("adiabatic"));
  }
  return text + (any_wall ? "" : " none (periodic)") + "\n";
}

/// "  Nu x_min +4.519 x_max -4.519" for the fixed-temperature walls (the mean wall heat flux per area "q" when the
/// case has no temperature difference to scale it by), then "  T <min>..<max>" of `d`, and the total of T when no
/// wall has a fixed temperature. Collective.
std::string thermal_progress(const CaseConfig& config, Simulation& sim, const ThermalDiagnostics& d) {
  const std::array<double, 6> inflow = sim.face_heat_inflow();
  const bool scaled = config.thermal.temperature_difference > 0;
  std::string text;
  bool has_fixed = false;
  for (int f = 0; f < 6; ++f) {
    if (config.thermal.walls[f] != ThermalWall::fixed || config.faces[f].kind == FaceKind::periodic) continue;
    has_fixed = true;
    text += std::string(text.empty() ? (scaled ? "  Nu" : "  q") : "") + " " + kFaceNames[f] + " " +
            (scaled ? format_number("%+.4f", nusselt_number(config, f, inflow[f]))
                    : format_number("%+.4e", inflow[f] / face_cells(config, f)));
  }
  text += "  T " + format_number("%.4g", d.min) + ".." + format_number("%.4g", d.max);
  if (!has_fixed) text += " total " + format_number("%.9e", d.total);
  return text;
}

}  // namespace

/// The "statistics" lines of the case summary: what is accumulated, from when, every how many steps, where it goes.
std::string statistics_summary(const CaseConfig& config) {
  const StatisticsConfig& st = config.statistics;
  std::string fields;
  for (const std::string& f : st.fields) fields += (fields.empty() ? "" : ", ") + f;
  const std::int64_t samples = (config.steps - 1 - st.start) / st.every + 1;
  const int sums = statistics_components(config);
  // start < run.steps (the reader's check): start + every is computed only where it is a step of the run, so a
  // huge `every` cannot overflow.
  std::string text = "statistics  " + fields + ": " +
                     (samples == 1 ? "the state at step " + std::to_string(st.start) + " only"
                                   : "the states at steps " + std::to_string(st.start) + ", " +
                                         std::to_string(st.start + st.every) + ", ...") +
                     " (every " + std::to_string(st.every) + ", " + std::to_string(samples) +
                     (samples == 1 ? " sample" : " samples") + " by step " + std::to_string(config.steps) + ")";
  if (!std::isnan(st.start_time)) {
    text +=
        ", from statistics.start_time = " + format_number("%.6g", st.start_time) + (config.units.enabled ? " s" : "");
  }
  text += "; " + std::to_string(sums) + " sums per fluid cell (" +
          (st.second_moments() ? std::string("rho, u, u_a u_b") : std::string("rho, u")) +
          (st.wants("mean_temperature") ? ", T" : "") + ") in double on the device, written to every snapshot\n";
  if (st.has_profile()) {
    std::string axes;
    for (int a = 0; a < 3; ++a) {
      if (st.average[a]) axes += std::string(axes.empty() ? "" : ", ") + "xyz"[a];
    }
    text += "profile     the statistics averaged over " + axes + " into " + config.output_directory + "/" +
            config.name + "_statistics.csv with every snapshot and at the end\n";
  } else if (!config.write_vtk) {
    text += "warning: the [statistics] averages are written nowhere: output.vtk = false and no statistics.average "
            "(the profile file); set either, or read them from Python (Simulation.statistics)\n";
  }
  return text;
}

/// The region and stride of the volume snapshots (when either is set) and one line per slice.
static std::string output_selection_summary(const CaseConfig& config) {
  const bool metres = config.units.enabled;
  const double unit = metres ? config.units.dx : 1.0;
  const char* unit_name = metres ? " m" : " cells";
  auto node_position = [&](int index) { return format_number("%.6g", (index + 0.5) * unit); };
  std::string text;
  const OutputRegion& region = config.output_region;
  const bool strided = region.stride != std::array<int, 3>{1, 1, 1};
  if ((region.given || strided) && config.write_vtk) {
    const OutputBox box = volume_box(config);
    text += "region      volume snapshots hold ";
    for (int a = 0; a < 3; ++a) {
      const int last = box.first[a] + (box.count[a] - 1) * box.stride[a];
      text += std::string(a ? ", " : "") + "xyz"[a] + " " + node_position(box.first[a]) + ".." + node_position(last) +
              (box.stride[a] > 1 ? " every " + std::to_string(box.stride[a]) : "");
    }
    const double kept = double(box.count[0]) * box.count[1] * box.count[2];
    const double all = double(config.size[0]) * config.size[1] * config.size[2];
    text += std::string(unit_name) + " (node centres): " + std::to_string(box.count[0]) + " x " +
            std::to_string(box.count[1]) + " x " + std::to_string(box.count[2]) + " nodes, " +
            format_number("%.3g", 100.0 * kept / all) + " % of the grid\n";
  }
  for (const SliceConfig& slice : config.slices) {
    text += "slice       " + slice.name + ": normal " + "xyz"[slice.axis] + " at " + "xyz"[slice.axis] + " = " +
            node_position(slice.index) + unit_name + " (node layer " + std::to_string(slice.index) + ", holding " +
            format_number("%.6g", slice.position_as_given) + unit_name + "), " +
            (slice.every > 0 ? "every " + std::to_string(slice.every) + " steps" : std::string("the final state")) +
            " into " + config.name + "_slice_" + slice.name + ".pvd\n";
  }
  return text;
}

std::string format_number(const char* fmt, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, value);
  return buf;
}

std::string cell_text(const std::array<int, 3>& c) {
  return "(" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " + std::to_string(c[2]) + ")";
}

double checkpoint_gigabytes(const std::string& manifest_path) {
  std::error_code ec;
  const std::uintmax_t bytes =
      std::filesystem::file_size(std::filesystem::path(manifest_path).replace_extension(".data"), ec);
  return ec ? 0.0 : double(bytes) * 1e-9;
}

namespace {
/// One line per [[solid]] with the cells it covers (from `summary`, the set-up's counts, when given; else the
/// analytic shapes are counted here), and the warnings: a solid that covers no cell, a mesh whose voxelised volume
/// is far from its enclosed volume (parts thinner than a cell vanish, or the mesh is not consistently oriented), a
/// mesh whose odd rays were filled, voxels outside the domain.
std::string solids_summary(const CaseConfig& config, const std::vector<SolidSummary>& summary) {
  static const char* shapes[] = {"sphere", "cylinder", "box", "mesh", "voxels"};
  std::string text;
  for (std::size_t k = 0; k < config.solids.size(); ++k) {
    const SolidConfig& s = config.solids[k];
    const bool known = k < summary.size();
    const std::int64_t cells = known ? summary[k].cells : solid_cell_count(s, config.size);
    const std::string name = "solid '" + s.name + "'";
    text += "solid       '" + s.name + "' " + shapes[int(s.shape)];
    if (s.shape == SolidShape::mesh && known) {
      text += " " + s.file + ": " + std::to_string(summary[k].triangles) + " triangles, " + std::to_string(cells) +
              " cells (enclosed volume " + format_number("%.6g", summary[k].volume) + " cells^3), voxelised in " +
              format_number("%.3f", summary[k].seconds) + " s on the device (+" +
              format_number("%.3f", summary[k].host_seconds) + " s on the host)";
    } else if (s.shape == SolidShape::voxels && known) {
      text += " " + s.file + ": " + format_number("%.0f", summary[k].volume) + " solid voxels at offset " +
              cell_text({int(s.offset[0]), int(s.offset[1]), int(s.offset[2])}) + ", " + std::to_string(cells) +
              " cells";
    } else {
      text += ", " + std::to_string(cells) + " cells";
    }
    text += s.wall == SolidWall::interpolated ? " (resting wall, interpolated bounce-back)\n"
                                              : " (resting wall, half-way bounce-back)\n";
    if (cells == 0) {
      text += "warning: " + name + " covers no cell: no cell centre (i + 0.5, j + 0.5, k + 0.5) lies " + "inside it" +
              (analytic_shape(s) ? " or on its surface" : "") +
              " (too small, or outside the domain), so it has no effect\n";
      continue;
    }
    if (!known) continue;
    const SolidSummary& m = summary[k];
    if (s.shape == SolidShape::mesh && m.odd_columns > 0) {
      text += "warning: " + name + ": " + std::to_string(m.odd_columns) + " of " + std::to_string(m.columns) +
              " rays along x cross the mesh an odd number of times (it is not closed); filled by repair = \"fill\" "
              "from their closed neighbours\n";
    }
    // A voxelised body differs from its volume by at most about the cells that its surface cuts: a quarter of the
    // volume means parts thinner than a cell have vanished (or thickened), or the volume is not meaningful.
    if (s.shape == SolidShape::mesh && std::abs(double(cells) - m.volume) > 0.25 * m.volume) {
      text += "warning: " + name + " covers " + std::to_string(cells) + " cells but encloses " +
              format_number("%.6g", m.volume) +
              " cells^3 (more than 25 % apart): parts thinner than a cell vanish (or the mesh is not closed and "
              "consistently oriented, so its volume means little); refine the grid where the body is thin\n";
    }
    if (s.shape == SolidShape::voxels && double(cells) < m.volume) {
      text += "warning: " + name + ": " + format_number("%.0f", m.volume - double(cells)) + " of its " +
              format_number("%.0f", m.volume) + " solid voxels lie outside the domain (check offset)\n";
    }
  }
  return text;
}
}  // namespace

namespace {

/// "open        x_min velocity_inlet parabolic, peak 0.05, ramp 1000 steps, sponge 32 cells to tau 0.6 at the face\n"
/// per open face (lattice units).
std::string open_faces_text(const CaseConfig& config) {
  std::string text;
  for (int f = 0; f < 6; ++f) {
    const FaceBoundary& b = config.faces[f];
    if (!is_open_face(b.kind)) continue;
    text += std::string("open        ") + kFaceNames[f] + " " + face_kind_name(b.kind);
    if (b.kind == FaceKind::velocity_inlet) {
      const char* profile = b.profile == InletProfile::uniform     ? " uniform"
                            : b.profile == InletProfile::parabolic ? " parabolic"
                                                                   : " csv";
      text += profile;
      if (b.profile == InletProfile::uniform) {
        text += " u = [" + format_number("%.4g", b.velocity[0]) + ", " + format_number("%.4g", b.velocity[1]) + ", " +
                format_number("%.4g", b.velocity[2]) + "]";
      } else if (b.profile == InletProfile::parabolic) {
        text += ", peak " + format_number("%.4g", b.speed);
      } else {
        text += " " + b.table.file + " (" + std::to_string(b.table.velocity.size()) + " points)";
      }
      text += b.ramp_time > 0 ? ", ramp " + format_number("%.6g", b.ramp_time) + " steps" : ", no ramp";
    } else if (b.kind == FaceKind::pressure_outlet) {
      text += " rho = " + format_number("%.8g", b.density);
    } else if (b.kind == FaceKind::outflow) {
      text += b.scheme == OutflowScheme::convective
                  ? " convective, U_c = " + format_number("%.4g", b.convection_velocity)
                  : std::string(" zero_gradient");
    }
    if (b.sponge > 0) {
      text += ", sponge " + format_number("%.6g", b.sponge) + " cells to tau " + format_number("%.6g", b.sponge_tau) +
              " at the face";
    }
    text += " (lattice units)\n";
  }
  return text;
}

}  // namespace

std::string open_face_warnings(const CaseConfig& config) {
  std::string text, inlets;
  bool leaves = false;
  for (int face = 0; face < 6; ++face) {
    const FaceBoundary& b = config.faces[face];
    leaves = leaves || b.kind == FaceKind::pressure_outlet || b.kind == FaceKind::outflow;
    if (b.kind != FaceKind::velocity_inlet) continue;
    inlets += std::string(inlets.empty() ? "" : ", ") + "boundary." + kFaceNames[face];
    if (b.ramp_time > double(config.steps)) {
      text += std::string("warning: boundary.") + kFaceNames[face] + ".ramp_time is longer than the run (" +
              std::to_string(config.steps) + " steps): the inlet reaches " +
              format_number("%.3g", 100.0 * inlet_ramp(b.ramp_time, double(config.steps))) +
              " % of its velocity by the end; shorten the ramp or run longer (run.steps)\n";
    }
  }
  if (!leaves && !inlets.empty()) {
    text += "warning: " + inlets + (inlets.find(',') == std::string::npos ? " pushes" : " push") +
            " fluid in, but no face is a pressure_outlet or outflow: the fluid cannot leave, so the density in the "
            "domain rises every step (the mass drift of the progress line); make a face type = \"pressure_outlet\" or "
            "\"outflow\"\n";
  }
  return text;
}

void print_case_summary(const CaseConfig& config, std::size_t bytes_per_cell, std::size_t device_bytes, int ranks,
                        std::ostream& log, bool out_of_core, const std::vector<SolidSummary>& solids) {
  const double cells = double(config.size[0]) * config.size[1] * config.size[2];
  log << "case        " << config.name << (config.source_file.empty() ? "" : " (" + config.source_file + ")") << "\n"
      << "grid        " << config.size[0] << " x " << config.size[1] << " x " << config.size[2] << " = "
      << format_number("%.0f", cells) << " cells\n";
  log << "boundaries ";
  for (int f = 0; f < 6; ++f) {
    const FaceKind kind = config.faces[f].kind;
    log << " " << kFaceNames[f] << "=" << (kind == FaceKind::moving_wall ? "moving wall" : face_kind_name(kind));
  }
  log << "\n"
      << open_faces_text(config) << open_face_warnings(config) << "tau         " << format_number("%.6g", config.tau)
      << "\n"
      << "omega       " << format_number("%.6g", config.omega()) << "\n"
      << "nu          " << format_number("%.6g", config.nu) << " (lattice)\n"
      << "Re          " << format_number("%.6g", config.reynolds) << " (U = " << format_number("%.4g", config.velocity)
      << ", L = " << format_number("%.6g", config.length) << " cells)\n"
      << "Ma          " << format_number("%.4g", config.mach()) << "\n"
      << "collision   "
      << (config.collision == Collision::trt ? "TRT (magic " + format_number("%.6g", config.magic) + ")"
                                             : std::string("BGK"))
      << "\n"
      << "storage     " << precision_name(config.precision) << "\n"
      << "memory      " << bytes_per_cell
      << (out_of_core ? " B/cell in host memory (out-of-core), " + format_bytes(double(device_bytes)) +
                            " of device buffers" + (ranks > 1 ? " on rank 0" : "")
                      : " B/cell, " + format_number("%.3f", double(device_bytes) / 1073741824.0) + " GiB " +
                            (ranks > 1 ? "on rank 0" : "in all") + " (ghost layer and output slab included)")
      << "\n"
      << (config.particles.enabled ? particle_summary(config.particles) : std::string())
      << (config.thermal.enabled ? thermal_summary(config) : std::string())
      << (config.units.enabled ? units_summary(config) : std::string()) << solids_summary(config, solids)
      << (config.statistics.enabled ? statistics_summary(config) : std::string()) << "steps       " << config.steps
      << ", report every " << config.report_every << ", output every " << config.output_every << " into "
      << config.output_directory << "/\n"
      << output_selection_summary(config);
}

void print_device_line(const CaseConfig& config, const Decomposition& decomposition, const std::string& device_name,
                       std::ostream& log) {
  log << "device      " << device_name << " (" << backend::name() << ")";
  if (decomposition.size > 1) {
    log << ", " << decomposition.size << " MPI ranks as " << decomposition.dims[0] << " x " << decomposition.dims[1]
        << " x " << decomposition.dims[2] << ", halo transport " << transport_name(config.parallel.transport)
        << (config.parallel.overlap ? " with overlap" : "");
  }
  log << "\n";
}

void print_run_summary(const CaseConfig& config, Simulation& sim, std::ostream& log) {
  const Decomposition& decomposition = sim.decomposition();
  OutOfCoreStats out_of_core;
  const bool streamed = sim.out_of_core(out_of_core);
  print_case_summary(config, sim.bytes_per_cell(), sim.device_bytes(), decomposition.size, log, streamed,
                     sim.solid_summary());
  if (!streamed) return;
  const BlockShape shape = block_shape(decomposition);
  log << "out-of-core " << format_bytes(double(sim.bytes_per_cell()) * double(shape.n_cells()))
      << (config.thermal.enabled ? " of populations, flags and T in host memory"
                                 : " of populations and flags in host memory")
      << (decomposition.size > 1 ? " on rank 0" : "") << ", " << out_of_core.slabs
      << (out_of_core.slabs == 1 ? " z-slab" : " z-slabs") << " through 2 device buffers of "
      << out_of_core.buffer_planes << " planes" << (out_of_core.slabs > 1 ? " and a carry" : "") << " ("
      << format_bytes(double(out_of_core.device_bytes)) << " of a budget of "
      << format_bytes(double(out_of_core.budget)) << "), time_block " << out_of_core.time_block << "\n";
  if (out_of_core.work_factor > kWorkFactorWarning) {
    log << "  warning: each step of this plan updates " << format_number("%.3g", out_of_core.work_factor)
        << "x the block's z-planes (halos of "
        << (config.thermal.enabled && config.thermal.substeps > 1 ? "time_block x thermal sub-steps + 1"
                                                                  : "time_block + 1")
        << " planes on each side of every slab), so expect about 1/" << format_number("%.3g", out_of_core.work_factor)
        << " of the speed; "
        << (out_of_core.default_work_factor > 0 && out_of_core.default_work_factor < out_of_core.work_factor
                ? "the plan eddy chooses (leave out numerics.time_block and numerics.slabs) updates " +
                      format_number("%.3g", out_of_core.default_work_factor) + "x"
                : std::string("fewer slabs or a smaller numerics.time_block cost less"))
        << "\n";
  }
}

void print_restart(const CaseConfig& config, const std::string& manifest_path, std::int64_t step, double seconds,
                   const std::string& written_by, std::ostream& log) {
  const double gigabytes = checkpoint_gigabytes(manifest_path);
  log << "restarted   from " << manifest_path << " at step " << step << " (" << format_number("%.3g", gigabytes)
      << " GB in " << format_number("%.3g", seconds) << " s, "
      << format_number("%.3g", seconds > 0 ? gigabytes / seconds : 0.0) << " GB/s)\n";
  if (written_by != config.name) {
    log << "warning: checkpoint " << manifest_path << " was written by case '" << written_by
        << "'; it continues as case '" << config.name << "' ("
        << (config.source_file.empty() ? std::string("case.name") : config.source_file) << ")\n";
  }
}

void print_statistics_restart(const CaseConfig& config, const Simulation& sim, bool stored, std::ostream& log) {
  const FlowStatistics* st = sim.flow_statistics();
  const std::int64_t step = sim.time_step();
  if (!st) {
    if (stored)
      log << "statistics  the checkpoint's running averages are not continued: the case has no [statistics]\n";
    return;
  }
  if (stored && st->samples() > 0) {
    log << "statistics  continued from the checkpoint: " << st->samples()
        << (st->samples() == 1 ? " sample" : " samples") << " since step " << st->first_step() << "\n";
    return;
  }
  if (stored) {
    log << "statistics  the checkpoint holds no sample yet: the first is taken at step " << config.statistics.start
        << "\n";
    return;
  }
  log << "statistics  the checkpoint holds none: the averages start from step "
      << std::max(step, config.statistics.start) << "\n";
  if (config.statistics.start < step) {
    log << "warning: statistics.start = " << config.statistics.start << " lies before the restart's step " << step
        << ", and the checkpoint holds no statistics: the steps before " << step << " are not in the averages\n";
  }
}

void print_start_up(const StartUpTimes& t, std::ostream& log) {
  auto part = [](const char* what, double seconds) {
    return std::string(", ") + what + " " + format_number("%.3g", seconds) + " s";
  };
  log << "start-up    " << format_number("%.3g", t.total)
      << " s from the case read to the first step: set-up (memory, flags, initial state) " << format_number("%.3g", t.set_up) << " s"
      << (t.restart > 0 ? part("checkpoint read", t.restart) : "")
      << part("initial check", t.check) << (t.output > 0 ? part("step-0 output", t.output) : "") << "\n";
}

namespace {
void print_checkpoint_line(const std::string& manifest_path, double seconds, const std::string& note,
                           std::ostream& log) {
  const double gigabytes = checkpoint_gigabytes(manifest_path);
  log << "  wrote checkpoint " << manifest_path << " (" << format_number("%.3g", gigabytes) << " GB in "
      << format_number("%.3g", seconds) << " s, " << format_number("%.3g", seconds > 0 ? gigabytes / seconds : 0.0)
      << " GB/s" << note << ")\n";
}
}  // namespace

void print_checkpoint(const std::string& manifest_path, double seconds, std::ostream& log) {
  print_checkpoint_line(manifest_path, seconds, "", log);
}

void print_background_checkpoint(const std::string& manifest_path, double stage_seconds, double write_seconds,
                                 std::ostream& log) {
  print_checkpoint_line(manifest_path, write_seconds,
                        ", in the background; the run paused " + format_number("%.3g", stage_seconds) +
                            " s to stage it",
                        log);
}

void print_stop(const CaseConfig& config, int signal, std::int64_t step, const std::string& manifest_path,
                std::ostream& log) {
  log << "stopped by " << stop_signal_name(signal) << " at step " << step << " of " << config.steps
      << "; resume with the same case and options (--set, mpirun) and:\n  eddy run "
      << (config.source_file.empty() ? std::string("CASE.toml") : config.source_file) << " ... --restart "
      << manifest_path << "\n";
}

ProgressReport::ProgressReport(const CaseConfig& config, std::int64_t first_step)
    : config_(config),
      cells_(double(config.size[0]) * config.size[1] * config.size[2]),
      first_step_(first_step),
      start_(Clock::now()),
      interval_start_(start_) {}

void ProgressReport::print(Simulation& sim, const Diagnostics& d, const ThermalDiagnostics& t,
                           const Diagnostics& initial, std::ostream& log, const std::string& extra) {
  const std::int64_t now = sim.time_step();
  const auto wall = Clock::now();
  const double total = seconds_between(start_, wall);
  const double rate = mlups(cells_, double(interval_steps_), seconds_between(interval_start_, wall));
  const double eta = total / double(now - first_step_) * double(config_.steps - now);
  char line[256];
  std::snprintf(line, sizeof line, "step %9lld  %5.1f%%  %9.2f MLUPS  ETA %s  max|u| %.4e  mass drift %+.3e",
                static_cast<long long>(now), 100.0 * double(now) / double(config_.steps), rate,
                duration_text(eta).c_str(), d.finite ? d.max_speed : std::nan(""),
                !d.finite          ? std::nan("")
                : initial.mass > 0 ? d.mass / initial.mass - 1.0
                                   : 0.0);
  log << line;
  if (sim.has_particles()) log << "  particles " << sim.particle_count();  // collective
  if (sim.has_thermal()) log << thermal_progress(config_, sim, t);         // collective
  log << extra << "\n" << std::flush;
  interval_start_ = wall;
  interval_steps_ = 0;
}

double ProgressReport::seconds() const { return seconds_since(start_); }

void ProgressReport::print_done(double total_seconds, std::ostream& log) const {
  const double steps_run = double(config_.steps - first_step_);
  char line[160];
  std::snprintf(line, sizeof line, "done: %lld steps in %.2f s, %.2f MLUPS on average\n",
                static_cast<long long>(steps_run), total_seconds, mlups(cells_, steps_run, total_seconds));
  log << line;
}

}  // namespace eddy
