#include "solver/particle_system.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "io/particle_seed.hpp"
#include "kernels/field_launchers.hpp"
#include "kernels/particle_launchers.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"
#include "solver/precision.hpp"

namespace eddy {
namespace {

constexpr int kLow = 0, kHigh = 1;

/// One particle in a migration message: position, velocity, diameter, density, id (bytes, MPI_BYTE).
struct Migrant {
  double x[3], v[3], diameter, density;
  std::int64_t id;
};

/// The region of this rank's contact search; with ghost particles (on `ghost_axes`) widened by the cutoff.
ContactRegion contact_region(const Decomposition& d, double cutoff, const std::array<bool, 3>& ghost_axes) {
  ContactRegion r;
  r.global_size = d.global_size;
  r.periodic = d.periodic;
  r.offset = d.offset;
  r.size = d.local_size;
  r.halo_axes = ghost_axes;
  r.halo = ghost_axes[0] || ghost_axes[1] || ghost_axes[2] ? cutoff : 0.0;
  return r;
}

/// One gravity source in the all-ranks gather: position, diameter, density, id (bytes, MPI_BYTE).
struct Source {
  double x[3], diameter, density;
  std::int64_t id;
};

/// Bytes per particle on the device: 13 arrays of 8 bytes and the cell list's 28.
constexpr double kBytesPerParticle = 13 * 8 + 28;

}  // namespace

double particle_device_bytes(const CaseConfig& config, const Decomposition& decomposition, std::int64_t particles) {
  if (!config.particles.enabled) return 0.0;
  const double cells = double(block_shape(decomposition).n_cells());
  const double value = double(arithmetic_bytes(config.precision));
  double bytes = cells * 3.0 * value;                                   // velocity field
  if (config.particles.two_way) bytes += cells * (24.0 + 3.0 * value);  // deposit and force field
  // Ghost copies with contacts: the particles within one diameter of each exchanging face (uniformly spread, at most
  // all of them per face), as particles (arrays and cell list, 1 byte of image code) and twice in 80-byte records
  // (sent and received).
  double ghosts = 0.0;
  if (config.particles.contacts) {
    for (int a = 0; a < 3; ++a) {
      if (!decomposition.exchanges(a)) continue;
      ghosts += 2.0 * std::min(1.0, config.particles.diameter / double(decomposition.local_size[a]));
    }
  }
  return bytes + double(particles) * (kBytesPerParticle + ghosts * (kBytesPerParticle + 1.0 + 2.0 * 80.0));
}

template <class T>
ParticleSystem<T>::ParticleSystem(const CaseConfig& config, const Decomposition& decomposition, const BlockShape& shape)
    : config_(config), decomposition_(decomposition), shape_(shape), u_halo_(decomposition, shape) {
  check_contact_blocks(config, decomposition);
  const ParticleConfig& pc = config.particles;
  model_.kind = pc.kind == ParticleKind::inertial ? ParticleModel::kInertial : ParticleModel::kTracer;
  model_.wall_mode = pc.walls == ParticleWalls::stick ? ParticleModel::kStick : ParticleModel::kBounce;
  model_.nu = config.nu;
  model_.two_way = pc.two_way;
  for (int a = 0; a < 3; ++a) {
    model_.gravity[a] = pc.gravity[a];
    model_.global_size[a] = decomposition.global_size[a];
    model_.periodic[a] = decomposition.periodic[a];
  }

  const std::size_t cells = std::size_t(shape.n_cells());
  for (auto& u : u_) u = DeviceBuffer<R>(cells);
  if (pc.two_way) {
    const std::vector<unsigned long long> zero_fixed(cells, 0ull);
    const std::vector<R> zero(cells, R(0));
    for (int a = 0; a < 3; ++a) {
      deposit_[a] = DeviceBuffer<unsigned long long>(cells);
      deposit_[a].upload(zero_fixed);
      force_field_[a] = DeviceBuffer<R>(cells);
      force_field_[a].upload(zero);
    }
    deposit_halo_ = std::make_unique<FieldHalo<unsigned long long>>(decomposition, shape);
  }
  counter_ = DeviceBuffer<unsigned long long>(1);
  std::array<bool, 3> ghost_axes{};
  if (pc.contacts) {
    // The contact cutoff: the largest reach (d_i + d_j) / 2 of two particles, one diameter.
    ghosts_ = std::make_unique<ParticleGhosts>(decomposition, pc.diameter, config.parallel.transport);
    if (ghosts_->active()) {
      ghost_axes = ghosts_->axes();
    } else {
      ghosts_.reset();
    }
  }
  if (pc.contacts || pc.pair_force != PairForce::none) {
    contacts_ = std::make_unique<ParticleContacts>(pc, contact_region(decomposition, pc.diameter, ghost_axes));
  }

  std::array<double, 3> lo{}, hi{};
  for (int a = 0; a < 3; ++a) {
    lo[a] = decomposition.offset[a];
    hi[a] = double(decomposition.offset[a]) + decomposition.local_size[a];
  }
  ParticleSnapshot s;
  std::vector<SeedParticle> seeds;
  try {
    seeds = seed_particles(config, lo, hi);
  } catch (const InputError& e) {
    throw CollectiveInputError(e.what());  // every rank reads the same file (or draws the same list) and fails alike
  }
  for (const SeedParticle& seed : seeds) {
    const double x[3] = {seed.position[0], seed.position[1], seed.position[2]};
    const double v[3] = {seed.velocity[0], seed.velocity[1], seed.velocity[2]};
    s.push_back(x, v, pc.diameter, pc.density, seed.id);
  }
  upload(s);
}

template <class T>
std::vector<compute_t<T>> ParticleSystem<T>::force_field_interior() const {
  if (!config_.particles.two_way) return {};
  const std::size_t n = std::size_t(shape_.interior_cells());
  std::vector<R> out(3 * n);
  for (int a = 0; a < 3; ++a) {
    const std::vector<R> all = force_field_[a].download();
    std::size_t k = 0;
    for (int z = 1; z <= shape_.n[2]; ++z)
      for (int y = 1; y <= shape_.n[1]; ++y)
        for (int x = 1; x <= shape_.n[0]; ++x) out[a * n + k++] = all[std::size_t(shape_.index(x, y, z))];
  }
  return out;
}

template <class T>
std::vector<unsigned char> ParticleSystem<T>::force_field_bytes() const {
  const std::vector<R> force = force_field_interior();
  std::vector<unsigned char> bytes(force.size() * sizeof(R));
  std::memcpy(bytes.data(), force.data(), bytes.size());
  return bytes;
}

template <class T>
void ParticleSystem<T>::restore_bytes(const ParticleSnapshot& s, const std::vector<unsigned char>& bytes) {
  std::vector<R> force(bytes.size() / sizeof(R));
  std::memcpy(force.data(), bytes.data(), force.size() * sizeof(R));
  restore(s, force);
}

template <class T>
void ParticleSystem<T>::restore(const ParticleSnapshot& s, const std::vector<R>& force) {
  upload(s);
  if (!config_.particles.two_way) return;
  const std::size_t n = std::size_t(shape_.interior_cells());
  for (int a = 0; a < 3; ++a) {
    std::vector<R> all = force_field_[a].download();
    std::size_t k = 0;
    for (int z = 1; z <= shape_.n[2]; ++z)
      for (int y = 1; y <= shape_.n[1]; ++y)
        for (int x = 1; x <= shape_.n[0]; ++x) all[std::size_t(shape_.index(x, y, z))] = force[a * n + k++];
    force_field_[a].upload(all);
  }
}

template <class T>
void ParticleSystem<T>::upload(const ParticleSnapshot& s) {
  backend::synchronize();
  const std::int64_t n = std::int64_t(s.size());
  arrays_.reserve(n);
  n_ = n;
  if (n == 0) return;
  const std::size_t doubles = std::size_t(n) * sizeof(double);
  const std::vector<double> zero(std::size_t(n), 0.0);
  for (int a = 0; a < 3; ++a) {
    backend::copy_to_device(arrays_.x[a].data(), s.x[a].data(), doubles);
    backend::copy_to_device(arrays_.v[a].data(), s.v[a].data(), doubles);
    backend::copy_to_device(arrays_.force[a].data(), zero.data(), doubles);
  }
  backend::copy_to_device(arrays_.diameter.data(), s.diameter.data(), doubles);
  backend::copy_to_device(arrays_.density.data(), s.density.data(), doubles);
  backend::copy_to_device(arrays_.id.data(), s.id.data(), std::size_t(n) * sizeof(std::int64_t));
}

template <class T>
ParticleSnapshot ParticleSystem<T>::snapshot() const {
  ParticleSnapshot s;
  const std::size_t n = std::size_t(n_);
  backend::synchronize();
  for (int a = 0; a < 3; ++a) {
    s.x[a].resize(n);
    s.v[a].resize(n);
    if (n == 0) continue;
    backend::copy_to_host(s.x[a].data(), arrays_.x[a].data(), n * sizeof(double));
    backend::copy_to_host(s.v[a].data(), arrays_.v[a].data(), n * sizeof(double));
  }
  s.diameter.resize(n);
  s.density.resize(n);
  s.id.resize(n);
  if (n > 0) {
    backend::copy_to_host(s.diameter.data(), arrays_.diameter.data(), n * sizeof(double));
    backend::copy_to_host(s.density.data(), arrays_.density.data(), n * sizeof(double));
    backend::copy_to_host(s.id.data(), arrays_.id.data(), n * sizeof(std::int64_t));
  }
  return s;
}

template <class T>
ParticleView ParticleSystem<T>::gravity_sources() {
  const Decomposition& d = decomposition_;
  if (d.serial() || d.size == 1) return ParticleView{};
  // Every rank's particles to every rank, through the host: small counts (the pair force costs N^2 anyway).
  const ParticleSnapshot own = snapshot();
  std::vector<Source> mine(own.size());
  for (std::size_t k = 0; k < own.size(); ++k) {
    mine[k] = Source{{own.x[0][k], own.x[1][k], own.x[2][k]}, own.diameter[k], own.density[k], own.id[k]};
  }
  const int count = int(mine.size() * sizeof(Source));
  std::vector<int> counts(std::size_t(d.size)), displacements(std::size_t(d.size), 0);
  EDDY_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, d.comm));
  long long bytes = 0;
  for (int r = 0; r < d.size; ++r) {
    displacements[std::size_t(r)] = int(bytes);
    bytes += counts[std::size_t(r)];
  }
  if (bytes > std::numeric_limits<int>::max()) {
    throw std::length_error("pair gravity: " + std::to_string(bytes / sizeof(Source)) +
                            " particles to gather on every rank (at most 2^31 - 1 bytes of them)");
  }
  std::vector<Source> all(std::size_t(bytes) / sizeof(Source));
  EDDY_MPI_CHECK(
      MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, d.comm));
  const std::int64_t n = std::int64_t(all.size());
  sources_.reserve(n);
  std::array<std::vector<double>, 3> x;
  std::vector<double> diameter(all.size()), density(all.size());
  std::vector<std::int64_t> id(all.size());
  for (auto& axis : x) axis.resize(all.size());
  for (std::size_t k = 0; k < all.size(); ++k) {
    for (int a = 0; a < 3; ++a) x[a][k] = all[k].x[a];
    diameter[k] = all[k].diameter;
    density[k] = all[k].density;
    id[k] = all[k].id;
  }
  if (n > 0) {
    const std::size_t doubles = std::size_t(n) * sizeof(double);
    for (int a = 0; a < 3; ++a) backend::copy_to_device(sources_.x[a].data(), x[a].data(), doubles);
    backend::copy_to_device(sources_.diameter.data(), diameter.data(), doubles);
    backend::copy_to_device(sources_.density.data(), density.data(), doubles);
    backend::copy_to_device(sources_.id.data(), id.data(), std::size_t(n) * sizeof(std::int64_t));
  }
  return sources_.view(n);
}

