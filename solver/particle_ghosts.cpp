// ParticleGhosts (solver/particle_ghosts.hpp): the three phases of the ghost-particle exchange, their buffers and
// transports, and the check that no block is thinner than the contact cutoff.
#include "solver/particle_ghosts.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>

#include "solver/mpi_check.hpp"
#include "solver/mpi_gpu_support.hpp"
#include "solver/nccl_transport.hpp"

namespace eddy {
namespace {

constexpr int kLow = 0, kHigh = 1;
const char* const kAxisNames[3] = {"x", "y", "z"};

/// Message tags: counts and records of axis a moving down (to the lower neighbour) and up.
int count_tag(int axis, bool up) { return 120 + 2 * axis + (up ? 1 : 0); }
int record_tag(int axis, bool up) { return 130 + 2 * axis + (up ? 1 : 0); }

std::string cells(double value) {
  std::string s = std::to_string(value);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

void wait(const backend::Stream* stream) {
  if (stream) {
    stream->synchronize();
  } else {
    backend::synchronize();
  }
}

/// One committed MPI type of a GhostRecord's bytes (so a message may hold up to 2^31 - 1 records).
MPI_Datatype record_type() {
  static MPI_Datatype type = [] {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    EDDY_MPI_CHECK(MPI_Type_contiguous(int(sizeof(GhostRecord)), MPI_BYTE, &t));
    EDDY_MPI_CHECK(MPI_Type_commit(&t));
    return t;
  }();
  return type;
}

int message_count(std::int64_t records) {
  if (records > std::int64_t(std::numeric_limits<int>::max())) {
    throw std::length_error("ghost particles: " + std::to_string(records) +
                            " ghost copies in one message (at most 2^31 - 1)");
  }
  return int(records);
}

}  // namespace

void check_contact_blocks(const CaseConfig& config, const Decomposition& d) {
  if (!config.particles.enabled || !config.particles.contacts) return;
  const double cutoff = config.particles.diameter;  // the largest contact reach (d_i + d_j) / 2
  for (int a = 0; a < 3; ++a) {
    const int p = d.dims[a];
    if (p <= 1) continue;
    const int n = d.global_size[a];
    const int smallest = n / p;  // the thinnest block of the axis (block_extent gives n / p or n / p + 1)
    if (cutoff <= double(smallest)) continue;
    int fitting = 1;
    while (fitting < p && double(n / (fitting + 1)) >= cutoff) ++fitting;
    throw RankCountError(source_prefix(config) + "particles.diameter = " + cells(cutoff) +
                         " cells, the contact cutoff, is larger than the thinnest block along " + kAxisNames[a] + ": " +
                         std::to_string(smallest) + " cells (domain.size " + kAxisNames[a] + " = " + std::to_string(n) +
                         " over " + std::to_string(p) + " ranks along " + kAxisNames[a] + ", " +
                         std::to_string(d.size) + " MPI ranks in all); ghost particles come from the neighbouring " +
                         "block only: use at most " + std::to_string(fitting) + (fitting == 1 ? " rank" : " ranks") +
                         " along " + kAxisNames[a] + " (parallel.ranks), or smaller particles");
  }
}

ParticleGhosts::ParticleGhosts(const Decomposition& decomposition, double cutoff, HaloTransport transport)
    : decomposition_(decomposition), transport_(transport), counters_(2) {
  const Decomposition& d = decomposition_;
  bool remote = false;
  for (int a = 0; a < 3; ++a) {
    const auto& n = d.neighbour[a];
    axes_[a] = d.exchanges(a);
    self_[a] = d.serial() || (n[kLow] == d.rank && n[kHigh] == d.rank);
    remote = remote || (axes_[a] && !self_[a]);
    GhostFaces& f = faces_[a];
    f.axis = a;
    const double lo = d.offset[a], hi = double(d.offset[a]) + d.local_size[a], period = d.global_size[a];
    f.send[kLow] = n[kLow] != kNoNeighbour;
    f.send[kHigh] = n[kHigh] != kNoNeighbour;
    f.limit[kLow] = lo + cutoff;
    f.limit[kHigh] = hi - cutoff;
    // The lower neighbour of the first block is the last one, across the periodic face at 0: copies move up by L.
    const bool first = d.coords[a] == 0, last = d.coords[a] == d.dims[a] - 1;
    f.shift[kLow] = first ? period : 0.0;
    f.trit[kLow] = first ? 1 : 0;
    f.shift[kHigh] = last ? -period : 0.0;
    f.trit[kHigh] = last ? -1 : 0;
  }
  if (!remote) return;
  if (transport_ == HaloTransport::nccl) nccl_ = NcclTransport::create(d.comm);
  if (transport_ == HaloTransport::device && backend::is_gpu() && mpi_cuda_aware() == 0) {
    throw CollectiveInputError(
        "parallel.transport = \"device\" needs a GPU-aware MPI, and this MPI library reports no CUDA support; "
        "use \"host\" (staged through pinned host memory) or \"nccl\"");
  }
}

ParticleGhosts::~ParticleGhosts() = default;

void ParticleGhosts::grow(Buffers& b, std::int64_t n, const backend::Stream* stream) {
  if (n <= b.capacity) return;
  wait(stream);  // queued work may still read the old buffer
  const std::int64_t capacity = std::max<std::int64_t>(n + n / 4, 1024);
  b.device = DeviceBuffer<GhostRecord>();
  b.host = PinnedBuffer<GhostRecord>();
  b.capacity = 0;
  b.device = DeviceBuffer<GhostRecord>(std::size_t(capacity));
  if (transport_ == HaloTransport::host && backend::is_gpu()) b.host = PinnedBuffer<GhostRecord>(std::size_t(capacity));
  b.capacity = capacity;
}

void ParticleGhosts::grow_codes(std::int64_t n, std::int64_t keep, const backend::Stream* stream) {
  if (n <= code_capacity_) return;
  const std::int64_t capacity = std::max<std::int64_t>(n + n / 2, 1024);
  DeviceBuffer<std::uint8_t> next{std::size_t(capacity)};
  if (keep > 0) {
    if (stream) {
      backend::copy_on_device_async(next.data(), codes_.data(), std::size_t(keep), *stream);
    } else {
      backend::copy_on_device(next.data(), codes_.data(), std::size_t(keep));
    }
  }
  wait(stream);
  codes_.swap(next);
  code_capacity_ = capacity;
}

void ParticleGhosts::exchange_counts(int axis, const std::array<std::int64_t, 2>& send,
                                     std::array<std::int64_t, 2>& recv) {
  const Decomposition& d = decomposition_;
  const auto& n = d.neighbour[axis];
  long long out[2] = {send[kLow], send[kHigh]}, in[2] = {0, 0};
  MPI_Request requests[4];
  int pending = 0;
  // What the lower neighbour sent up arrives at our lower side, and the other way.
  for (int side : {kLow, kHigh}) {
    if (n[side] == kNoNeighbour) continue;
    EDDY_MPI_CHECK(
        MPI_Irecv(&in[side], 1, MPI_LONG_LONG, n[side], count_tag(axis, side == kLow), d.comm, &requests[pending++]));
  }
  for (int side : {kLow, kHigh}) {
    if (n[side] == kNoNeighbour) continue;
    EDDY_MPI_CHECK(
        MPI_Isend(&out[side], 1, MPI_LONG_LONG, n[side], count_tag(axis, side == kHigh), d.comm, &requests[pending++]));
  }
  EDDY_MPI_CHECK(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE));
  recv = {in[kLow], in[kHigh]};
}

void ParticleGhosts::exchange_records(int axis, const std::array<std::int64_t, 2>& send,
                                      const std::array<std::int64_t, 2>& recv, const backend::Stream* stream) {
  const Decomposition& d = decomposition_;
  const int neighbour[2] = {d.neighbour[axis][kLow], d.neighbour[axis][kHigh]};
  if (transport_ == HaloTransport::nccl && nccl_) {
    const void* out[2] = {send_[kLow].device.data(), send_[kHigh].device.data()};
    void* in[2] = {recv_[kLow].device.data(), recv_[kHigh].device.data()};
    const std::size_t out_bytes[2] = {std::size_t(send[kLow]) * sizeof(GhostRecord),
                                      std::size_t(send[kHigh]) * sizeof(GhostRecord)};
    const std::size_t in_bytes[2] = {std::size_t(recv[kLow]) * sizeof(GhostRecord),
                                     std::size_t(recv[kHigh]) * sizeof(GhostRecord)};
    if (!stream) throw std::logic_error("ghost particles: the nccl transport needs a stream");
    nccl_->exchange_sized(out, out_bytes, in, in_bytes, neighbour, *stream);
    return;
  }
  const bool staged = transport_ == HaloTransport::host && backend::is_gpu();
  GhostRecord* out[2];
  GhostRecord* in[2];
  for (int side : {kLow, kHigh}) {
    out[side] = staged ? send_[side].host.data() : send_[side].device.data();
    in[side] = staged ? recv_[side].host.data() : recv_[side].device.data();
    if (staged && send[side] > 0) {
      const std::size_t bytes = std::size_t(send[side]) * sizeof(GhostRecord);
      if (stream) {
        backend::copy_to_host_async(out[side], send_[side].device.data(), bytes, *stream);
      } else {
        backend::copy_to_host(out[side], send_[side].device.data(), bytes);
      }
    }
  }
  wait(stream);  // packed (and staged) records complete before MPI reads them
  MPI_Request requests[4];
  int pending = 0;
  for (int side : {kLow, kHigh}) {
    if (neighbour[side] == kNoNeighbour || recv[side] == 0) continue;
    EDDY_MPI_CHECK(MPI_Irecv(in[side], message_count(recv[side]), record_type(), neighbour[side],
                             record_tag(axis, side == kLow), d.comm, &requests[pending++]));
  }
  for (int side : {kLow, kHigh}) {
    if (neighbour[side] == kNoNeighbour || send[side] == 0) continue;
    EDDY_MPI_CHECK(MPI_Isend(out[side], message_count(send[side]), record_type(), neighbour[side],
                             record_tag(axis, side == kHigh), d.comm, &requests[pending++]));
  }
  EDDY_MPI_CHECK(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE));
  if (!staged) return;
  for (int side : {kLow, kHigh}) {
    if (recv[side] == 0) continue;
    const std::size_t bytes = std::size_t(recv[side]) * sizeof(GhostRecord);
    if (stream) {
      backend::copy_to_device_async(recv_[side].device.data(), in[side], bytes, *stream);
    } else {
      backend::copy_to_device(recv_[side].device.data(), in[side], bytes);
    }
  }
}

