#include "solver/checkpointing.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "solver/decomposition.hpp"
#include "solver/errors.hpp"
#include "solver/flow_statistics.hpp"
#include "solver/mpi_check.hpp"
#include "solver/precision.hpp"
#include "solver/reductions.hpp"
#include "solver/run_report.hpp"
#include "solver/timing.hpp"

namespace eddy {

namespace {

MPI_Comm communicator(const Decomposition& d) { return d.serial() ? MPI_COMM_SELF : d.comm; }

CheckpointBlock block_of(const Decomposition& d) { return CheckpointBlock{d.offset, d.local_size}; }

/// The name of the statistics' sums among a checkpoint's fields, and of their counters.
constexpr const char* kStatisticsField = "statistics";
constexpr const char* kStatisticsSamples = "statistics_samples";
constexpr const char* kStatisticsFirstStep = "statistics_first_step";

/// The fields a checkpoint of `sim`'s state holds, in file order, without the statistics' sums (the optional last
/// field: statistics_field).
std::vector<CheckpointField> state_fields_of(Simulation& sim) {
  std::vector<CheckpointField> fields = {{"populations", 19, sim.population_bytes()}};
  if (sim.has_thermal()) fields.push_back({"temperature", 1, sim.temperature_bytes()});
  if (sim.has_particles() && sim.config().particles.two_way) {
    fields.push_back({"particle_force", 3, sim.temperature_bytes()});
  }
  return fields;
}

/// The field of the statistics' sums of `sim` (with [statistics]): components x 8-byte doubles per cell.
CheckpointField statistics_field(Simulation& sim) {
  return {kStatisticsField, sim.flow_statistics()->components(), int(sizeof(double))};
}

/// The fields a checkpoint of `sim` holds, in file order: the state's, then the statistics' sums.
std::vector<CheckpointField> fields_of(Simulation& sim) {
  std::vector<CheckpointField> fields = state_fields_of(sim);
  if (sim.has_statistics()) fields.push_back(statistics_field(sim));
  return fields;
}

/// A particle as a checkpoint record: position, velocity, diameter, density (doubles) and id (int64), 9 x 8 bytes.
constexpr int kParticleRecordBytes = 72;

std::vector<unsigned char> particle_records(const ParticleSnapshot& s) {
  std::vector<unsigned char> out(s.size() * kParticleRecordBytes);
  for (std::size_t k = 0; k < s.size(); ++k) {
    const double values[8] = {s.x[0][k], s.x[1][k], s.x[2][k],     s.v[0][k],
                              s.v[1][k], s.v[2][k], s.diameter[k], s.density[k]};
    unsigned char* record = out.data() + k * kParticleRecordBytes;
    std::memcpy(record, values, sizeof values);
    std::memcpy(record + sizeof values, &s.id[k], sizeof(std::int64_t));
  }
  return out;
}

/// The particles of `records` inside `block` (lo <= x < lo + size on every axis, the ownership rule of seeding and
/// migration).
ParticleSnapshot particles_in(const std::vector<unsigned char>& records, const CheckpointBlock& block) {
  ParticleSnapshot s;
  for (std::size_t at = 0; at + kParticleRecordBytes <= records.size(); at += kParticleRecordBytes) {
    double values[8];
    std::int64_t id = 0;
    std::memcpy(values, records.data() + at, sizeof values);
    std::memcpy(&id, records.data() + at + sizeof values, sizeof id);
    bool inside = true;
    for (int a = 0; a < 3; ++a) {
      inside = inside && values[a] >= double(block.offset[a]) && values[a] < double(block.offset[a]) + block.size[a];
    }
    if (!inside) continue;
    const double x[3] = {values[0], values[1], values[2]}, v[3] = {values[3], values[4], values[5]};
    s.push_back(x, v, values[6], values[7], id);
  }
  return s;
}

std::string grid_text(const std::array<int, 3>& n) {
  return std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]);
}

}  // namespace

std::string checkpoint_directory(const CaseConfig& config) {
  return config.checkpoint_directory.empty() ? (std::filesystem::path(config.output_directory) / "checkpoints").string()
                                             : config.checkpoint_directory;
}

double checkpoint_staging_bytes(const CaseConfig& config, const Decomposition& decomposition) {
  if (config.checkpoint_every <= 0) return 0.0;
  const double cells = double(decomposition.local_size[0]) * decomposition.local_size[1] * decomposition.local_size[2];
  const double value = double(arithmetic_bytes(config.precision));
  const double per_cell = 19.0 * double(storage_bytes(config.precision)) + (config.thermal.enabled ? value : 0.0) +
                          (config.particles.enabled && config.particles.two_way ? 3.0 * value : 0.0) +
                          double(statistics_components(config)) * double(sizeof(double));
  return cells * per_cell;
}

std::size_t StagedCheckpoint::bytes() const {
  std::size_t total = records.size();
  for (const auto& field : data) total += field.size();
  return total;
}