template <class T>
ForceFieldView<compute_t<T>> ParticleSystem<T>::force_field() const {
  ForceFieldView<R> f;
  if (!config_.particles.two_way) return f;
  for (int a = 0; a < 3; ++a) f.f[a] = force_field_[a].data();
  return f;
}

template <class T>
void ParticleSystem<T>::copy_state_to_device(double* out, const backend::Stream& stream) const {
  const std::size_t bytes = std::size_t(n_) * sizeof(double);
  if (bytes == 0) return;
  for (int a = 0; a < 3; ++a) {
    backend::copy_on_device_async(out + std::int64_t(a) * n_, arrays_.x[a].data(), bytes, stream);
    backend::copy_on_device_async(out + std::int64_t(3 + a) * n_, arrays_.v[a].data(), bytes, stream);
  }
}

template <class T>
std::array<double, 3> ParticleSystem<T>::force_on_fluid() const {
  std::array<double, 3> sum{0.0, 0.0, 0.0};
  if (!config_.particles.two_way) return sum;
  for (int a = 0; a < 3; ++a) {
    const std::vector<R> f = force_field_[a].download();
    for (int z = 1; z <= shape_.n[2]; ++z)
      for (int y = 1; y <= shape_.n[1]; ++y)
        for (int x = 1; x <= shape_.n[0]; ++x) sum[a] += double(f[std::size_t(shape_.index(x, y, z))]);
  }
  return sum;
}

