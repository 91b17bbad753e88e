// ParticleGhosts: each step, copies of the particles within the contact cutoff c of this rank's block faces, edges
// and corners, from the neighbouring blocks and across periodic faces, so the contact search of every rank sees all
// partners of its own particles (solver/particle_contacts.hpp) and the result does not depend on the rank count.
//
// Three phases, axis by axis x, y, z (as the halo exchange of solver/halo_exchange.hpp sends whole planes so that
// edges and corners need no diagonal messages): on each axis that has a neighbour, the rank packs on the device the
// particles it holds, its own and the ghosts of the earlier phases, that lie within c of the lower face (x < lo + c)
// for the lower neighbour and within c of the upper face (x >= hi - c) for the upper one; so a particle near a
// corner reaches the diagonal neighbour in two or three hops. A copy that crosses a periodic face of the domain gets
// the period added to that coordinate (x + L across the face at 0, x - L across the face at L) and that shift in its
// image code; where one rank spans a periodic axis alone it is its own neighbour and its particles near one face
// become its ghosts beyond the other, with no message. Each image of a particle reaches a rank at most once, as
// long as no block is thinner than c (else the ghosts would have to come from beyond the neighbour:
// check_contact_blocks refuses it), so (id, image) is unique.
//
// Why the forces are then the same bits on every rank count: a particle's partners are found among the particles
// of its own and the neighbouring cells of a cell list aligned to the global domain, and its force is summed over
// them in the order (cell, id, image) (kernels/contact_launchers.hpp): the same partners, at the same positions
// (a ghost's coordinates are the owner's plus at most one period per axis, one addition whoever makes it) in the
// same order, on every rank count. A one-rank run takes its periodic images the same way (as ghosts, not by the
// minimum image), so one rank and N ranks agree bitwise. Candidates that do not touch add nothing, so a rank that
// holds fewer of them (its ghost shell ends at c) sums the same terms.
//
// Messages: counts first (MPI, on the host: the receiver sizes its buffer and the arrays), then the 80-byte records
// through the case's parallel.transport: host (staged through pinned host memory), device (CUDA-aware MPI on device
// pointers) or nccl (ncclSend/ncclRecv on the particle stream). Cost per step: 3 device passes over the particles
// (8 bytes each) and, per ghost, 80 bytes packed, sent and unpacked, and 2 host synchronisations per axis.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "io/case_config.hpp"
#include "kernels/backend.hpp"
#include "kernels/ghost_launchers.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"
#include "solver/particle_arrays.hpp"

namespace eddy {

class NcclTransport;

/// Throws RankCountError (exit 7, every rank alike) when contacts are on and the contact cutoff (particles.diameter)
/// is larger than the smallest block along an axis split over several ranks: ghost particles come from the
/// neighbouring block only. The message names the cutoff, the axis, the block and the rank counts.
void check_contact_blocks(const CaseConfig& config, const Decomposition& decomposition);

/// What the ghost exchange did so far (this rank).
struct GhostExchangeStats {
  std::int64_t exchanges = 0;  ///< calls of exchange()
  std::int64_t ghosts = 0;     ///< ghost copies received, summed over the calls
  double seconds = 0.0;        ///< wall time in exchange(), device work included (counted with timing on only)
};

class ParticleGhosts {
 public:
  /// Ghosts within `cutoff` cells (> 0) of this block's faces, on every axis with a neighbour (another rank, or this
  /// one across a periodic face). Throws InputError (CollectiveInputError) when `transport` is not available in this
  /// build or MPI (device), DeviceError when buffers do not fit.
  ParticleGhosts(const Decomposition& decomposition, double cutoff, HaloTransport transport);
  ~ParticleGhosts();
  ParticleGhosts(const ParticleGhosts&) = delete;
  ParticleGhosts& operator=(const ParticleGhosts&) = delete;

  /// The axes that receive ghosts.
  const std::array<bool, 3>& axes() const { return axes_; }
  bool active() const { return axes_[0] || axes_[1] || axes_[2]; }

  /// Puts this step's ghost copies into `arrays` behind its first `owned` entries (this rank's particles, all inside
  /// the block), growing the arrays when needed (the owned entries kept), and returns owned + ghosts. Collective
  /// over the decomposition's ranks. Device work is queued on `stream`; the call waits for it twice per axis.
  /// Throws MpiError, DeviceError.
  std::int64_t exchange(ParticleArrays& arrays, std::int64_t owned, const backend::Stream* stream = nullptr);
  /// The image codes of the last exchange's ghosts, behind `owned` particles.
  GhostImages images(std::int64_t owned) const { return GhostImages{owned, codes_.data()}; }

  /// With timing on, exchange() waits for the device before and after itself and adds its wall time to stats().
  void set_timing(bool on) { timing_ = on; }
  const GhostExchangeStats& stats() const { return stats_; }

 private:
  struct Buffers {
    DeviceBuffer<GhostRecord> device;
    PinnedBuffer<GhostRecord> host;
    std::int64_t capacity = 0;
  };
  void grow(Buffers& b, std::int64_t n, const backend::Stream* stream);
  void grow_codes(std::int64_t n, std::int64_t keep, const backend::Stream* stream);
  void exchange_counts(int axis, const std::array<std::int64_t, 2>& send, std::array<std::int64_t, 2>& recv);
  void exchange_records(int axis, const std::array<std::int64_t, 2>& send, const std::array<std::int64_t, 2>& recv,
                        const backend::Stream* stream);

  Decomposition decomposition_;
  HaloTransport transport_;
  std::array<bool, 3> axes_{};
  std::array<bool, 3> self_{};  ///< the axis's neighbour on both sides is this rank (one rank, periodic)
  std::array<GhostFaces, 3> faces_{};
  Buffers send_[2], recv_[2];
  DeviceBuffer<std::uint8_t> codes_;
  std::int64_t code_capacity_ = 0;
  DeviceBuffer<unsigned long long> counters_;
  std::unique_ptr<NcclTransport> nccl_;
  bool timing_ = false;
  GhostExchangeStats stats_;
};

}  // namespace eddy