StagedCheckpoint stage_state_checkpoint(const CaseConfig& config, Simulation& sim) {
  const Decomposition& d = sim.decomposition();
  RawState state = sim.raw_state();
  StagedCheckpoint staged;
  CheckpointManifest& m = staged.manifest;
  m.case_name = config.name;
  m.step = state.step;
  m.layout = state.layout;
  m.grid = config.size;
  m.ranks = d.serial() ? std::array<int, 3>{1, 1, 1} : d.dims;
  m.storage = precision_name(config.precision);
  m.fields = fields_of(sim);
  std::vector<std::vector<unsigned char>>& data = staged.data;  // moved in: a braced list would copy every field
  data.push_back(std::move(state.populations));
  if (sim.has_thermal()) data.push_back(std::move(state.temperature));
  if (!state.particle_force.empty()) data.push_back(std::move(state.particle_force));
  if (sim.has_statistics()) {
    data.push_back(std::move(state.statistics));
    m.counters = {{kStatisticsSamples, state.statistics_samples}, {kStatisticsFirstStep, state.statistics_first_step}};
  }
  if (sim.has_particles()) {
    m.record_name = "particles";
    m.record_bytes = kParticleRecordBytes;
    staged.records = particle_records(state.particles);
  }
  char step[32];
  std::snprintf(step, sizeof step, "_checkpoint_%08lld", static_cast<long long>(state.step));
  staged.stem = (std::filesystem::path(checkpoint_directory(config)) / (config.name + step)).string();
  staged.block = block_of(d);
  agree_on_failure(d.serial() ? MPI_COMM_NULL : d.comm,
                   [&] { ensure_writable_directory(checkpoint_directory(config)); });
  return staged;
}

std::string write_staged_checkpoint(const StagedCheckpoint& staged, MPI_Comm comm) {
  try {
    return write_checkpoint(staged.stem, staged.manifest, staged.data, staged.records, staged.block, comm);
  } catch (const OutputError& e) {
    throw CollectiveOutputError(e.what());  // every rank throws it
  }
}

std::string write_state_checkpoint(const CaseConfig& config, Simulation& sim) {
  return write_staged_checkpoint(stage_state_checkpoint(config, sim), communicator(sim.decomposition()));
}

std::string restore_state_checkpoint(const CaseConfig& config, Simulation& sim, const std::string& manifest_path) {
  const CheckpointManifest m = read_checkpoint_manifest(manifest_path);
  const auto mismatch = [&](const std::string& what) {
    return CheckpointError("checkpoint " + manifest_path + " does not fit the case " + config.source_file + ": " +
                           what);
  };
  if (m.grid != config.size) {
    throw mismatch("it holds a grid of " + grid_text(m.grid) + " cells, the case has " + grid_text(config.size));
  }
  if (m.storage != precision_name(config.precision)) {
    throw mismatch("it was written with storage \"" + m.storage + "\", the case uses \"" +
                   precision_name(config.precision) + "\" (numerics.storage)");
  }
  // The state's fields must match; the statistics' sums (the last field, when present) are optional on either side:
  // a case may start averaging from a checkpoint without them, or stop (they are then not read into the state).
  const std::vector<CheckpointField> expected = state_fields_of(sim);
  const bool stored_statistics = !m.fields.empty() && m.fields.back().name == kStatisticsField;
  const std::size_t state_fields = m.fields.size() - (stored_statistics ? 1 : 0);
  bool same = state_fields == expected.size();
  for (std::size_t f = 0; same && f < expected.size(); ++f) {
    same = m.fields[f].name == expected[f].name && m.fields[f].components == expected[f].components &&
           m.fields[f].value_bytes == expected[f].value_bytes;
  }
  if (same && stored_statistics && sim.has_statistics()) {
    const CheckpointField& stored = m.fields.back();
    const CheckpointField needed = statistics_field(sim);
    if (stored.components != needed.components || stored.value_bytes != needed.value_bytes) {
      const auto sums = [](int components) {
        return std::to_string(components) + " sums per cell (" +
               (components >= StatisticsView::kAllMoments ? "rho, u and u_a u_b" : "rho and u") +
               (components == StatisticsView::kFirstMoments + 1 || components == StatisticsView::kAllMoments + 1
                    ? ", T)"
                    : ")");
      };
      throw mismatch("its [statistics] hold " + sums(stored.components) + ", the case's statistics.fields need " +
                     sums(needed.components) +
                     ": continue with the fields it was written with, or restart the averages from a checkpoint "
                     "without [statistics]");
    }
  }
  if (!same) {
    const auto describe = [](const std::vector<CheckpointField>& fields) {
      std::string text;
      for (const auto& f : fields) {
        text += (text.empty() ? "" : ", ") + f.name + " (" + std::to_string(f.components) + " x " +
                std::to_string(f.value_bytes) + " B)";
      }
      return text;
    };
    throw mismatch("it holds the fields " + describe(m.fields) + ", the case needs " + describe(expected) +
                   " (a [thermal] section or two-way particles on one side only?)");
  }
  if ((m.record_bytes > 0) != sim.has_particles() || (m.record_bytes > 0 && m.record_bytes != kParticleRecordBytes)) {
    throw mismatch(m.record_bytes > 0 && sim.has_particles()
                       ? "its particle records have " + std::to_string(m.record_bytes) + " bytes, not " +
                             std::to_string(kParticleRecordBytes)
                   : sim.has_particles() ? "it holds no particles, the case has [particles]"
                                         : "it holds particles, the case has no [particles]");
  }
  if (m.step > config.steps) {
    throw CollectiveInputError("checkpoint " + manifest_path + " is at step " + std::to_string(m.step) +
                               ", beyond run.steps = " + std::to_string(config.steps) +
                               ": raise run.steps (the total step count, the restart's included)");
  }
  const Decomposition& d = sim.decomposition();
  CheckpointData data = read_checkpoint_data(manifest_path, m, block_of(d), communicator(d));
  RawState state;
  state.step = m.step;
  state.layout = m.layout;
  std::size_t next = 0;
  state.populations = std::move(data.fields[next++]);
  if (sim.has_thermal()) state.temperature = std::move(data.fields[next++]);
  if (sim.has_particles()) {
    if (sim.config().particles.two_way) state.particle_force = std::move(data.fields[next++]);
    state.particles = particles_in(data.records, block_of(d));
  }
  if (stored_statistics && sim.has_statistics()) {
    state.statistics = std::move(data.fields[next++]);
    state.statistics_samples = m.counter(kStatisticsSamples, 0);
    state.statistics_first_step = m.counter(kStatisticsFirstStep, -1);
    if (state.statistics_samples < 0) throw mismatch("its statistics_samples counter is negative");
  }
  try {
    sim.set_raw_state(state);
  } catch (const std::invalid_argument& e) {
    throw mismatch(e.what());
  }
  return m.case_name;
}