template <class T>
ParticleDiagnostics ParticleSystem<T>::diagnose() const {
  const ParticleSnapshot s = snapshot();
  ParticleDiagnostics local;
  for (std::size_t k = 0; k < s.size(); ++k) {
    double speed2 = 0.0;
    bool finite = true;
    for (int a = 0; a < 3; ++a) {
      finite = finite && std::isfinite(s.x[a][k]) && std::isfinite(s.v[a][k]);
      speed2 += s.v[a][k] * s.v[a][k];
    }
    if (!finite) {
      if (local.finite || s.id[k] < local.worst_id) local.worst_id = s.id[k];
      local.finite = false;
    } else if (local.finite && speed2 > local.max_speed * local.max_speed) {
      local.max_speed = std::sqrt(speed2);
      local.worst_id = s.id[k];
    }
  }
  if (decomposition_.serial() || decomposition_.size == 1) return local;
  // Global: finite if all are; the worst particle is the lowest non-finite id, else the fastest.
  struct {
    double value;
    int rank;
  } mine{local.finite ? local.max_speed : std::numeric_limits<double>::infinity(), decomposition_.rank}, worst{};
  EDDY_MPI_CHECK(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, decomposition_.comm));
  long long id = local.worst_id;
  EDDY_MPI_CHECK(MPI_Bcast(&id, 1, MPI_LONG_LONG, worst.rank, decomposition_.comm));
  ParticleDiagnostics global;
  global.finite = std::isfinite(worst.value);
  global.max_speed = global.finite ? worst.value : 0.0;
  global.worst_id = id;
  return global;
}

