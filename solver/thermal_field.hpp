// ThermalField<R>: the temperature (or passive scalar) T of one rank's block and its coupling to the flow
// ([thermal], io/case_config.hpp). Scheme, boundary fluxes, stability and sources: kernels/scalar_transport.hpp.
//
// Data flow of one LBM step n (solver/lattice_simulation.cpp):
//   1. the fused stream-collide kernel reads T^n for the Boussinesq force F = -g beta (T - T_ref) g_hat (Guo
//      forcing) and writes the velocity u^n it computed (ForceFieldView, VelocityOutView): no extra pass over the
//      populations;
//   2. step(): u^n's ghost planes come from the neighbours (solver/field_halo.hpp); then, substeps times, T's ghost
//      planes are filled and one explicit step T -> T + dt rate(u^n, T) runs over the interior (one pass).
// Both T buffers hold one value per block cell, ghost layer included; the step writes into the other buffer and
// swaps. Every cell's update reads only its own and its face neighbours' values, so T does not depend on the rank
// count (bitwise on the cpu backend).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/scalar_transport.hpp"
#include "kernels/views.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"
#include "solver/field_halo.hpp"

namespace eddy {

/// Range and total of T on all ranks (fluid interior cells; lattice units).
struct ThermalDiagnostics {
  double min = 0.0, max = 0.0;
  double total = 0.0;                         ///< sum of T over fluid cells (NaN when any T is not finite)
  bool finite = true;                         ///< false if any T is NaN or infinite
  std::array<int, 3> first_nonfinite_cell{};  ///< 0-based global coordinates of the first one (lowest global index)
};

/// The scheme's constants of thermal (lattice units): the six faces' walls, kappa, dt = 1 / substeps, the buoyancy
/// -g beta g_hat per unit of T - T_ref (zero and `buoyant` false when Ra = 0: a passive scalar).
template <class R>
struct ThermalParameters {
  ScalarWalls<R> walls{};
  R kappa = R(0), dt = R(1);
  int substeps = 1;
  R buoyancy[3] = {R(0), R(0), R(0)};
  R reference = R(0);
  bool buoyant = false;
  explicit ThermalParameters(const ThermalConfig& th);
  /// `force` with the buoyancy of the cell field `t` added (unchanged when not buoyant).
  ForceFieldView<R> with_buoyancy(ForceFieldView<R> force, const R* t) const;
};

/// The initial T of every cell of a block of `shape` (ghost layer included, BlockShape::index order):
/// thermal.initial_temperature, plus on interior cells the perturbation hashed from the global cell index (so
/// independent of the decomposition).
template <class R>
std::vector<R> initial_temperature(const CaseConfig& config, const Decomposition& decomposition,
                                   const BlockShape& shape);

/// ThermalComponent::face_inflow of the block field `t` (host memory, block layout) with host `flags`. Collective.
template <class R>
std::array<double, 6> wall_heat_inflow(const R* t, const CellFlag* flags, const BlockShape& shape,
                                       const ThermalParameters<R>& p, const Decomposition& decomposition);

/// ThermalComponent::diagnose of T on this rank's interior cells (MacroscopicFields order), counting the fluid
/// cells only: solid cells (host `flags` of the block of `shape`, ghost layer included) keep their initial T, which
/// is no heat of the fluid. Collective.
ThermalDiagnostics temperature_diagnostics(const std::vector<double>& t, const CellFlag* flags, const BlockShape& shape,
                                           const Decomposition& decomposition);

/// Device bytes the thermal fields of a block of `shape` take: two T buffers and the three velocity components,
/// one R each per block cell.
std::size_t thermal_device_bytes(const CaseConfig& config, std::int64_t block_cells);

/// The temperature field of a Simulation as its read-outs, guards and checkpoints reach it
/// (Simulation::thermal_field; ThermalField<R> is the one implementation). Precision-free: values in double, the
/// stored field as bytes.
class ThermalComponent {
 public:
  virtual ~ThermalComponent() = default;
  /// T on this rank's interior cells, MacroscopicFields order (x fastest), lattice units.
  virtual std::vector<double> interior() const = 0;
  /// Replaces T on the interior cells (layout as interior()); used by tests to start from any field.
  virtual void set_interior(const std::vector<double>& t) = 0;
  /// T on the interior cells exactly as stored (the arithmetic type), as bytes, and its replacement (of the size
  /// the caller checked); for checkpoints.
  virtual std::vector<unsigned char> interior_bytes() const = 0;
  virtual void set_interior_bytes(const std::vector<unsigned char>& bytes) = 0;
  /// Heat entering the fluid through each face of the domain per step, summed over the face (lattice units:
  /// T cells^3 / step in 3D with dx = 1), by the same wall flux as the scheme; 0 for faces that are not fixed-value
  /// walls. Collective (summed over ranks).
  virtual std::array<double, 6> face_inflow() const = 0;
  /// Range, total and finiteness of T on all ranks. Collective.
  virtual ThermalDiagnostics diagnose() const = 0;
};

template <class R>
class ThermalField final : public ThermalComponent {
 public:
  /// Allocates the fields and sets T to thermal.initial_temperature plus the perturbation (hashed from the global
  /// cell index, so independent of the decomposition). `flags`: the block's cell flags (kept on the host for the
  /// wall heat flux).
  ThermalField(const CaseConfig& config, const Decomposition& decomposition, const BlockShape& shape,
               const std::vector<CellFlag>& flags);