void remove_checkpoint(const std::string& manifest_path) {
  std::error_code ec;
  const std::filesystem::path manifest(manifest_path);
  std::filesystem::path data = manifest;
  data.replace_extension(".data");
  std::filesystem::remove(manifest, ec);
  std::filesystem::remove(data, ec);
}

bool mpi_allows_background_io() {
  int level = MPI_THREAD_SINGLE;
  EDDY_MPI_CHECK(MPI_Query_thread(&level));
  return level >= MPI_THREAD_MULTIPLE;
}

CheckpointSeries::~CheckpointSeries() {
  if (pending_.valid()) pending_.wait();  // collective on every rank alike: the writes were started together
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (writer_comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&writer_comm_);
}

void CheckpointSeries::keep(const std::string& path, std::int64_t step, const Simulation& sim) {
  last_step_ = step;
  paths_.push_back(path);
  if (paths_.size() > 2) {
    if (sim.decomposition().rank == 0) remove_checkpoint(paths_.front());
    paths_.erase(paths_.begin());
  }
}

std::string CheckpointSeries::write(const CaseConfig& config, Simulation& sim, std::ostream& log) {
  complete(sim, log);
  const auto begin = Clock::now();
  StagedCheckpoint staged = stage_state_checkpoint(config, sim);
  const std::string path = write_staged_checkpoint(staged, communicator(sim.decomposition()));
  sim.recycle_populations(std::move(staged.data.front()));
  keep(path, sim.time_step(), sim);
  print_checkpoint(path, seconds_since(begin), log);
  return path;
}

void CheckpointSeries::start(const CaseConfig& config, Simulation& sim, std::ostream& log) {
  complete(sim, log);  // one staged checkpoint in host memory at a time
  if (!config.output_asynchronous || !mpi_allows_background_io()) {
    write(config, sim, log);
    return;
  }
  const Decomposition& d = sim.decomposition();
  if (writer_comm_ == MPI_COMM_NULL) EDDY_MPI_CHECK(MPI_Comm_dup(communicator(d), &writer_comm_));
  const auto begin = Clock::now();
  auto staged = std::make_shared<StagedCheckpoint>(stage_state_checkpoint(config, sim));
  pending_stage_seconds_ = seconds_since(begin);
  pending_step_ = sim.time_step();
  const MPI_Comm comm = writer_comm_;
  pending_ = std::async(std::launch::async, [staged, comm] {
    const auto writing = Clock::now();
    Written written;
    written.path = write_staged_checkpoint(*staged, comm);
    written.seconds = seconds_since(writing);
    written.populations = std::move(staged->data.front());
    return written;
  });
}

void CheckpointSeries::poll(Simulation& sim, std::ostream& log) {
  if (pending_.valid() && ready_on_every_rank(pending_, sim.decomposition())) complete(sim, log);
}

void CheckpointSeries::complete(Simulation& sim, std::ostream& log) {
  if (!pending_.valid()) return;
  const Decomposition& d = sim.decomposition();
  Written written;
  // write_staged_checkpoint throws on every rank alike; agree_on_failure keeps the message of the first rank.
  agree_on_failure(d.serial() ? MPI_COMM_NULL : d.comm, [&] { written = pending_.get(); });
  sim.recycle_populations(std::move(written.populations));
  keep(written.path, pending_step_, sim);
  print_background_checkpoint(written.path, pending_stage_seconds_, written.seconds, log);
}

}  // namespace eddy