std::int64_t ParticleGhosts::exchange(ParticleArrays& arrays, std::int64_t owned, const backend::Stream* stream) {
  using clock = std::chrono::steady_clock;
  if (timing_) wait(stream);
  const auto start = clock::now();
  std::int64_t total = owned;
  for (int axis = 0; axis < 3; ++axis) {
    if (!axes_[axis]) continue;
    // Pack what this rank holds near the two faces (own particles and the ghosts of the earlier axes).
    std::array<std::int64_t, 2> want{};
    for (;;) {
      GhostRecord* const out[2] = {send_[kLow].device.data(), send_[kHigh].device.data()};
      const std::int64_t capacity[2] = {send_[kLow].capacity, send_[kHigh].capacity};
      want = pack_ghosts(arrays.view(total), images(owned), faces_[axis], out, capacity, counters_.data(), stream);
      if (want[kLow] <= capacity[kLow] && want[kHigh] <= capacity[kHigh]) break;
      grow(send_[kLow], want[kLow], stream);
      grow(send_[kHigh], want[kHigh], stream);
    }
    std::array<std::int64_t, 2> got{};
    const GhostRecord* in[2];
    if (self_[axis]) {
      got = want;  // this rank is its own neighbour: what it sends, it receives
      in[kLow] = send_[kLow].device.data();
      in[kHigh] = send_[kHigh].device.data();
    } else {
      exchange_counts(axis, want, got);
      grow(recv_[kLow], got[kLow], stream);
      grow(recv_[kHigh], got[kHigh], stream);
      exchange_records(axis, want, got, stream);
      in[kLow] = recv_[kLow].device.data();
      in[kHigh] = recv_[kHigh].device.data();
    }
    const std::int64_t added = got[kLow] + got[kHigh];
    if (added == 0) continue;
    arrays.reserve(total + added, total, stream);
    grow_codes(total + added - owned, total - owned, stream);
    unpack_ghosts(arrays.view(total), codes_.data() + (total - owned), in[kLow], got[kLow], stream);
    unpack_ghosts(arrays.view(total + got[kLow]), codes_.data() + (total + got[kLow] - owned), in[kHigh], got[kHigh],
                  stream);
    total += added;
  }
  ++stats_.exchanges;
  stats_.ghosts += total - owned;
  if (timing_) {
    wait(stream);
    stats_.seconds += std::chrono::duration<double>(clock::now() - start).count();
  }
  return total;
}

}  // namespace eddy
