// Open faces (velocity_inlet, pressure_outlet, outflow, free_slip) on the host: the links of this rank's block and
// their rules' constants, built once from the case (open_links), the inlet profiles and the ramp, and OpenFaces,
// which holds the links on the device and runs the pass of kernels/open_boundaries.hpp after every step.
//
// Which rule each link takes and what it reads, decided here once, by the link's global position (so every rank
// count builds the same links for the same cells):
//   velocity_inlet   velocity bounce-back with u_in at the point where the link crosses the face, x - c_i / 2;
//   pressure_outlet  non-equilibrium extrapolation: the equilibrium of the face's density (extrapolated to the ghost
//                    node) and of the velocity extrapolated from x and x + n (u(x) alone where x + n is not fluid:
//                    a solid body there), plus the non-equilibrium part of the ghost's inner neighbour x - t_i;
//   outflow          the ghost node repeats its inner neighbour x - t_i (zero gradient), or relaxes to it (convective);
//   free_slip        specular reflection: f*_i' of x - t_i, c_i' = c_i with its normal part reversed.
// Where x - t_i is not a fluid cell (a solid body, or the ghost node of a face that meets this one at an edge, which
// lost the edge by the precedence of kernels/cell_flags.hpp), the rule reads x itself: the outflow and the pressure
// outlet f*_i(x) (along the link), or through a free-slip plane its mirror image f*_m(x), c_m = c_i mirrored in that
// plane; free slip f*_opp(i)(x), the double reflection of two free-slip planes (bounce-back).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/launchers.hpp"
#include "kernels/open_boundaries.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

/// The inlet velocity of face `face` (a velocity_inlet of `config`, finalized) at the point `p` on the face (global
/// lattice coordinates, the walls of the domain at 0 and size), before the ramp, lattice units:
///   uniform    the face's velocity;
///   parabolic  U_m prod_a 4 s_a (L_a - s_a) / L_a^2 into the domain, over the tangential axes a that are not
///              periodic and have more than one cell (s_a = p_a, L_a = size[a]): plane Poiseuille with one, the duct
///              product form of Schaefer & Turek 1996 with two (U_mean = 2/3 U_m and 4/9 U_m);
///   csv        the table's velocity, linear along one coordinate column, bilinear on a grid of two, the end values
///              beyond its ends.
std::array<double, 3> inlet_velocity(const CaseConfig& config, int face, const std::array<double, 3>& p);

/// The ramp factor of an inlet at time t (steps; the populations the step t collides): sin^2(pi t / (2 T)) for
/// t < T = ramp_time, 1 after (and always for T = 0). Smooth: it and its slope start at 0 and reach 1 and 0 at T.
double inlet_ramp(double ramp_time, double t);

/// The links of this block's interior fluid cells that come from an open face's ghost node (kOpen + face in
/// `flags`, build_flags' result), in direction order then cell order (the device's order: neighbouring threads on
/// neighbouring cells), the pressure outlet's after all others, with their rules' constants.
std::vector<OpenLink> open_links(const CaseConfig& config, const Decomposition& decomposition,
                                 const std::vector<CellFlag>& flags);

/// Refuses decompositions whose blocks next to a pressure outlet are one cell thick along its normal (the rule
/// reads the next cell inwards, which must lie in the block): RankCountError, on every rank alike.
void check_open_decomposition(const CaseConfig& config, const Decomposition& decomposition);

/// Refuses (CollectiveInputError, on every rank alike) a velocity inlet, pressure outlet or outflow face with no link
/// into a fluid cell on any rank: solids cover the whole face. `links`: this block's open_links.
void check_open_faces_reach_fluid(const CaseConfig& config, const Decomposition& decomposition,
                                  const std::vector<OpenLink>& links);

/// The device side of the open faces of one block: the links, the convective history, and the pass.
template <class T>
class OpenFaces {
  using R = compute_t<T>;

 public:
  OpenFaces(const CaseConfig& config, const Decomposition& decomposition, const std::vector<CellFlag>& flags);
  /// Links of this block (0: the pass does nothing here; other ranks may have some).
  std::int64_t links() const { return n_links_; }

  /// Where the fused kernel writes the moments of one pressure outlet face of the block (OutletMomentsView; null
  /// without an outlet here). Pass it to every stream_collide of the block's steps.
  const OutletMomentsView<R>& step_moments() const { return step_moments_; }

  /// The pass over `a`, held in `layout` (kernels/open_boundaries.hpp), for the populations the step `arrival`
  /// (0-based) collides: after step s, arrival = s + 1; the ramp is taken at t = arrival. `origin`: the global index
  /// of the block's cell (1, 1, 1) (RoundingKey). `moments_from_step`: the step's fused kernel wrote step_moments()
  /// (false after set_populations: the pass computes all outlet moments from the populations). `field`: the per-cell
  /// force and porosity the step applied (their velocities at the outlet, open_post_collision_moments). Queued on
  /// `stream`.
  void apply(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags, const BlockShape& shape,
             const WallVelocities<R>& walls, const R (&force)[3], const ForceFieldView<R>& field,
             const std::array<int, 3>& origin, std::int64_t arrival, const StabilityView<R>& stability,
             bool moments_from_step, const backend::Stream* stream);
  /// After a state was set whose links hold their values in slot i of x (a checkpoint, the initial state): copies
  /// them where the next step reads them and takes the convective history from them.
  void restore(const PopulationView<T>& a, PopulationLayout layout, const backend::Stream* stream);
  /// After set_populations (post-collision populations, no history): the next pass takes the zero-gradient value on
  /// convective links.
  void forget_history() { have_history_ = false; }

  /// For a checkpoint in the "swapped" layout: writes each link's value, held in slot opp(i) of its ghost node in
  /// the block array `all`, over slot i of x in `packed` (RawState::populations, [i * interior + k]); slot i of x
  /// holds x's outgoing f*_opp(i)(x), which no later step reads. With restore() the state continues bit for bit.
  void pack_link_values(const T* all, const BlockShape& shape, T* packed) const;

 private:
  BlockShape shape_;
  std::vector<OpenLinkCode> host_codes_;  // the links' device form, kept for pack_link_values (16 B a link)
  DeviceBuffer<OpenLinkCode> links_;
  DeviceBuffer<R> inlet_velocity_;   // [3 index + d]
  DeviceBuffer<OutletCell> outlet_;  // the other faces' cells first (n_outlet_apart_), then step_moments_'s face
  DeviceBuffer<R> outlet_moments_;   // 4 per record (OpenPassArguments::outlet_moments)
  OutletMomentsView<R> step_moments_;
  std::array<std::int64_t, 6> next_offset_{};
  std::int64_t n_outlet_ = 0;
  std::int64_t n_outlet_apart_ = 0;
  std::int64_t n_outlet_links_ = 0;  // the last links of the list
  DeviceBuffer<T> history_;
  std::int64_t n_links_ = 0;
  bool have_history_ = true;
  std::array<double, 6> ramp_time_{};
  std::array<double, 6> face_value_{};
  bool has_convective_ = false;
};

}  // namespace eddy
