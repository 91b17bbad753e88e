// The Python extension module eddy._eddy: Simulation (a Session driven from Python), FieldArray (zero-copy views)
// and the exception classes. A host-only binding: every step, read-out and file goes through the solver
// (solver/run_case.hpp CaseRun, solver/simulation.hpp), nothing of the physics is here. The Python package
// (python/eddy/__init__.py) wraps it: case dictionaries and overrides into TOML, docstrings, the context manager.
#include <mpi.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/solid_files.hpp"
#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/equilibrium.hpp"
#include "python/errors.hpp"
#include "python/field_array.hpp"
#include "python/session.hpp"
#include "solver/adjoint.hpp"
#include "solver/device_buffer.hpp"
#include "solver/flow_statistics.hpp"
#include "solver/mpi_check.hpp"
#include "solver/precision.hpp"
#include "solver/simulation.hpp"
#include "solver/stop_signal.hpp"

namespace py = pybind11;

namespace eddy::python {

namespace {

using Buffer = DeviceBuffer<unsigned char>;

/// `slot` when no view holds it any more and it is large enough, else a new buffer of `bytes`: a read-out an
/// earlier view still shows is never overwritten.
std::shared_ptr<Buffer> take_buffer(std::shared_ptr<Buffer>& slot, std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 8);
  if (!slot || slot.use_count() > 1 || slot->size() < bytes) slot = std::make_shared<Buffer>(bytes);
  return slot;
}

/// A contiguous array of `cells` values (interior order, x fastest) at `data`: shape (nz, ny, nx) for one component,
/// (nz, ny, nx, components) with components `cells` apart for more.
DeviceArray interior_array(void* data, const std::array<int, 3>& n, int bytes, int components) {
  DeviceArray a;
  a.data = data;
  a.kind = 'f';
  a.bytes = bytes;
  a.writable = false;
  a.shape = {n[2], n[1], n[0]};
  a.strides = {std::int64_t(n[0]) * n[1], n[0], 1};
  if (components > 1) {
    a.shape.push_back(components);
    a.strides.push_back(std::int64_t(n[0]) * n[1] * n[2]);
  }
  return a;
}

py::tuple zyx(const std::array<int, 3>& v) { return py::make_tuple(v[2], v[1], v[0]); }

/// Steps between two looks for a pending Python signal (Ctrl-C) in Simulation.step and gradient.
constexpr std::int64_t kInterruptChunk = 64;

const std::string kObjectiveNames =
    "gradient: objective must be \"kinetic_energy\", \"velocity_mismatch\", \"solid_force\" or \"pressure_drop\"";

/// Raises KeyboardInterrupt (or what a Python signal handler raised) on every rank of `d` when a signal is pending
/// on any of them (Ctrl-C), so that no rank is left waiting for the others in a collective. Collective.
void raise_if_interrupted(const Decomposition& d) {
  int pending = PyErr_CheckSignals() != 0 ? 1 : 0;
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &pending, 1, MPI_INT, MPI_MAX, d.comm));
  if (pending == 0) return;
  if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw py::error_already_set();
}

class PySimulation {
 public:
  PySimulation(const std::string& source, bool is_text, const std::string& origin,
               const std::vector<std::string>& overrides, const std::optional<std::string>& output,
               const std::string& restart, bool quiet, const std::optional<long long>& comm, bool sync_default_stream)
      : sync_default_(sync_default_stream) {
    CaseConfig config = is_text ? parse_case(source, origin, overrides) : load_case(source, overrides);
    load_solid_files(config);  // the [[solid]] mesh and voxel files (io/solid_files.hpp)
    if (output) {
      if (output->empty()) throw CollectiveInputError("output: the output directory must not be empty");
      config.output_directory = *output;
    }
    const MPI_Comm world = communicator_from_fortran(comm.value_or(0), comm.has_value());
    session_ = std::make_shared<Session>(config, world, quiet, restart);
    register_session(session_);
  }