template <class T>
std::int64_t ParticleSystem<T>::global_count() const {
  if (decomposition_.serial()) return n_;
  long long local = n_, total = 0;
  EDDY_MPI_CHECK(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, decomposition_.comm));
  return total;
}

template <class T>
void ParticleSystem<T>::step(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                             const Relaxation<R>& relax, const WallVelocities<R>& walls, const backend::Stream* stream,
                             const ForceFieldView<R>* fluid_force) {
  const R force[3] = {relax.force[0], relax.force[1], relax.force[2]};
  R* const u[3] = {u_[0].data(), u_[1].data(), u_[2].data()};
  compute_velocity_field(a, layout, flags, shape_, force, fluid_force ? *fluid_force : force_field(), walls, u, stream);
  for (int d = 0; d < 3; ++d) u_halo_.fill_ghosts(u[d], stream);

  const int origin[3] = {decomposition_.offset[0], decomposition_.offset[1], decomposition_.offset[2]};
  const VelocityFieldView<R> field{{u[0], u[1], u[2]}, shape_, {origin[0], origin[1], origin[2]}};
  ForceDepositView deposit{
      {deposit_[0].data(), deposit_[1].data(), deposit_[2].data()}, shape_, {origin[0], origin[1], origin[2]}};
  if (contacts_) {
    ContactParticles in;
    std::int64_t total = n_;
    if (ghosts_) total = ghosts_->exchange(arrays_, n_, stream);
    in.all = arrays_.view(total);
    in.images = ghosts_ ? ghosts_->images(n_) : GhostImages{n_, nullptr};
    if (contacts_->pair_gravity()) in.gravity_sources = gravity_sources();
    contacts_->compute_forces(in, stream);
  }
  const ParticleView p = view();  // after the ghost exchange, which may have moved the arrays
  move_particles(p, model_, field, model_.two_way ? &deposit : nullptr, stream);
  if (model_.two_way) {
    for (int d = 0; d < 3; ++d) deposit_halo_->add_ghosts_to_owners(deposit.fixed[d], stream);
    R* const f[3] = {force_field_[0].data(), force_field_[1].data(), force_field_[2].data()};
    resolve_deposit(deposit, f, stream);
  }
  migrate();
}