  /// `force` with this field's buoyancy added (unchanged when Ra = 0: a passive scalar).
  ForceFieldView<R> with_buoyancy(ForceFieldView<R> force) const;
  /// Where the kernel writes u^n.
  VelocityOutView<R> velocity_out() const { return VelocityOutView<R>{{u_[0].data(), u_[1].data(), u_[2].data()}}; }

  /// The current T (block layout, ghost layer included): the field the next step advances. The step writes the
  /// other buffer and makes it the current one.
  R* current_field() const { return t_[current_].data(); }
  /// Advances T by one LBM step with the velocity the last kernel step wrote (collective: ghost exchanges).
  void step(const FlagView& flags, const backend::Stream* stream);

  std::vector<double> interior() const override;
  void set_interior(const std::vector<double>& t) override;
  std::vector<unsigned char> interior_bytes() const override;
  void set_interior_bytes(const std::vector<unsigned char>& bytes) override;
  /// T on the interior cells exactly as stored, and its replacement.
  std::vector<R> interior_raw() const;
  void set_interior_raw(const std::vector<R>& t);
  std::array<double, 6> face_inflow() const override;
  ThermalDiagnostics diagnose() const override;

 private:
  const R* current() const { return t_[current_].data(); }
  template <class Fn>
  void for_each_interior(Fn fn) const;

  Decomposition decomposition_;
  BlockShape shape_;
  std::vector<CellFlag> flags_;  // host copy: the flags never change
  ThermalParameters<R> p_;
  DeviceBuffer<R> t_[2];
  int current_ = 0;
  DeviceBuffer<R> u_[3];
  mutable FieldHalo<R> halo_;
};

/// Average Nusselt number of face `face` from its total inflow (ThermalField::face_inflow): the mean wall heat flux
/// over the conductive flux kappa dT / L of the same temperature difference,
///   Nu = (inflow / area) L / (kappa dT),   area = the face's cells.
/// Positive where heat enters (the hot wall), negative where it leaves; infinite or NaN when dT = 0 (a case without a
/// temperature difference has no Nusselt number). (de Vahl Davis 1983, Int. J. Numer. Methods Fluids 3, 249, eq. 8 and
/// Table IV: the average over the hot wall.)
double nusselt_number(const CaseConfig& config, int face, double inflow);

/// Cells on face `face` of the domain (its area in cells).
double face_cells(const CaseConfig& config, int face);

}  // namespace eddy