  // ---- stepping -------------------------------------------------------------------------------------------------
  void step(std::int64_t n) {
    if (n < 0) throw py::value_error("step: n must be >= 0 (got " + std::to_string(n) + ")");
    refuse_inside_gradient("step");
    const std::shared_ptr<Session> keep = session();
    const Decomposition& d = keep->run().simulation().decomposition();
    before();
    try {
      for (std::int64_t done = 0; done < n;) {  // in chunks, so that Ctrl-C stops the loop between two of them
        const std::int64_t chunk = std::min(kInterruptChunk, n - done);
        keep->run().advance(chunk);
        done += chunk;
        if (done < n) raise_if_interrupted(d);
      }
    } catch (...) {
      after();
      throw;
    }
    after();
  }

  bool run(const py::object& self, const py::object& callback, std::int64_t every) {
    if (!callback.is_none() && every <= 0) throw py::value_error("run: every must be >= 1");
    refuse_inside_gradient("run");
    const std::shared_ptr<Session> keep = session();  // a callback that closes the simulation ends it safely
    CaseRun& run = keep->run();
    const StopSignalScope stop_signals(keep->rank() == 0);
    std::function<void()> fn;
    if (!callback.is_none()) {
      fn = [&] {
        after();
        callback(self);
        if (keep->closed()) throw ClosedError("run: the callback closed the simulation");
        before();
      };
    }
    before();
    const bool completed = run.run_to(run.config().steps, callback.is_none() ? 0 : every, fn);
    if (completed) run.finish();
    after();
    return completed;
  }

  void write_output() {
    const std::shared_ptr<Session> keep = session();
    before();
    keep->run().write_snapshot();
  }

  std::string checkpoint(const std::optional<std::string>& directory) {
    const std::shared_ptr<Session> keep = session();
    before();
    return keep->run().write_checkpoint(directory.value_or(""));
  }

  void synchronize() { simulation().synchronize(); }

  void release_gradient_memory() { simulation().release_gradient_memory(); }

  void close() {
    readout_.reset();
    particle_readout_.reset();
    statistics_readout_.reset();
    if (!session_) return;
    session_->close();
    session_.reset();  // the memory goes with the last view
  }
  bool closed() const { return !session_; }

  // ---- fields -----------------------------------------------------------------------------------------------------
  py::tuple moments() {
    Simulation& sim = simulation();
    const std::array<int, 3> n = sim.decomposition().local_size;
    const std::int64_t cells = std::int64_t(n[0]) * n[1] * n[2];
    const int bytes = sim.temperature_bytes();
    const std::shared_ptr<Buffer> buffer = take_buffer(readout_, std::size_t(4 * cells * bytes));
    before();
    sim.moments_to_device(buffer->data());
    after();
    unsigned char* base = buffer->data();
    FieldArray rho("density", interior_array(base, n, bytes, 1), session_, buffer);
    FieldArray u("velocity", interior_array(base + cells * bytes, n, bytes, 3), session_, buffer);
    return py::make_tuple(rho, u);
  }

  FieldArray statistics(const std::string& name) {
    Simulation& sim = simulation();
    const FlowStatistics* sums = sim.flow_statistics();
    if (!sums) throw std::logic_error("statistics: the case has no [statistics] section");
    const int components =
        statistics_components(statistics_quantity(name, sums->second_moments(), sums->temperature()));
    const std::array<int, 3> n = sim.decomposition().local_size;
    const std::int64_t cells = std::int64_t(n[0]) * n[1] * n[2];
    const std::shared_ptr<Buffer> buffer =
        take_buffer(statistics_readout_, std::size_t(components * cells) * sizeof(double));
    before();
    sim.statistics_to_device(name, reinterpret_cast<double*>(buffer->data()));
    after();
    return FieldArray(name, interior_array(buffer->data(), n, int(sizeof(double)), components), session_, buffer);
  }
  std::int64_t statistics_samples() {
    const FlowStatistics* sums = simulation().flow_statistics();
    if (!sums) throw std::logic_error("statistics: the case has no [statistics] section");
    return sums->samples();
  }

