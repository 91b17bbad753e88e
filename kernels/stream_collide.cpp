// Fused stream-collide kernel, D3Q19, in place (AA pattern, kernels/streaming.hpp), structure of arrays.
//
// One pass per time step over one population array: each fluid cell reads its 19 incoming populations (its own
// slots on even steps; its neighbours' on odd steps, with halfway bounce-back and moving walls), collides them
// (kernels/collision.hpp: TRT/BGK with Guo forcing) and writes the 19 results once, into the slots it read.
//   f_i(x + c_i, t + 1) = f_i(x, t) + Omega_i(f(x, t)) + (1 - omega/2) S_i        Krueger et al. 2017, eq. 3.9
//
// Bytes moved per fluid cell per step: 19 * sizeof(T) read + 19 * sizeof(T) written + 1 flag byte read
//   = 153 B with float storage, 305 B with double, 77 B with fp16 (neighbour flags of near-wall cells come from
//   cache); memory held per stored cell: 19 * sizeof(T) + 1 = 77 B (float), 39 B (fp16), 153 B (double); per
//   interior cell, with the ghost layer and the row padding (kernels/block.hpp), 79 / 40 / 157 B at 512^3.
// The force density is the uniform body force plus, with two-way coupled particles, the cell's deposited force
// (ForceFieldView: +3 * sizeof(R) read per cell when present) and, with a buoyant scalar, its Boussinesq force
// (+1 * sizeof(R) read). With the scalar transport the kernel also writes the velocity it computed
// (VelocityOutView: +3 * sizeof(R) written), so no separate pass over the populations is needed. Every cell also
// compares its |u| with the stability limit and, once a step has found one beyond it, stops updating
// (StabilityView, kernels/views.hpp: one 4-byte word per step, read from cache). With a pressure outlet in the block,
// the fluid cells of its face plane and the next plane inwards also write their rho and u (OutletMomentsView: 4 *
// sizeof(R) per cell of those two planes), which the open-face pass reads after the step. With LES the collision's
// rates come from each cell's own non-equilibrium flux (kernels/smagorinsky.hpp, no extra traffic), and in the sponge
// layers before open faces the molecular relaxation time grows towards the face (kernels/sponge_layers.hpp, from the
// cell's coordinates, no extra traffic); on the steps
// that accumulate turbulence statistics each cell adds its rho and u (and u_a u_b) to sums in double
// (StatisticsView: one read-modify-write of 4 or 10 doubles, 64 or 160 B per cell).
// Populations are stored as f_i - w_i (kernels/storage.hpp) and collided in compute_t<T>; fp16 stores round
// stochastically with bits drawn per cell and step (kernels/rounding_bits.hpp).
#include <cstdint>

#include "kernels/collision.hpp"
#include "kernels/launchers.hpp"
#include "kernels/odd_step_stage.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/streaming.hpp"

namespace eddy {
namespace {

/// What acts on the fluid besides the collision, a template parameter of the kernel rather than a runtime branch
/// (which cost registers and speed: docs/performance.md, "Tuning notes"):
///   none:    no force at all (Relaxation::force zero, no per-cell force, velocity not written): the Guo source
///            terms are left out of the collision (collide<false>, kernels/collision.hpp);
///   uniform: a body force, the same in every cell;
///   coupled: a per-cell force (particles, buoyancy), the velocity written out and/or the statistics
///            accumulated; the parts present are chosen at run time;
///   les:     as coupled, with local relaxation rates: the Smagorinsky model's (kernels/smagorinsky.hpp) and/or the
///            sponge layers' (kernels/sponge_layers.hpp).
enum class Source { none, uniform, coupled, les };

template <class T, bool kOdd, class Index, Source kSource>
struct StreamCollide {
  static constexpr bool kLes = kSource == Source::les;
  static constexpr bool kCoupled = kSource == Source::coupled || kLes;
  using R = compute_t<T>;
  // Register cap per thread (MaxRegisters, kernels/parallel_for.hpp), by offset width and storage type; the values
  // are measured on the H200: docs/performance.md, "Tuning notes".
  static constexpr int kMaxRegisters = sizeof(Index) == 8 ? (sizeof(T) == 2 ? 120 : sizeof(T) == 4 ? 96 : 160)
                                                          : (sizeof(T) == 2 ? 56 : sizeof(T) == 4 ? 64 : 128);
  // On GPUs the populations are loaded before the cell's own flag is tested, so a thread waits for one memory
  // round trip instead of two (flag, then populations); the cpu backend tests first (docs/performance.md, "Tuning
  // notes").
  static constexpr bool kLoadBeforeFlag = backend::is_gpu();
  // Fluid cells read and write through per-direction offsets (StepSlots, kernels/streaming.hpp); the odd step's
  // cells next to a wall use CellSlots on `a` with the neighbour flags.
  StepSlots<T, Index> slots;
  PopulationView<T> a;  // the array read
  T* out;               // the array written: a.f (in place) or another of a's shape (kernels/streaming.hpp)
  Index stride;  // a.n_cells as a kernel parameter of the offset type (CellSlots)
  FlagView flags;
  BlockShape shape;
  Relaxation<R> relax;
  WallVelocities<R> walls;
  RoundingKey key;
  ForceFieldView<R> force_field;    // particles, buoyancy (kCoupled only)
  VelocityOutView<R> velocity_out;  // kCoupled only
  StabilityView<R> stability;
  OutletMomentsView<R> outlet;  // null without a pressure outlet in the block
  Smagorinsky<R> les;           // kLes only
  SpongeLayers<R> sponge;       // kLes only
  StatisticsView statistics;    // kCoupled only

