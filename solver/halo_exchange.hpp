// Halo exchange between the blocks of a Cartesian decomposition, for the in-place AA scheme
// (kernels/streaming.hpp). Per face, 5 populations cross: those with c_i pointing out of the block at the ghost
// plane. Two directions:
//   into_ghosts   (before an odd step): the neighbour's boundary plane -> our ghost plane; these slots hold the
//                 neighbour's post-collision populations that stream into our block (the ghost nodes of open
//                 faces, on the edges where an open face meets the rank boundary, are skipped: the open-face pass
//                 fills them, and a fill repeated after it must not undo that);
//   out_of_ghosts (after an odd step):  our ghost plane -> the neighbour's boundary plane; the odd step wrote there
//                 the populations that left our block, and they arrive in the neighbour's cells (slots whose
//                 upstream cell is solid are skipped: a bounced population lives there).
// Into the ghosts goes axis by axis x, y, z, out of them z, y, x; each plane spans the whole block (ghost layer
// included), so edges and corners travel without diagonal messages. A periodic axis that one rank spans alone is
// copied in place (copy_periodic_ghosts); ghost planes on walls are left alone (their cells are solid).
//
// Out of core (solver/out_of_core_simulation.hpp) the halo is deeper and lives on the host: exchange_z_halo below
// moves all 19 populations of the h z-planes beyond each z end of a host block once per sweep.
//
// Transports (case key parallel.transport):
//   host   - pack on the device, copy to pinned host buffers, MPI_Isend/Irecv, copy back, unpack (any MPI);
//   device - MPI gets device pointers directly (CUDA-aware / GPU-aware MPI);
//   nccl   - ncclSend/ncclRecv on the exchange stream (GPU builds with NCCL), no host synchronisation.
#pragma once

#include <memory>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/halo_pack.hpp"
#include "kernels/views.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

class NcclTransport;

enum class HaloDirection { into_ghosts, out_of_ghosts };

template <class T>
class HaloExchange {
 public:
  /// Allocates message buffers for `shape` (this rank's block). Throws InputError when `transport` is not
  /// available in this build, DeviceError when buffers do not fit.
  HaloExchange(const Decomposition& decomposition, const BlockShape& shape, HaloTransport transport);
  ~HaloExchange();

  /// True when any axis has ghost planes to fill.
  bool active() const;
  /// Moves the crossing populations of `f` (flags: the block's cell flags) in `direction`. Device work is queued on
  /// `stream`; with the host and device transports the call returns when the messages have arrived (unpacking may
  /// still be queued), with nccl it only queues.
  void exchange(const PopulationView<T>& f, const FlagView& flags, HaloDirection direction,
                const backend::Stream& stream);

 private:
  struct AxisBuffers {
    DeviceBuffer<T> send[2], recv[2];  // [0] = lower side, [1] = upper side
    T* host_send[2] = {nullptr, nullptr};
    T* host_recv[2] = {nullptr, nullptr};
  };
  void exchange_axis(int axis, const PopulationView<T>& f, const FlagView& flags, HaloDirection direction,
                     const backend::Stream& stream);

  Decomposition decomposition_;
  BlockShape shape_;
  HaloTransport transport_;
  AxisBuffers buffers_[3];
  std::unique_ptr<NcclTransport> nccl_;
};

/// The deep z-halo of an out-of-core block: copies of the `h` z-planes beyond each z end of the host state `f` (the
/// populations of every block cell, [i * shape.n_cells() + plane * plane_cells + ...], plane_cells = cells of one
/// z-plane, ghost rows included) into `below` (host planes 1 - h .. 0) and `above` (nz + 1 .. nz + h), each
/// [i * h * plane_cells + ...]. Across a periodic z face that this rank spans alone the planes are its own far end
/// (host plane p is its image ((p - 1) mod nz) + 1, however often the halo wraps); otherwise they come from the
/// z-neighbour ranks over MPI (collective along z). A wall side has no neighbour: its buffer is neither read nor
/// written (it may be null). `components`: the fields stored one after the other like the populations (19), or 1
/// for a cell field such as the temperature. Throws MpiError.
template <class T>
void exchange_z_halo(const Decomposition& decomposition, const BlockShape& shape, std::int64_t plane_cells, int h,
                     const T* f, T* below, T* above, int components = d3q19::Q);

}  // namespace eddy