  FieldArray view(const std::string& name, DeviceArray array) { return FieldArray(name, std::move(array), session_); }

  FieldArray populations() {
    Simulation& sim = simulation();
    before();
    DeviceArray a = sim.population_array();
    after();
    return view("populations", std::move(a));
  }
  FieldArray flags() { return view("flags", simulation().flag_array()); }
  FieldArray temperature() { return view("temperature", simulation().temperature_array()); }
  FieldArray force() { return allocated("force", &Simulation::force_array); }
  FieldArray porosity() { return allocated("porosity", &Simulation::porosity_array); }
  /// A per-cell field the simulation allocates on first access (`get`), ordered with its stream.
  FieldArray allocated(const std::string& name, DeviceArray (Simulation::*get)()) {
    Simulation& sim = simulation();
    before();
    DeviceArray a = (sim.*get)();
    after();
    return view(name, std::move(a));
  }

  py::tuple particles() {
    Simulation& sim = simulation();
    if (!sim.has_particles()) throw std::logic_error("particles: the case has no [particles] section");
    const std::int64_t count = sim.local_particle_count();
    const std::shared_ptr<Buffer> buffer = take_buffer(particle_readout_, std::size_t(6 * count) * sizeof(double));
    before();
    sim.particles_to_device(reinterpret_cast<double*>(buffer->data()));
    after();
    const auto array = [&](std::int64_t first) {
      DeviceArray a;
      a.data = buffer->data() + first * std::int64_t(sizeof(double));
      a.kind = 'f';
      a.bytes = int(sizeof(double));
      a.shape = {count, 3};
      a.strides = {1, count};
      return a;
    };
    return py::make_tuple(FieldArray("particle_positions", array(0), session_, buffer),
                          FieldArray("particle_velocities", array(3 * count), session_, buffer));
  }

  // ---- gradients ----------------------------------------------------------------------------------------------------
  /// Sets every interior cell's post-collision populations to f_eq(rho0, u0) (kernels/equilibrium.hpp), the state
  /// the next step streams; density (nz, ny, nx) or None (1), velocity (nz, ny, nx, 3) or None (0), lattice units.
  void set_equilibrium(const py::object& density, const py::object& velocity) {
    Simulation& sim = simulation();
    const std::array<int, 3> n = sim.decomposition().local_size;
    const std::int64_t cells = std::int64_t(n[0]) * n[1] * n[2];
    const std::string shape = "(" + std::to_string(n[2]) + ", " + std::to_string(n[1]) + ", " + std::to_string(n[0]);
    std::vector<double> rho(std::size_t(cells), 1.0), u(3 * std::size_t(cells), 0.0);
    // Reads `array` (block shape, `components` last when > 1; checked and converted to float64 by the Python
    // wrapper, set_equilibrium in python/eddy/__init__.py) into out[c * cells + k].
    const auto read = [&](const py::object& array, const char* name, int components, std::vector<double>& out) {
      if (array.is_none()) return;
      const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(array);
      if (!a || a.size() != py::ssize_t(components * cells)) {
        throw py::value_error(std::string("set_equilibrium: ") + name + " must have this rank's block shape " + shape +
                              (components > 1 ? ", 3)" : ")"));
      }
      const double* v = a.data();
      for (std::int64_t k = 0; k < cells; ++k)
        for (int c = 0; c < components; ++c) out[std::size_t(c * cells + k)] = v[k * components + c];
    };
    read(density, "density", 1, rho);
    read(velocity, "velocity", 3, u);
    std::vector<double> f(std::size_t(d3q19::Q) * std::size_t(cells));
    for (std::int64_t k = 0; k < cells; ++k)
      for (int i = 0; i < d3q19::Q; ++i) {
        const std::size_t at = std::size_t(k);
        f[std::size_t(i * cells + k)] =
            equilibrium(i, rho[at], u[at], u[at + std::size_t(cells)], u[at + 2 * std::size_t(cells)]);
      }
    before();
    sim.set_populations(f);
    after();
  }

