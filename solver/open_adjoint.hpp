// The open faces in the reverse sweep (solver/adjoint.hpp): the plan of kernels/open_adjoint.hpp's pass for one
// block, built once on the host from the forward's own links (open_links), and the pass itself.
//
// The plan lists, for every slot of lambda that a link feeds (its target: slot sd of y for the linear rules, the 19
// slots of an outlet face cell x and of x + n for the outlet's moments), the terms it adds: the linear ones in the
// links' order (direction, then cell), then the outlet-moment ones. Only this block's links are listed: a linear
// target in the ghost layer (y = x - t_i on another rank or across a periodic face) is added to there and reaches
// its owner with the rest of S^T (kernels/open_adjoint.hpp, "Order"). Where a slot's linear terms come from links on
// two ranks (an outlet or outflow face that meets a solid body exactly at a rank boundary, where a link falls back to
// reading its own cell) the sums are the same up to round-off but not bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/open_adjoint.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

/// The plan's host form (the tests read it): targets ascending, terms [term_start[t], term_start[t + 1]).
struct OpenAdjointHostPlan {
  std::vector<OutletAdjointCell> outlet_cells;
  std::vector<OutletAdjointLink> outlet_links;
  std::vector<std::int64_t> targets, term_start;
  std::vector<OpenAdjointTerm> terms;
  std::vector<std::int64_t> nu_slots;
};

/// The plan of this block (block indices of `decomposition`'s shape) from the case and the block's cell flags (ghost
/// layer included). Throws std::logic_error for a convective outflow link (gradient() refuses such cases first).
OpenAdjointHostPlan open_adjoint_plan(const CaseConfig& config, const Decomposition& decomposition,
                                      const std::vector<CellFlag>& flags);

/// The plan on the device and the pass, for storage type T (arithmetic R = compute_t<T>).
template <class T>
class OpenFacesAdjoint {
  using R = compute_t<T>;

 public:
  OpenFacesAdjoint(const CaseConfig& config, const Decomposition& decomposition, const std::vector<CellFlag>& flags);

  /// The pass on `lambda` about `state` (after a step and its open-face pass), before the ghost exchange of lambda.
  void apply(const PopulationView<T>& state, PopulationLayout layout, const BlockFields<R>& lambda,
             const BlockFields<R>& force_bar, const BlockFields<R>& porosity_bar, const FlagView& flags,
             const BlockShape& shape, const WallVelocities<R>& walls, const R (&force)[3],
             const ForceFieldView<R>& field);

  /// Device bytes of the plan.
  std::size_t bytes() const { return bytes_; }

 private:
  DeviceBuffer<OutletAdjointCell> outlet_cells_;
  DeviceBuffer<OutletAdjointLink> outlet_links_;
  DeviceBuffer<std::int64_t> targets_, term_start_, nu_slots_;
  DeviceBuffer<OpenAdjointTerm> terms_;
  DeviceBuffer<R> records_;
  OpenAdjointPlan<R> plan_;
  std::size_t bytes_ = 0;
};

}  // namespace eddy
