// Setting up an out-of-core run (solver/out_of_core.hpp): whether to run out of core, the device budget, the slab
// plan every rank agrees on, and the host memory check; solver/out_of_core_simulation.cpp holds the simulation.
#include "solver/out_of_core.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "kernels/d3q19.hpp"
#include "solver/checkpointing.hpp"
#include "solver/host_memory.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"
#include "solver/out_of_core_simulation.hpp"
#include "solver/precision.hpp"
#include "solver/reductions.hpp"
#include "solver/slab_plan.hpp"

namespace eddy {

namespace {

bool split_along_z_only(const Decomposition& decomposition) {
  return decomposition.dims[0] == 1 && decomposition.dims[1] == 1;
}

/// Neither particles nor open boundaries (whose pass runs between two steps: a slab advances several per visit) nor
/// [statistics] (whose sums need every step's moments of the whole block), which "auto" never takes out of core. A
/// temperature field travels with the slabs.
bool slab_compatible(const CaseConfig& config) {
  return !config.particles.enabled && !has_open_faces(config) && !config.statistics.enabled;
}

/// The first [[solid]] with interpolated walls, or nullptr: their pass over the cut links runs in core only.
const SolidConfig* interpolated_solid(const CaseConfig& config) {
  for (const SolidConfig& s : config.solids)
    if (s.wall == SolidWall::interpolated) return &s;
  return nullptr;
}

}  // namespace

DeviceBudget out_of_core_budget(const CaseConfig& config) {
  if (config.out_of_core.device_memory_limit > 0) {
    return {config.out_of_core.device_memory_limit, "numerics.device_memory_limit"};
  }
  const backend::DeviceInfo device = backend::device_info(backend::current_device());
  return {std::int64_t(0.9 * double(device.free_memory)), "the free device memory (90 %)"};
}

bool runs_out_of_core(const CaseConfig& config, const Decomposition& decomposition, double in_core_bytes) {
  switch (config.out_of_core.mode) {
    case OutOfCoreMode::on:
      return true;
    case OutOfCoreMode::off:
      return false;
    case OutOfCoreMode::automatic:
      break;
  }
  if (!backend::is_gpu() || !slab_compatible(config) || interpolated_solid(config) != nullptr ||
      !split_along_z_only(decomposition)) {
    return false;
  }
  const std::int64_t limit = config.out_of_core.device_memory_limit;
  if (limit > 0) return in_core_bytes > double(limit);
  const backend::DeviceInfo device = backend::device_info(backend::current_device());
  return device.free_memory > 0 && in_core_bytes > 0.95 * double(device.free_memory);
}

std::unique_ptr<Simulation> create_out_of_core(const CaseConfig& config, const Decomposition& decomposition) {
  if (config.particles.enabled) {
    // The case reader refuses out_of_core = true with them (io/case/numerics.cpp); a case built in code reaches here.
    throw CollectiveInputError(source_prefix(config) +
                               "[particles] is not supported out of core: particles couple to the fluid of their "
                               "whole block at every step, which the slab sweeps never hold on the device at once; "
                               "set numerics.out_of_core = false");
  }
  if (config.statistics.enabled) {
    // The case reader refuses out_of_core = true with them (io/case/statistics.cpp); a case built in code reaches here.
    throw CollectiveInputError(source_prefix(config) +
                               "[statistics] is available in core only: an out-of-core run advances each z-slab "
                               "several steps per visit, so no step's moments of the whole block are on the device "
                               "to add to the running sums; set numerics.out_of_core = false");
  }
  if (has_open_faces(config)) {
    throw CollectiveInputError(source_prefix(config) +
                               "open boundaries (velocity_inlet, pressure_outlet, outflow, free_slip) are not "
                               "supported out of core: their pass over the face cells runs between two steps, and a "
                               "slab advances several steps per visit; set numerics.out_of_core = false");
  }
  if (const SolidConfig* s = interpolated_solid(config)) {
    // The case reader refuses out_of_core = true with them; a case built in code reaches here.
    throw CollectiveInputError(source_prefix(config) + "solid '" + s->name +
                               "' has wall = \"interpolated\", which runs in core only (the pass over its cut links "
                               "needs the whole block on the device after every step); set its wall = \"halfway\" "
                               "or run in core (numerics.out_of_core = false)");
  }
  if (!split_along_z_only(decomposition)) {
    throw CollectiveInputError(source_prefix(config) +
                               "out-of-core runs split the domain along z only, but the "
                               "decomposition has " +
                               std::to_string(decomposition.dims[0]) + " x " + std::to_string(decomposition.dims[1]) +
                               " x " + std::to_string(decomposition.dims[2]) + " ranks; set parallel.ranks = [1, 1, " +
                               std::to_string(decomposition.size) + "]");
  }
  const BlockShape shape = block_shape(decomposition);
  const std::size_t bytes = storage_bytes(config.precision);
  const DeviceBudget budget = out_of_core_budget(config);
  const bool thermal = config.thermal.enabled;
  const std::size_t value = arithmetic_bytes(config.precision);  // T and u: the arithmetic type
  const std::size_t plane_cells = std::size_t(shape.pitch()) * std::size_t(shape.n[1] + 2);
  SlabRequest request;
  request.nz = shape.n[2];
  // With [thermal] each slab buffer also holds T twice (the sub-steps swap them) and the velocity u it is carried by.
  request.plane_bytes =
      plane_cells * (d3q19::Q * bytes + sizeof(CellFlag) + (thermal ? kSlabThermalValues * value : 0));
  if (thermal) {
    request.plane_contents = "19 populations, a flag, and " + std::to_string(kSlabThermalValues) + " values of " +
                             std::to_string(value) + " bytes for T and u";
    request.reach = config.thermal.substeps;
  }
  request.wall_below = decomposition.neighbour[2][0] == kNoNeighbour;
  request.wall_above = decomposition.neighbour[2][1] == kNoNeighbour;
  request.budget = budget.bytes;
  request.budget_name = budget.name;
  request.time_block = config.out_of_core.time_block;
  request.slabs = config.out_of_core.slabs;
  const bool other_rank_below = !request.wall_below && decomposition.neighbour[2][0] != decomposition.rank;
  const bool other_rank_above = !request.wall_above && decomposition.neighbour[2][1] != decomposition.rank;
  if (!decomposition.serial() && (other_rank_below || other_rank_above)) {
    request.neighbour_planes = decomposition.global_size[2] / decomposition.dims[2];  // the thinnest block
    const int least = halo_planes(1, request.reach);
    if (request.neighbour_planes < least) {
      throw RankCountError(source_prefix(config) + "out-of-core runs take a halo of at least " + std::to_string(least) +
                           " z-planes from the next rank" + (request.reach > 1 ? " (thermal sub-steps + 1)" : "") +
                           ", but " + std::to_string(decomposition.global_size[2]) + " z-planes over " +
                           std::to_string(decomposition.dims[2]) + " ranks leave blocks of " +
                           std::to_string(request.neighbour_planes) + "; use at most " +
                           std::to_string(std::max(1, decomposition.global_size[2] / least)) + " ranks");
    }
  }
  // Host: the state (with T), the flags (with the halo planes), one read-out of the fields (4 values per interior
  // cell, and T's) and a staged checkpoint (a copy of the state, solver/checkpointing.hpp).
  const double host_bytes =
      double(shape.n_cells()) * (d3q19::Q * bytes + 2.0 * sizeof(CellFlag) + (thermal ? value : 0)) +
      (thermal ? 5.0 : 4.0) * double(shape.interior_cells()) * double(value) +
      checkpoint_staging_bytes(config, decomposition);
  const std::size_t available = host_available_memory();
  if (!backend::is_gpu() && config.out_of_core.device_memory_limit <= 0 && available > 0) {
    // On cpu the "device" buffers share the host memory with the state: budget what the state leaves.
    request.budget = std::max<std::int64_t>(0, std::int64_t(0.9 * (double(available) - host_bytes)));
    request.budget_name = "the free host memory left beside the state (90 %)";
  }
  const MPI_Comm comm = decomposition.serial() ? MPI_COMM_NULL : decomposition.comm;
  auto plan_here = [&] {
    try {
      return plan_slabs(request);
    } catch (const InputError& e) {
      throw InputError(source_prefix(config) + e.what());
    }
  };
  SlabPlan plan;
  agree_on_failure(comm, [&] { plan = plan_here(); });
  if (comm != MPI_COMM_NULL && request.time_block == 0) {
    // Every rank sweeps alike (the halo refresh is collective): the smallest time_block chosen by any rank.
    int k = plan.time_block;
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &k, 1, MPI_INT, MPI_MIN, comm));
    request.time_block = k;
    agree_on_failure(comm, [&] { plan = plan_here(); });
  }
  // The halo copies (populations, and T), and on cpu the "device" buffers too.
  const double total_host_bytes =
      host_bytes + 2.0 * plan.halo * double(plane_cells) * double(d3q19::Q * bytes + (thermal ? value : 0)) +
      (backend::is_gpu() ? 0.0 : double(plan.device_bytes));
  if (available > 0 && total_host_bytes > 0.95 * double(available)) {
    char text[400];
    std::snprintf(text, sizeof text,
                  "the out-of-core block of %d x %d x %d cells needs %.3g GB of host memory (pinned populations%s, "
                  "flags, halos, one read-out%s) but only %.3g GB are available; use a smaller domain%s or more "
                  "ranks",
                  shape.n[0], shape.n[1], shape.n[2], total_host_bytes * 1e-9, thermal ? " and T" : "",
                  backend::is_gpu() ? "" : ", the slab buffers", double(available) * 1e-9,
                  fp16_storage_hint(config.precision));
    throw OutOfMemoryError(text);
  }
  return make_out_of_core_simulation(config, decomposition, request, plan);
}

}  // namespace eddy