  py::dict gradient(std::int64_t steps, const std::string& objective, const py::object& target,
                    const py::object& region, const py::object& downstream, const py::object& solid,
                    const py::object& direction, std::int64_t window, std::int64_t checkpoint_every,
                    std::size_t memory_budget) {
    refuse_inside_gradient("gradient");
    const std::shared_ptr<Session> keep = session();  // a hook that closes the simulation ends the call safely
    Simulation& sim = keep->run().simulation();
    const std::array<int, 3> n = sim.decomposition().local_size;
    const py::ssize_t cells = py::ssize_t(n[0]) * n[1] * n[2];
    Objective o;
    o.window = window;
    if (objective != "solid_force" && objective != "kinetic_energy" && objective != "velocity_mismatch" &&
        objective != "pressure_drop") {
      throw py::value_error(kObjectiveNames + (" (got \"" + objective + "\")"));
    }
    if (objective != "pressure_drop" && !downstream.is_none()) {
      throw py::value_error("gradient: downstream is for objective \"pressure_drop\"");
    }
    // ((z0, z1), (y0, y1), (x0, x1)), global cells, half-open, into lo and hi (x first)
    const auto read_region = [](const py::object& value, const char* name, std::array<int, 3>& lo,
                                std::array<int, 3>& hi) {
      const std::string form = std::string("gradient: ") + name +
                               " must be ((z0, z1), (y0, y1), (x0, x1)), integers, global cells, the end excluded";
      std::vector<std::vector<int>> r;
      try {
        r = value.cast<std::vector<std::vector<int>>>();
      } catch (const py::cast_error&) {
        throw py::value_error(form);
      }
      if (r.size() != 3 || r[0].size() != 2 || r[1].size() != 2 || r[2].size() != 2) throw py::value_error(form);
      for (int a = 0; a < 3; ++a) {
        lo[std::size_t(a)] = r[std::size_t(2 - a)][0];
        hi[std::size_t(a)] = r[std::size_t(2 - a)][1];
      }
    };
    if (objective != "solid_force" && (!solid.is_none() || !direction.is_none())) {
      throw py::value_error("gradient: solid and direction are for objective \"solid_force\"");
    }
    if (objective == "solid_force") {
      o.kind = ObjectiveKind::solid_force;
      if (!target.is_none() || !region.is_none()) {
        throw py::value_error("gradient: target and region are not for objective \"solid_force\"");
      }
      if (solid.is_none()) throw py::value_error("gradient: objective \"solid_force\" needs solid (a [[solid]] name)");
      const std::vector<SolidConfig>& solids = config().solids;
      std::string names;
      for (std::size_t b = 0; b < solids.size(); ++b) {
        if (py::isinstance<py::str>(solid) && solids[b].name == solid.cast<std::string>()) o.solid = int(b);
        names += (b ? ", \"" : "\"") + solids[b].name + "\"";
      }
      if (o.solid < 0) {
        throw py::value_error("gradient: solid must name one of the case's [[solid]] bodies (" +
                              (names.empty() ? std::string("it has none") : names) + "), got " +
                              py::repr(solid).cast<std::string>());
      }
      if (!direction.is_none()) {
        std::vector<double> d;
        try {
          d = direction.cast<std::vector<double>>();
        } catch (const py::cast_error&) {
        }
        if (d.size() != 3 || !std::isfinite(d[0]) || !std::isfinite(d[1]) || !std::isfinite(d[2])) {
          throw py::value_error("gradient: direction must be 3 finite numbers (dx, dy, dz), lattice units");
        }
        o.direction = {d[0], d[1], d[2]};
      }
    } else if (objective == "velocity_mismatch") {
      o.kind = ObjectiveKind::velocity_mismatch;
      if (target.is_none()) throw py::value_error("gradient: objective \"velocity_mismatch\" needs target");
      if (!region.is_none()) {
        throw py::value_error(
            "gradient: region is for objectives \"kinetic_energy\" and \"pressure_drop\"; the velocity "
            "mismatch counts "
            "every fluid cell");
      }
      const auto t = py::array_t<double, py::array::forcecast>::ensure(target);
      if (!t || t.ndim() != 4 || t.shape(0) != n[2] || t.shape(1) != n[1] || t.shape(2) != n[0] || t.shape(3) != 3) {
        throw py::value_error("gradient: target must have this rank's block shape (nz, ny, nx, 3) = (" +
                              std::to_string(n[2]) + ", " + std::to_string(n[1]) + ", " + std::to_string(n[0]) +
                              ", 3)");
      }
      const auto v = t.unchecked<4>();
      o.target.resize(std::size_t(3 * cells));
      for (py::ssize_t z = 0; z < n[2]; ++z)
        for (py::ssize_t y = 0; y < n[1]; ++y)
          for (py::ssize_t x = 0; x < n[0]; ++x)
            for (int a = 0; a < 3; ++a) {
              const double value = v(z, y, x, a);
              if (!std::isfinite(value)) {
                throw py::value_error("gradient: target holds a value that is not finite at (z, y, x, component) = (" +
                                      std::to_string(z) + ", " + std::to_string(y) + ", " + std::to_string(x) + ", " +
                                      std::to_string(a) + ")");
              }
              o.target[std::size_t(a * cells + x + n[0] * (y + n[1] * z))] = value;
            }
    } else if (objective == "kinetic_energy") {
      o.kind = ObjectiveKind::kinetic_energy;
      if (!target.is_none()) throw py::value_error("gradient: target is for objective \"velocity_mismatch\"");
      if (!region.is_none()) {
        o.region = true;
        read_region(region, "region", o.lo, o.hi);
      }
    } else {  // pressure_drop
      o.kind = ObjectiveKind::pressure_drop;
      if (!target.is_none()) throw py::value_error("gradient: target is for objective \"velocity_mismatch\"");
      if (region.is_none() || downstream.is_none()) {
        throw py::value_error("gradient: objective \"pressure_drop\" needs region (upstream) and downstream");
      }
      o.region = true;
      read_region(region, "region", o.lo, o.hi);
      read_region(downstream, "downstream", o.down_lo, o.down_hi);
    }
    before();
    GradientOptions options;
    options.checkpoint_every = checkpoint_every;
    options.state_budget_bytes = memory_budget;
    options.host_copies = false;  // the arrays below are views of the adjoint's own fields
    const Decomposition& d = sim.decomposition();
    options.interrupt_every = kInterruptChunk;
    options.check_interrupt = [&d] { raise_if_interrupted(d); };
    GradientResult g;
    in_gradient_ = true;
    try {
      g = eddy::gradient(sim, steps, o, options);
    } catch (...) {
      in_gradient_ = false;
      after();
      throw;
    }
    in_gradient_ = false;
    if (keep->closed()) throw ClosedError("gradient: the simulation was closed during the call");
    after();
    py::dict out;
    out["objective"] = g.objective;
    out["tau"] = g.tau;
    out["force"] = FieldArray("force_gradient", g.force_array, keep, g.device_fields);
    out["state"] = FieldArray("state_gradient", g.state_array, keep, g.device_fields);
    out["initial_density"] = FieldArray("initial_density_gradient", g.initial_density_array, keep, g.device_fields);
    out["initial_velocity"] = FieldArray("initial_velocity_gradient", g.initial_velocity_array, keep, g.device_fields);
    out["porosity"] = g.porosity_array.data != nullptr
                          ? py::cast(FieldArray("porosity_gradient", g.porosity_array, keep, g.device_fields))
                          : py::none();
    out["checkpoint_every"] = g.checkpoint_every;
    out["recomputed_steps"] = g.recomputed_steps;
    out["seconds"] = py::dict(py::arg("setup") = g.seconds_setup, py::arg("forward") = g.seconds_forward,
                              py::arg("recompute") = g.seconds_recompute, py::arg("adjoint") = g.seconds_adjoint,
                              py::arg("finish") = g.seconds_finish);
    out["host_bytes"] = g.host_bytes;
    out["device_bytes"] = g.device_bytes;
    return out;
  }