  using Population = T;  // for the odd step's staged launch (kernels/odd_step_stage.hpp)
  using SlotIndex = Index;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const { update(x, y, z, NoStage{}); }
  /// The odd step's staged launch: the x-shifted stores through the block's shared memory.
  template <class Stage>
  EDDY_HOST_DEVICE void operator()(int x, int y, int z, const Stage& stage) const {
    update(x, y, z, stage);
  }

  template <class Stage>
  EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void update(int x, int y, int z, const Stage& stage) const {
    const Index cell = Index(shape.index(x, y, z));
    const CellFlag own = flags.flag[cell];
    // Even steps touch only the cell's own slots, so every fluid cell takes the plain path; odd steps take it
    // when no neighbour is solid.
    const bool plain = !kOdd || own == kFluid;
    R f[d3q19::Q];
    if (kLoadBeforeFlag) {
      // A solid cell discards the loads (they stay in the block: a box cell's neighbours are at most one cell
      // away); a cell next to a wall gathers again below, with its bounce-backs.
      load_step(slots, cell, f, stage);
      if (is_solid(own) || stability.frozen(key.step)) return;
    } else {
      if (is_solid(own) || stability.frozen(key.step)) return;
      if (plain) load_step(slots, cell, f);
    }
    if (!plain) gather_swapped(CellSlots<T, Index>(a.f, cell, stride), flags, shape, cell, own, walls, f);
    R rho, u[3];
    if (kCoupled) {
      Relaxation<R> local = relax;
      force_field.cell_force(std::int64_t(cell), f, Stored<T>::kScale, local.force);
      if constexpr (kLes) {
        Smagorinsky<R> cell_les = les;
        if (sponge.present()) cell_les.tau0 += sponge.tau_excess_at(x, y, z);
        collide_les(f, local, cell_les, rho, u, Stored<T>::kScale);
      } else {
        collide(f, local, rho, u, Stored<T>::kScale);
      }
      if (velocity_out.present()) velocity_out.store(cell, u);
      if (statistics.present()) statistics.add(cell, rho, u);
    } else {
      collide<kSource != Source::none>(f, relax, rho, u, Stored<T>::kScale);
    }
    stability.watch(key.step, u);
    outlet.store(x, y, z, rho, u);
    RoundingBits bits(key, x, y, z, finite_moments(rho, u));
    if (plain) {
      store_step(slots, cell, f, bits, stage);
    } else {
      scatter_own(CellSlots<T, Index>(out, cell, stride), flags, shape, cell, walls, f, bits);
    }
  }
};

/// The arguments of one step, as stream_collide takes them.
template <class T>
struct StepArguments {
  using R = compute_t<T>;
  const PopulationView<T>& a;
  const FlagView& flags;
  const BlockShape& shape;
  const Box& box;
  const Relaxation<R>& relax;
  const WallVelocities<R>& walls;
  const RoundingKey& key;
  const backend::Stream* stream;
  const ForceFieldView<R>& force_field;
  const VelocityOutView<R>& velocity_out;
  const StabilityView<R>& stability;
  const OutletMomentsView<R>& outlet;
  const Smagorinsky<R>& les;
  const SpongeLayers<R>& sponge;
  const StatisticsView& statistics;
  T* out;
};

/// What acts besides the collision in a step with arguments `s`.
template <class T>
Source source_of(const StepArguments<T>& s) {
  if (s.les.on() || s.sponge.present()) return Source::les;
  if (s.force_field.present() || s.velocity_out.present() || s.statistics.present()) return Source::coupled;
  if (s.relax.force[0] != 0 || s.relax.force[1] != 0 || s.relax.force[2] != 0) return Source::uniform;
  return Source::none;
}

/// Launches the kernel of one combination of the compile-time choices.
template <class T, class Index, Source kSource, bool kOdd>
void launch(const StepArguments<T>& s) {
  const StreamCollide<T, kOdd, Index, kSource> k{step_slots<T, Index>(s.a, s.out, s.shape, kOdd),
                                                 s.a,
                                                 s.out,
                                                 Index(s.a.n_cells),
                                                 s.flags,
                                                 s.shape,
                                                 s.relax,
                                                 s.walls,
                                                 s.key,
                                                 s.force_field,
                                                 s.velocity_out,
                                                 s.stability,
                                                 s.outlet,
                                                 s.les,
                                                 s.sponge,
                                                 s.statistics};
  // The odd step stages its x-shifted stores (float and double; fp16 lost by it), where parallel_for_odd_staged can
  // (kernels/odd_step_stage.hpp).
  if constexpr (kOdd && sizeof(T) >= 4) {
    if (backend::odd_step_staging()) return parallel_for_odd_staged(s.shape, s.box, k, "stream_collide_odd", s.stream);
  }
  parallel_for_aligned(s.shape, s.box, k, kOdd ? "stream_collide_odd" : "stream_collide_even", s.stream);
}

/// The kernel for the run-time choices of a step with offsets of type Index: 4 sources x 2 kinds of step, so 16
/// kernels per storage type with the two offset widths (stream_collide).
template <class T, class Index>
void launch(const StepArguments<T>& s, Source source, bool odd) {
  switch (source) {
    case Source::les:
      return odd ? launch<T, Index, Source::les, true>(s) : launch<T, Index, Source::les, false>(s);
    case Source::coupled:
      return odd ? launch<T, Index, Source::coupled, true>(s) : launch<T, Index, Source::coupled, false>(s);
    case Source::uniform:
      return odd ? launch<T, Index, Source::uniform, true>(s) : launch<T, Index, Source::uniform, false>(s);
    case Source::none:
      return odd ? launch<T, Index, Source::none, true>(s) : launch<T, Index, Source::none, false>(s);
  }
}

}  // namespace

template <class T>
void stream_collide(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags, const BlockShape& shape,
                    const Box& box, const Relaxation<compute_t<T>>& relax, const WallVelocities<compute_t<T>>& walls,
                    const RoundingKey& key, const backend::Stream* stream, bool wide_index,
                    const ForceFieldView<compute_t<T>>& force_field, const VelocityOutView<compute_t<T>>& velocity_out,
                    const StabilityView<compute_t<T>>& stability, const OutletMomentsView<compute_t<T>>& outlet,
                    const Smagorinsky<compute_t<T>>& les, const SpongeLayers<compute_t<T>>& sponge,
                    const StatisticsView& statistics, T* out) {
  const StepArguments<T> s{a,           flags,        shape,     box,    relax, walls,  key,        stream,
                           force_field, velocity_out, stability, outlet, les,   sponge, statistics, out ? out : a.f};
  const bool odd = layout == PopulationLayout::swapped;  // odd steps start from the "swapped" layout
  // 32-bit population offsets when every offset i * n_cells + cell fits (kernels/streaming.hpp).
  if (!wide_index && std::uint64_t(d3q19::Q) * std::uint64_t(a.n_cells) <= std::uint64_t(UINT32_MAX)) {
    launch<T, std::uint32_t>(s, source_of(s), odd);
  } else {
    launch<T, std::int64_t>(s, source_of(s), odd);
  }
}

#define EDDY_INSTANTIATE(T)                                                                                         \
  template void stream_collide<T>(                                                                                  \
      const PopulationView<T>&, PopulationLayout, const FlagView&, const BlockShape&, const Box&,                   \
      const Relaxation<compute_t<T>>&, const WallVelocities<compute_t<T>>&, const RoundingKey&,                     \
      const backend::Stream*, bool, const ForceFieldView<compute_t<T>>&, const VelocityOutView<compute_t<T>>&,      \
      const StabilityView<compute_t<T>>&, const OutletMomentsView<compute_t<T>>&, const Smagorinsky<compute_t<T>>&, \
      const SpongeLayers<compute_t<T>>&, const StatisticsView&, T*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
EDDY_INSTANTIATE(half_t)
#undef EDDY_INSTANTIATE

}  // namespace eddy