template <class T>
void ParticleSystem<T>::migrate() {
  const Decomposition& d = decomposition_;
  if (d.serial() || d.size == 1) return;
  double lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = d.offset[a];
    hi[a] = double(d.offset[a]) + d.local_size[a];
  }
  long long outside = count_particles_outside(view(), lo, hi, counter_.data()), any = 0;
  EDDY_MPI_CHECK(MPI_Allreduce(&outside, &any, 1, MPI_LONG_LONG, MPI_SUM, d.comm));
  if (any == 0) return;

  ParticleSnapshot s = snapshot();
  // A particle that is not finite or that jumped past the neighbouring block cannot be handed on: every rank learns
  // of the first such particle (lowest id) and all stop alike.
  long long bad = std::numeric_limits<long long>::max(), first_bad = bad;
  for (std::size_t k = 0; k < s.size(); ++k) {
    for (int axis = 0; axis < 3; ++axis) {
      const double x = s.x[axis][k];
      const bool in_reach = std::isfinite(x) && x >= double(d.offset[axis]) - 1.0 &&
                            x < double(d.offset[axis]) + d.local_size[axis] + 1.0;
      const bool wrapped = d.periodic[axis] && std::isfinite(x);  // came round a periodic axis
      if (!in_reach && !wrapped) bad = std::min<long long>(bad, s.id[k]);
    }
  }
  EDDY_MPI_CHECK(MPI_Allreduce(&bad, &first_bad, 1, MPI_LONG_LONG, MPI_MIN, d.comm));
  if (first_bad != std::numeric_limits<long long>::max()) {
    throw InstabilityError("particle " + std::to_string(first_bad) +
                           " became non-finite (NaN or infinity) or moved more than one cell in one step; lower the "
                           "particle forces (gravity, contact stiffness) or the flow speed");
  }
  for (int axis = 0; axis < 3; ++axis) {
    if (d.dims[axis] == 1) continue;
    // Sort this rank's particles into those staying and those for the lower / upper neighbour on this axis.
    const int c = d.coords[axis], p = d.dims[axis];
    const int up = d.periodic[axis] ? (c + 1) % p : c + 1;
    const int down = d.periodic[axis] ? (c - 1 + p) % p : c - 1;
    ParticleSnapshot stay;
    std::vector<Migrant> out[2];
    for (std::size_t k = 0; k < s.size(); ++k) {
      const double x = s.x[axis][k];
      int target = -1;
      for (int b = 0; b < p && target < 0; ++b) {
        int first = 0, count = 0;
        d.block_extent(axis, b, first, count);
        if (x >= first && x < double(first) + count) target = b;
      }
      if (target == c) {
        stay.push_back(s, k);
        continue;
      }
      const int side = target == up ? kHigh : target == down ? kLow : -1;
      if (side < 0 || d.neighbour[axis][side] == kNoNeighbour) {  // excluded by the check above
        throw std::logic_error("particle " + std::to_string(s.id[k]) + " at " + std::to_string(x) + " on axis " +
                               std::to_string(axis) + " has no neighbouring block to go to from rank " +
                               std::to_string(d.rank));
      }
      Migrant m{};
      for (int a = 0; a < 3; ++a) {
        m.x[a] = s.x[a][k];
        m.v[a] = s.v[a][k];
      }
      m.diameter = s.diameter[k];
      m.density = s.density[k];
      m.id = s.id[k];
      out[side].push_back(m);
    }
    // Counts first, then the particles; tag 2 * axis + 1 for messages moving up the axis, 2 * axis down.
    long long send_count[2] = {(long long)out[kLow].size(), (long long)out[kHigh].size()}, recv_count[2] = {0, 0};
    MPI_Request requests[4];
    int pending = 0;
    for (int side : {kLow, kHigh}) {
      const int rank = d.neighbour[axis][side];
      if (rank == kNoNeighbour) continue;
      EDDY_MPI_CHECK(MPI_Irecv(&recv_count[side], 1, MPI_LONG_LONG, rank, 2 * axis + (side == kLow), d.comm,
                               &requests[pending++]));
      EDDY_MPI_CHECK(MPI_Isend(&send_count[side], 1, MPI_LONG_LONG, rank, 2 * axis + (side == kHigh), d.comm,
                               &requests[pending++]));
    }
    EDDY_MPI_CHECK(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE));
    std::vector<Migrant> in[2];
    pending = 0;
    for (int side : {kLow, kHigh}) {
      const int rank = d.neighbour[axis][side];
      if (rank == kNoNeighbour) continue;
      in[side].resize(std::size_t(recv_count[side]));
      EDDY_MPI_CHECK(MPI_Irecv(in[side].data(), int(recv_count[side] * sizeof(Migrant)), MPI_BYTE, rank,
                               2 * axis + (side == kLow), d.comm, &requests[pending++]));
      EDDY_MPI_CHECK(MPI_Isend(out[side].data(), int(send_count[side] * sizeof(Migrant)), MPI_BYTE, rank,
                               2 * axis + (side == kHigh), d.comm, &requests[pending++]));
    }
    EDDY_MPI_CHECK(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE));
    for (int side : {kLow, kHigh}) {
      for (const Migrant& m : in[side]) stay.push_back(m.x, m.v, m.diameter, m.density, m.id);
    }
    s = std::move(stay);
  }
  upload(s);
}

template class ParticleSystem<float>;
template class ParticleSystem<double>;
template class ParticleSystem<half_t>;

}  // namespace eddy