  // ---- description --------------------------------------------------------------------------------------------------
  std::int64_t time_step() { return simulation().time_step(); }
  const CaseConfig& config() { return session()->run().config(); }
  py::object stream() {
    void* handle = simulation().stream_handle();
    if (!backend::is_gpu()) return py::none();
    return py::int_(reinterpret_cast<std::uintptr_t>(handle));
  }
  int rank() { return session()->rank(); }
  int ranks() { return session()->size(); }
  py::tuple block_origin() { return zyx(simulation().decomposition().offset); }
  py::tuple block_shape() { return zyx(simulation().decomposition().local_size); }
  py::tuple domain_shape() { return zyx(config().size); }
  std::string population_layout() { return simulation().population_layout(); }
  std::string storage() { return precision_name(config().precision); }
  std::string arithmetic() { return simulation().temperature_bytes() == 8 ? "float64" : "float32"; }
  bool out_of_core() {
    OutOfCoreStats stats;
    return simulation().out_of_core(stats);
  }

 private:
  std::shared_ptr<Session> session() {
    if (!session_) throw ClosedError("the simulation is closed (Simulation.close()); create a new one to go on");
    return session_;
  }
  Simulation& simulation() { return session()->run().simulation(); }

  /// With sync_default_stream on a GPU build: the simulation's next work waits for what Python queued on the
  /// default stream so far (before), and the default stream's next work for the simulation's (after).
  void before() {
    if (sync_default_ && backend::is_gpu()) simulation().order_with_stream(nullptr, true, false);
  }
  void after() {
    if (sync_default_ && backend::is_gpu() && session_) simulation().order_with_stream(nullptr, false, true);
  }
  /// gradient() runs Python code between its steps (the signal handlers of its interrupt checks): a step or another
  /// gradient from there would move the state under it.
  void refuse_inside_gradient(const char* what) const {
    if (in_gradient_) {
      throw std::runtime_error(std::string(what) + ": the simulation is inside gradient() (called from a signal " +
                               "handler during it?); call it after gradient() returns");
    }
  }

  std::shared_ptr<Session> session_;
  bool in_gradient_ = false;  // gradient() is running (refuse_inside_gradient)
  std::shared_ptr<Buffer> readout_, particle_readout_, statistics_readout_;
  bool sync_default_;
};

}  // namespace

}  // namespace eddy::python

PYBIND11_MODULE(_eddy, m) {
  using namespace eddy::python;
  using eddy::python::PySimulation;
  m.doc() = "eddy's extension module; use the package `eddy` (python/eddy/__init__.py).";
  ensure_mpi();
  register_errors(m);
  m.attr("backend") = std::string(eddy::backend::name());
  m.attr("version") = std::string(EDDY_VERSION);
  char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int mpi_library_length = 0;
  MPI_Get_library_version(mpi_library, &mpi_library_length);
  m.attr("mpi_library") = std::string(mpi_library, std::size_t(mpi_library_length));
  m.def("shutdown", &shutdown, "Destroys the live simulations and ends MPI if eddy started it (atexit).");
  m.def("error_names", [] {
    std::vector<std::string> names = {"Error"};
    for (const eddy::ErrorType& t : eddy::kErrorTypes) names.emplace_back(t.name);
    return names;
  });

  py::class_<FieldArray>(m, "FieldArray",
                         "A zero-copy view of a simulation's device array (host memory on the cpu build). Take it "
                         "with numpy.asarray (cpu), cupy.asarray / numba.cuda.as_cuda_array (cuda), or "
                         "torch.from_dlpack / numpy.from_dlpack / jax.dlpack.from_dlpack (every build).")
      .def_property_readonly("name", &FieldArray::name)
      .def_property_readonly("shape", &FieldArray::shape)
      .def_property_readonly("strides", &FieldArray::strides, "Strides in bytes.")
      .def_property_readonly("typestr", &FieldArray::typestr)
      .def_property_readonly("data_ptr", &FieldArray::data_ptr, "Address of element [0, ..., 0].")
      .def_property_readonly("writable", &FieldArray::writable)
      .def_property_readonly("device", &FieldArray::device)
      .def_property_readonly("__array_interface__", &FieldArray::array_interface)
      .def_property_readonly("__cuda_array_interface__", &FieldArray::cuda_array_interface)
      .def("__dlpack__", &FieldArray::dlpack, py::kw_only(), py::arg("stream") = py::none(),
           py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", &FieldArray::dlpack_device)
      .def("to_numpy", &FieldArray::to_numpy, "A NumPy copy on the host, after the device work queued so far.")
      .def("__repr__", &FieldArray::repr);

  py::class_<PySimulation>(m, "Simulation")
      .def(py::init<const std::string&, bool, const std::string&, const std::vector<std::string>&,
                    const std::optional<std::string>&, const std::string&, bool, const std::optional<long long>&,
                    bool>(),
           py::arg("source"), py::arg("is_text"), py::arg("origin"), py::arg("overrides"), py::arg("output"),
           py::arg("restart"), py::arg("quiet"), py::arg("comm"), py::arg("sync_default_stream"))
      .def("step", &PySimulation::step, py::arg("n") = 1)
      .def("_run", &PySimulation::run, py::arg("self_object"), py::arg("callback"), py::arg("every"))
      .def("write_output", &PySimulation::write_output)
      .def("checkpoint", &PySimulation::checkpoint, py::arg("directory") = py::none())
      .def("synchronize", &PySimulation::synchronize)
      .def("close", &PySimulation::close)
      .def("release_gradient_memory", &PySimulation::release_gradient_memory)
      .def_property_readonly("closed", &PySimulation::closed)
      .def("moments", &PySimulation::moments)
      .def_property_readonly("populations", &PySimulation::populations)
      .def_property_readonly("population_layout", &PySimulation::population_layout)
      .def_property_readonly("flags", &PySimulation::flags)
      .def_property_readonly("temperature", &PySimulation::temperature)
      .def_property_readonly("force", &PySimulation::force)
      .def_property_readonly("porosity", &PySimulation::porosity)
      .def("_set_equilibrium", &PySimulation::set_equilibrium, py::arg("density"), py::arg("velocity"))
      .def("_gradient", &PySimulation::gradient, py::arg("steps"), py::arg("objective"), py::arg("target"),
           py::arg("region"), py::arg("downstream"), py::arg("solid"), py::arg("direction"), py::arg("window"),
           py::arg("checkpoint_every"), py::arg("memory_budget"))
      .def("particles", &PySimulation::particles)
      .def("statistics", &PySimulation::statistics, py::arg("name"))
      .def_property_readonly("statistics_samples", &PySimulation::statistics_samples)
      .def_property_readonly("time_step", &PySimulation::time_step)
      .def_property_readonly("steps", [](PySimulation& s) { return s.config().steps; })
      .def_property_readonly("case_name", [](PySimulation& s) { return s.config().name; })
      .def_property_readonly("viscosity", [](PySimulation& s) { return s.config().nu; })
      .def_property_readonly("tau", [](PySimulation& s) { return s.config().tau; })
      .def_property_readonly("body_force", [](PySimulation& s) { return s.config().body_force; })
      .def_property_readonly("output_directory", [](PySimulation& s) { return s.config().output_directory; })
      .def_property_readonly("stream", &PySimulation::stream)
      .def_property_readonly("rank", &PySimulation::rank)
      .def_property_readonly("ranks", &PySimulation::ranks)
      .def_property_readonly("block_origin", &PySimulation::block_origin)
      .def_property_readonly("block_shape", &PySimulation::block_shape)
      .def_property_readonly("domain_shape", &PySimulation::domain_shape)
      .def_property_readonly("storage", &PySimulation::storage)
      .def_property_readonly("arithmetic", &PySimulation::arithmetic)
      .def_property_readonly("out_of_core", &PySimulation::out_of_core);
}
