// CaseConfig: the plain, validated description of one eddy run, read from a TOML case file.
//
// io/ parses and validates (toml++ lives only in io/case_config.cpp and io/case/, one file per group of sections);
// solver/ consumes the plain struct.
// All quantities are in lattice units (dx = dt = 1, rho0 = 1) unless the name ends in _si.
// Every key, its meaning, units and default is listed in cases/README.md.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/vtk_compression.hpp"
#include "solver/errors.hpp"

namespace eddy {

enum class Collision { bgk, trt };
/// Subgrid-scale model of a large-eddy simulation ([numerics] les): none, or Smagorinsky's eddy viscosity from each
/// cell's non-equilibrium momentum flux (kernels/smagorinsky.hpp).
enum class LesModel { none, smagorinsky };
/// Storage precision of the populations ([numerics] storage): float, double, or fp16 (16-bit storage of the
/// scaled f_i - w_i, arithmetic in float).
enum class Precision { float32, float64, float16 };

/// How the populations are held ([numerics] out_of_core; solver/out_of_core.hpp).
enum class OutOfCoreMode {
  off,        ///< false: the block lives on the device (in-core)
  on,         ///< true: populations in pinned host memory, streamed through the device slab by slab
  automatic,  ///< "auto" (default): in-core when the block fits the device (and device_memory_limit, when given),
              ///< out-of-core otherwise, on GPU builds only
};
/// [numerics] out-of-core keys: populations in pinned host memory, advanced on the device slab by slab along z,
/// time_block steps per visit.
/// Each slab is carried to the device with a ghost region time_block + 1 z-planes deep, advanced time_block steps and
/// copied back; the device holds two slab buffers within device_memory_limit. Results are bitwise identical to an
/// in-core run. Fluid only: mode = on refuses [particles] and [thermal], and with
/// MPI the domain is split along z only (parallel.ranks = [1, 1, pz]; solver/decomposition.hpp).
/// Ranges (checked by finalize_case, 0 = chosen at run time): device_memory_limit 1..2^60 bytes, time_block 1..64,
/// slabs 1..nz (and at most the z-planes of the smallest block when parallel.ranks fixes pz). time_block, slabs and
/// device_memory_limit are refused with mode = off.
struct OutOfCoreConfig {
  OutOfCoreMode mode = OutOfCoreMode::automatic;  ///< out_of_core = false | true | "auto"
  std::int64_t device_memory_limit = 0;           ///< bytes the device buffers may take; 0 = the free device memory
  int time_block = 0;                             ///< k, steps per slab visit; 0 = chosen from the budget
  int slabs = 0;                                  ///< z-slabs per block; 0 = chosen from the budget
};

/// Boundary condition on one face of the domain. The open types (velocity_inlet and after) are applied by the
/// sparse pass over the face cells (kernels/open_boundaries.hpp, docs/boundaries.md; their schemes and sources in
/// cases/README.md, "Open boundaries").
enum class FaceKind { periodic, wall, moving_wall, velocity_inlet, pressure_outlet, outflow, free_slip };

/// True for velocity_inlet, pressure_outlet, outflow and free_slip.
inline bool is_open_face(FaceKind kind) { return kind >= FaceKind::velocity_inlet; }

/// The case file's name of a face type ("periodic" for a periodic face).
inline const char* face_kind_name(FaceKind kind) {
  switch (kind) {
    case FaceKind::periodic:
      return "periodic";
    case FaceKind::wall:
      return "wall";
    case FaceKind::moving_wall:
      return "moving_wall";
    case FaceKind::velocity_inlet:
      return "velocity_inlet";
    case FaceKind::pressure_outlet:
      return "pressure_outlet";
    case FaceKind::outflow:
      return "outflow";
    case FaceKind::free_slip:
      return "free_slip";
  }
  return "?";
}

/// Face order used everywhere: x_min, x_max, y_min, y_max, z_min, z_max (index = 2 * axis + side).
inline constexpr std::array<const char*, 6> kFaceNames = {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"};

/// Velocity profile of a velocity_inlet ([boundary.<face>] profile).
enum class InletProfile {
  uniform,    ///< the same velocity everywhere on the face
  parabolic,  ///< plane Poiseuille (one walled tangential axis) or the duct product form (two), normal to the face
  csv,        ///< interpolated from the points of a CSV file (InletTable)
};

/// The points of a profile = "csv" inlet (io/case/inlet_profile.cpp reads them): a line (one coordinate column)
/// or a tensor grid (two) of positions across the face, each with a velocity. After finalize_case positions are in
/// cells from the domain's lower corner and velocities in lattice units.
struct InletTable {
  std::string file;                             ///< the CSV file, as resolved (relative to the case file)
  int axes = 0;                                 ///< coordinate columns: 1 or 2
  std::array<int, 2> axis = {0, 0};             ///< their global axes (both tangential to the face)
  std::array<std::vector<double>, 2> coord;     ///< grid positions per coordinate column, strictly increasing
  std::vector<std::array<double, 3>> velocity;  ///< [k0 + n0 * k1]: the velocity vector (x, y, z) at each point
};

/// How an outflow face extrapolates the populations entering the domain ([boundary.<face>] scheme).
enum class OutflowScheme {
  zero_gradient,  ///< the ghost node repeats its inner neighbour
  convective,     ///< d f / d t + U_c d f / d n = 0, implicit upwind (Yang 2013; Orlanski 1976)
};

struct FaceBoundary {
  FaceKind kind = FaceKind::wall;
  /// Wall velocity in lattice units (only for moving_wall; must be tangential to the face); for a uniform
  /// velocity_inlet, the inlet velocity (its component into the domain > 0).
  std::array<double, 3> velocity = {0.0, 0.0, 0.0};

  // velocity_inlet
  InletProfile profile = InletProfile::uniform;
  /// profile = "parabolic": the peak speed U_m into the domain (lattice units; from mean_velocity the reader
  /// stores the mean and mean_speed = true until finalize_case derives U_m: U_mean = 2/3 U_m across one walled
  /// axis, 4/9 U_m across two). A uniform inlet given by mean_velocity or max_velocity keeps its speed here until
  /// finalize_case turns it into `velocity`.
  double speed = 0.0;
  bool mean_speed = false;
  InletTable table;        ///< profile = "csv"
  double ramp_time = 0.0;  ///< steps of the sin^2 ramp from rest (0: the full velocity from the first step)

  // pressure_outlet: the density held at the face (lattice; rho0 = 1); `pressure` (NaN = not given) is turned into
  // it by finalize_case: rho = 1 + p / c_s^2 (lattice), 1 + 3 p dt^2 / (rho_si dx^2) (Pa under [units]).
  double density = 1.0;
  double pressure = std::numeric_limits<double>::quiet_NaN();
  /// The pressure as the case gave it (Pa under [units], else lattice units), kept for the messages of the density
  /// it became; NaN where the case gave `density`.
  double pressure_given = std::numeric_limits<double>::quiet_NaN();

  // outflow
  OutflowScheme scheme = OutflowScheme::zero_gradient;
  /// U_c of the convective scheme (lattice units); 0 = physics.velocity U (filled by finalize_case).
  double convection_velocity = 0.0;

  // velocity_inlet, pressure_outlet, outflow: a sponge layer in front of the face (kernels/sponge_layers.hpp), where
  // the relaxation time rises from physics.tau to sponge_tau at the face.
  double sponge = 0.0;  ///< the layer's thickness L (cells; m while in_si); 0: no layer
  /// tau_f, the relaxation time at the face (lattice units), above physics.tau: finalize_case sets kDefaultSpongeTau
  /// where the case gives a layer without it; NaN: not given.
  double sponge_tau = std::numeric_limits<double>::quiet_NaN();

  /// True while the values above are SI (read under [units]: m/s, s, kg/m^3, Pa, m); finalize_case converts them to
  /// lattice units with units.dx and dt and clears it.
  bool in_si = false;
};

/// How far a pressure outlet's density may lie from rho0 = 1 (lattice units): the domain starts at rho0, and a larger
/// step at the face sends a pressure wave of that size through it (lattice Boltzmann is weakly compressible: density
/// changes of order Ma^2, 0.09 at the Mach limit 0.3).
inline constexpr double kMaxOutletDensityChange = 0.1;

/// The relaxation time at the face of a sponge layer whose case gives none (boundary.<face>.sponge_tau; nu =
/// c_s^2 (tau - 1/2) = 1/30 in lattice units, a relaxation time at which the open faces' rules are stable). A case
/// whose physics.tau is not below it must give sponge_tau.
inline constexpr double kDefaultSpongeTau = 0.6;
/// The largest boundary.<face>.sponge_tau accepted.
inline constexpr double kMaxSpongeTau = 2.0;

/// Initial macroscopic field; populations start at equilibrium f_eq(rho, u).
enum class InitialKind { rest, taylor_green_2d, taylor_green_3d, turbulent_channel };

struct InitialCondition {
  InitialKind kind = InitialKind::rest;
  /// Velocity amplitude (lattice units) of the Taylor-Green vortex, the bulk velocity U_b of the turbulent channel;
  /// default: physics.velocity.
  double amplitude = 0.0;
  /// Turbulent channel: the bound of the perturbation's speed |u'|, as a fraction of U_b (initial.perturbation).
  double perturbation = 1.0;
};

/// How halo layers travel between MPI ranks ([parallel] transport).
enum class HaloTransport {
  host,    ///< "host": staged through pinned host buffers; works with any MPI (default)
  device,  ///< "device": device pointers passed to a CUDA-aware / GPU-aware MPI
  nccl,    ///< "nccl": NCCL send/recv (GPU builds with NCCL)
};

/// [parallel]: domain decomposition, halo exchange and GPU choice for MPI runs (transport and overlap have no effect
/// on one rank).
/// Whether the product of `ranks` matches the MPI rank count is checked at run time by the solver, not here.
struct ParallelConfig {
  /// MPI ranks per axis px, py, pz (Cartesian decomposition). 0 = automatic (MPI_Dims_create at run time; a
  /// case file gives all three or none, a struct built in code may fix some axes and leave others 0).
  /// Each nonzero entry is <= the domain size on its axis (every rank needs at least one cell per axis).
  std::array<int, 3> ranks = {0, 0, 0};
  HaloTransport transport = HaloTransport::host;  ///< halo exchange path
  bool overlap = true;                            ///< update interior cells while the halos are in flight
  int device = -1;  ///< GPU index for this rank; -1 = local rank on the node modulo the visible GPUs
};

/// [particles]: Lagrangian particles carried by the flow (solver/particle_system.hpp). Lattice units.
enum class ParticleKind { tracer, inertial };
enum class ParticleWalls { bounce, stick };
enum class PairForce { none, gravity };
/// How contact partners are found ([particles] contact_search): both give the same pairs and pair terms.
enum class ContactSearch {
  cell_list,  ///< "cell_list": a uniform cell list, cost ~ n (default)
  all_pairs,  ///< "all_pairs": every pair, cost n^2 (small counts; a reference for the cell list)
};

struct ParticleConfig {
  bool enabled = false;  ///< true when the case has a [particles] section
  ParticleKind kind = ParticleKind::tracer;
  /// Seeding: `count` particles uniformly at random in [box_min, box_max) (default: the whole domain) from `seed`,
  /// or the positions of a CSV file (`positions`, columns x,y,z in lattice units; relative to the case file).
  std::int64_t count = 0;
  std::array<double, 3> box_min = {0.0, 0.0, 0.0};
  std::array<double, 3> box_max = {0.0, 0.0, 0.0};  ///< 0, 0, 0: the domain size
  std::uint64_t seed = 1;
  std::string positions_file;
  double diameter = 1.0;                            ///< particle diameter d (cells), > 0
  double density = 1.0;                             ///< rho_p / rho_f, > 0 (inertial)
  std::array<double, 3> gravity = {0.0, 0.0, 0.0};  ///< acceleration g (lattice units, inertial)
  bool two_way = false;                             ///< drag reaction on the fluid through the Guo force (inertial)
  ParticleWalls walls = ParticleWalls::bounce;
  /// Soft-sphere contacts (cell list or all pairs): F = k delta n - gamma v_n for overlap delta > 0.
  bool contacts = false;
  double contact_stiffness = 0.0;                           ///< k (lattice force per cell of overlap)
  double contact_damping = 0.0;                             ///< gamma
  ContactSearch contact_search = ContactSearch::cell_list;  ///< how partners are found (only with contacts)
  /// Long-range pair force over all pairs (softened gravity, small counts): F = G m_i m_j r / (|r|^2 + eps^2)^(3/2).
  PairForce pair_force = PairForce::none;
  double gravity_constant = 0.0;  ///< G
  double softening = 1.0;         ///< eps (cells)
};

/// Temperature condition of a wall face: [boundary.<face>] temperature = T fixes the value at the wall (halfway
/// between the last fluid node and the solid node, as the bounce-back wall); without it the wall is adiabatic
/// (zero heat flux). Periodic faces carry the scalar across.
enum class ThermalWall { adiabatic, fixed };

/// [thermal]: a temperature (or passive scalar) T, advected by the LBM velocity and diffused with kappa = nu / Pr
/// (kernels/scalar_transport.hpp), with Boussinesq buoyancy fed into the flow through the Guo force:
///   F = -rho0 g beta (T - T_ref) g_hat   (rho0 = 1; g beta = buoyancy, g_hat = gravity_direction).
/// Temperatures are in the case's own units; Ra is built on temperature_difference dT.
/// finalize_case fills the defaults and derived values and may run again on its own result (it is idempotent):
/// a default is filled only where the field still holds its "derive" value (NaN, or 0 for temperature_difference),
/// so a value set in code is kept, and a filled default reads as given on a second call with the same result.
struct ThermalConfig {
  bool enabled = false;   ///< true when the case has a [thermal] section
  double prandtl = 0.0;   ///< Pr = nu / kappa, > 0 (required)
  double rayleigh = 0.0;  ///< Ra = g beta dT L^3 / (nu kappa), >= 0; 0 = passive scalar (no buoyancy)
  /// g_hat, the direction of gravity ([thermal] gravity, default [0, -1, 0]); finalize_case normalises it (a zero or
  /// non-finite vector is an error).
  std::array<double, 3> gravity_direction = {0.0, -1.0, 0.0};
  /// T_ref of the buoyancy force; NaN (the default) = derive: midway between the coldest and hottest fixed wall, 0
  /// without such walls. Finite once finalized.
  double reference_temperature = std::numeric_limits<double>::quiet_NaN();
  /// dT of Ra, > 0 when given; 0 (the default) = derive: hottest minus coldest fixed wall (0 without two different
  /// walls, an error when Ra > 0).
  double temperature_difference = 0.0;
  /// Uniform initial T; NaN (the default) = derive: reference_temperature. Finite once finalized.
  double initial_temperature = std::numeric_limits<double>::quiet_NaN();
  /// Amplitude of a deterministic pseudo-random initial perturbation of T (hashed from the global cell index, so
  /// independent of the decomposition), >= 0; breaks the symmetry of Rayleigh-Benard convection.
  double perturbation = 0.0;
  /// Per face (kFaceNames order): fixed where [boundary.<face>] gives temperature; periodic faces: adiabatic, unused.
  std::array<ThermalWall, 6> walls{};
  std::array<double, 6> wall_temperature{};  ///< T of fixed walls (finite)

  // Derived by finalize_case (0, 0, 1 when the section is absent):
  double diffusivity = 0.0;  ///< kappa = nu / Pr (lattice units)
  double buoyancy = 0.0;     ///< g beta = Ra nu kappa / (dT L^3) (lattice force per unit temperature); 0 when Ra = 0
  /// Explicit scalar sub-steps n per LBM step (kernels/scalar_transport.hpp): the smallest n >= 1 with
  /// kappa / n <= 1/8 when a face is a fixed-temperature wall (1/6 otherwise) and n >= |U|^2 / kappa; at most 64.
  int substeps = 1;
  /// Free-fall velocity U_ff = sqrt(g beta dT L) (lattice units), the speed buoyancy drives the flow at: included
  /// in the Mach check and the sub-step count (0 without buoyancy).
  double free_fall_velocity = 0.0;
};

/// [units]: the case given in SI units. eddy derives the lattice spacing dx, the time step dt and the lattice
/// viscosity from them (finalize_case), and writes SI quantities to the VTK output:
///   dx = length / L (L = physics.length cells span the SI length; or dx given), U_lat = lattice_velocity,
///   dt = U_lat dx / velocity,  nu_lat = viscosity dt / dx^2,  tau = 3 nu_lat + 1/2.
/// Re = velocity length / viscosity is the same in both unit systems.
struct UnitsConfig {
  bool enabled = false;           ///< true when the case has a [units] section
  double length = 0.0;            ///< characteristic length L in m (or 0 when dx is given)
  double dx = 0.0;                ///< cell size in m (derived from length when not given)
  double velocity = 0.0;          ///< characteristic velocity U in m/s
  double viscosity = 0.0;         ///< kinematic viscosity nu in m^2/s
  double density = 1.0;           ///< fluid density rho in kg/m^3 (the lattice density 1 stands for it)
  double lattice_velocity = 0.1;  ///< U in lattice units (sets dt and Ma)
  double dt = 0.0;                ///< time step in s (derived)
};

/// [[solid]]: a solid body inside the domain: an analytic shape (solver/solid_shapes.hpp), a surface mesh read from a
/// file and voxelised on the device (solver/mesh_voxeliser.hpp), or a voxel file. Cells whose centre, at (i + 0.5,
/// j + 0.5, k + 0.5) in global lattice coordinates, lies inside (shapes: or on) the body are resting half-way
/// bounce-back walls (kWall, kernels/cell_flags.hpp). Bodies are not repeated across periodic faces: the part of a
/// body outside the domain covers nothing.
enum class SolidShape { sphere, cylinder, box, mesh, voxels };

/// What a mesh solid does with rays that cross it an odd number of times (holes, missing faces).
enum class MeshRepair {
  none,  ///< refuse the mesh (exit status 2), naming the number of such rays
  fill   ///< such a column takes, cell by cell, the majority of its closed neighbour columns (kernels/mesh_voxels.hpp)
};

struct TriangleMesh;  // io/solid_files.hpp
struct VoxelGrid;     // io/solid_files.hpp

/// How the fluid meets a [[solid]]'s surface ([[solid]] wall; cases/README.md, "Solid bodies"):
///   interpolated: linear interpolated bounce-back (Bouzidi, Firdaouss & Lallemand 2001) with the wall at its true
///                 distance q along each cut link from the shape or a mesh's triangles (second order for any wall
///                 position; q = 1/2 is half-way); not for voxels;
///   halfway:      half-way bounce-back (the wall half-way along every cut link: a staircase, first order).
enum class SolidWall { interpolated, halfway };

struct SolidConfig {
  std::string name;  ///< unique, non-empty (messages and warnings)
  SolidShape shape = SolidShape::sphere;
  std::array<double, 3> center = {0.0, 0.0, 0.0};  ///< sphere: centre (cells)
  std::array<double, 3> start = {0.0, 0.0, 0.0};   ///< cylinder: one end of the axis (cells)
  std::array<double, 3> end = {0.0, 0.0, 0.0};     ///< cylinder: the other end of the axis (cells), != start
  std::array<double, 3> min = {0.0, 0.0, 0.0};     ///< box: lower corner (cells)
  std::array<double, 3> max = {0.0, 0.0, 0.0};     ///< box: upper corner (cells), > min on every axis
  double radius = 0.0;                             ///< sphere, cylinder: radius (cells), > 0
  /// box: rotation about the box's centre; mesh: rotation of the file's coordinates about their origin (after
  /// scale, before translate). Degrees about the fixed x, then y, then z axis: R = Rz Ry Rx (rotation_matrix,
  /// solver/solid_shapes.hpp).
  std::array<double, 3> rotate = {0.0, 0.0, 0.0};
  /// mesh or voxels: the file (a relative path in the case is taken from the case file's directory).
  std::string file;
  /// mesh: x_cells = R (scale * x_file) + translate, componentwise scale; as read, scale turns file units into the
  /// case's length units (cells, or m under [units]); finalize divides scale and translate by units.dx.
  std::array<double, 3> scale = {1.0, 1.0, 1.0};
  std::array<double, 3> translate = {0.0, 0.0, 0.0};
  MeshRepair repair = MeshRepair::none;  ///< mesh: odd rays refused or filled
  /// voxels: a raw file's voxels per axis (x fastest, one uint8 each); 0 for a .vti (its extent says).
  std::array<std::int64_t, 3> dimensions = {0, 0, 0};
  /// voxels: voxel (i, j, k) covers global cell offset + (i, j, k) (whole cells after finalize).
  std::array<double, 3> offset = {0.0, 0.0, 0.0};
  std::string array;  ///< voxels (.vti): the mask array's name ("": the image's only array)
  /// The wall rule of its surface (in core only when interpolated). The reader's default is interpolated, halfway
  /// for voxels, which refuse interpolated (their surface lies on the faces between cells: q = 1/2 on every link).
  SolidWall wall = SolidWall::interpolated;
  /// The force and torque on it (momentum exchange, solver/solid_forces.hpp) and its coefficients, sampled every
  /// forces.every steps into <output>/<case>_forces.csv, on the progress line and in the run's closing summary.
  bool forces = false;
  // The references of the coefficients C_D = 2 F.drag / (rho0 U^2 A), C_L = 2 F.lift / (rho0 U^2 A) and of the
  // Strouhal number St = f L / U (only with forces = true; solver/solid_reference.hpp has the defaults). Lattice
  // units once finalized (cells^2, lattice velocity, cells); 0 = derive, filled by finalize_case.
  double reference_area = 0.0;      ///< A; default: the projection of the shape (inside the domain) normal to drag
  double reference_velocity = 0.0;  ///< U; default: physics.velocity (units.velocity under [units])
  double reference_length = 0.0;    ///< L of St; default: the diameter (sphere, cylinder), the box's extent along lift
  /// Unit vectors of the drag and lift components; {0, 0, 0} = derive: drag along the body force (+x without one),
  /// lift along +y made perpendicular to drag (+x when drag is within 45 degrees of y). Given: normalised, lift
  /// perpendicular to drag.
  std::array<double, 3> drag_direction = {0.0, 0.0, 0.0};
  std::array<double, 3> lift_direction = {0.0, 0.0, 0.0};
  /// True while the lengths are in metres (read under [units]); finalize_case divides them by units.dx (areas by
  /// dx^2, reference_velocity by dx / dt) and clears it, so after finalize every length is in lattice cells.
  bool in_metres = false;
  /// mesh: the triangles in global lattice coordinates (cells), transformed; voxels: the mask. Filled by
  /// load_solid_files (io/solid_files.hpp) after finalize; null until then.
  std::shared_ptr<const TriangleMesh> surface;
  std::shared_ptr<const VoxelGrid> voxel_grid;
};

/// [forces]: when the forces on the solids with forces = true are sampled, and which samples the closing summary
/// analyses (solver/force_statistics.hpp). Only with at least one such solid.
struct ForcesConfig {
  bool present = false;  ///< the case has a [forces] section
  /// Steps between samples (>= 1); 0 = derive: min(run.report_every, max(1, round(L / (10 U)))) over the solids
  /// with forces (L, U their reference length and velocity): about 50 samples per vortex-shedding period at
  /// St = 0.2, whose period is L / (St U).
  std::int64_t every = 0;
  /// The summary's statistics start at this time (the CSV's time column: s under [units], steps otherwise); NaN =
  /// the second half of the samples.
  double statistics_from = std::numeric_limits<double>::quiet_NaN();
};

/// One [[output.probe]]: points whose fields are interpolated (trilinear from the node centres) and written to
/// <output>/<case>_probe_<name>.csv every `every` steps (solver/probes.hpp).
struct ProbeConfig {
  std::string name;  ///< unique among the probes; letters, digits, '_', '-', '.' (it is part of a file name)
  /// The points in global lattice coordinates (cells: the domain spans [0, n] per axis, node i at i + 0.5);
  /// metres in the file under [units], divided by units.dx when the case is finalized.
  std::vector<std::array<double, 3>> points;
  /// The points as the file gave them (m under [units], cells otherwise), for messages and the CSV's comments.
  std::vector<std::array<double, 3>> points_as_given;
  std::int64_t every = 1;           ///< steps between samples (>= 1)
  std::vector<std::string> fields;  ///< names from kOutputFields whose source is moments or thermal, in list order
};

/// [output] region and stride: the nodes of the volume snapshots. Node i of an axis sits at i + 0.5 cells (the cell
/// centres); the region keeps the nodes inside [min, max] (cells, or m under [units]; the whole grid without the key)
/// and the stride every n-th of them from the first. Applies to the volume .vti/.pvti snapshots, not to slices.
struct OutputRegion {
  bool given = false;                          ///< [output] region present
  std::array<double, 3> min_as_given{};        ///< region.min as written (m under [units], cells otherwise)
  std::array<double, 3> max_as_given{};        ///< region.max as written
  std::array<int, 3> first = {0, 0, 0};        ///< first node kept per axis (after finalize)
  std::array<int, 3> last = {-1, -1, -1};      ///< last node inside the region per axis (after finalize)
  std::array<int, 3> stride = {1, 1, 1};       ///< [output] stride per axis (>= 1; one integer sets all three)
};

/// One [[output.slice]]: the layer of nodes normal to an axis through the cell that holds `position`, written as a
/// 2D .vti (or pieces and a .pvti) series <case>_slice_<name>_<step> listed in <case>_slice_<name>.pvd, with the
/// fields of the volume snapshots at full resolution.
struct SliceConfig {
  std::string name;               ///< unique among the slices (part of the file names); default "<axis><index>"
  int axis = 2;                   ///< normal: 0 = x, 1 = y, 2 = z
  double position_as_given = 0;   ///< along the normal, m under [units], cells otherwise; in [0, n]
  int index = 0;                  ///< the node layer: min(floor(position in cells), n - 1) (after finalize)
  std::int64_t every = -1;        ///< steps between slices (0 = the final state only); -1 = output.every
  bool named = false;             ///< the file gave `name` (else it is derived from the layer after finalize)
};

/// [statistics]: running time averages of the flow, accumulated on the device in double by the fused kernel on the
/// steps that sample (solver/flow_statistics.hpp) and written as extra point arrays of every snapshot and, with
/// `average`, as profiles averaged over the homogeneous axes (<output>/<case>_statistics.csv). Sample n is the state
/// at time step t_n = start + n every (the moments the step from t_n collides), for every t_n < run.steps.
struct StatisticsConfig {
  bool enabled = false;  ///< true when the case has a [statistics] section
  /// The first sampled step (>= 0, < run.steps); from start_time when that is given (finalize_case).
  std::int64_t start = 0;
  /// [statistics] start_time as given: s under [units], steps otherwise (like forces.statistics_from); NaN = not
  /// given. finalize_case sets start to the first step at or after it.
  double start_time = std::numeric_limits<double>::quiet_NaN();
  std::int64_t every = 1;  ///< steps between samples (>= 1)
  /// Names from kOutputFields whose source is statistics, in kOutputFields order once finalized; empty = all that
  /// apply (mean_temperature only with [thermal]), filled by finalize_case.
  std::vector<std::string> fields;
  /// The axes (x, y, z) the profile CSV averages over; none: no CSV.
  std::array<bool, 3> average = {false, false, false};
  bool has_profile() const { return average[0] || average[1] || average[2]; }
  /// True when `name` is among `fields`.
  bool wants(std::string_view name) const {
    for (const std::string& f : fields)
      if (f == name) return true;
    return false;
  }
  /// The second moments u_a u_b are summed (velocity_rms or reynolds_stress asked for).
  bool second_moments() const { return wants("velocity_rms") || wants("reynolds_stress"); }
};

struct CaseConfig {
  std::string name;         ///< case name ([case] name, default: file stem)
  std::string source_file;  ///< path the case was read from ("" when built in code)

  // [domain]
  std::array<int, 3> size = {0, 0, 0};  ///< fluid cells nx, ny, nz (each 1..2^30, (nx+2)(ny+2)(nz+2) <= 2^40)
  std::array<FaceBoundary, 6> faces{};  ///< per face, see kFaceNames; periodic faces come in pairs

  // [physics]: exactly one of reynolds / tau / viscosity fixes nu, or, with [thermal] and Ra > 0, none: then U is the
  // free-fall velocity and nu = U L sqrt(Pr / Ra)
  double velocity = 0.0;  ///< characteristic lattice velocity U (lid speed for cavities), |U| <= 0.3 * c_s-ish
  double length = 0.0;    ///< characteristic length L in cells (default: size[0])
  double reynolds = 0.0;  ///< Re = U L / nu (derived when tau, viscosity or the free-fall velocity fixes nu)
  double nu = 0.0;        ///< lattice kinematic viscosity, nu = (tau - 1/2) / 3
  double tau = 0.0;       ///< BGK relaxation time, tau = 3 nu + 1/2; must be >= min_tau (> 0.5)
  std::array<double, 3> body_force = {0.0, 0.0, 0.0};  ///< force density F (lattice units), Guo forcing

  InitialCondition initial{};

  // [numerics]
  Collision collision = Collision::trt;
  double magic = 3.0 / 16.0;  ///< TRT magic parameter Lambda = (tau_plus - 1/2)(tau_minus - 1/2)
  /// The smallest tau a run accepts ([numerics] min_tau, in (0.5, 1]): the stability margin over tau = 1/2, the
  /// same rule for cases in lattice units and in SI. A smaller tau is refused with the resolution that would
  /// reach it; a case that accepts the risk of an instability lowers min_tau.
  double min_tau = 0.51;
  LesModel les = LesModel::none;
  /// Smagorinsky constant C_S ([numerics] smagorinsky_constant, in (0, 1]), nu_t = (C_S dx)^2 |S|. Default 0.1, the
  /// value for wall-bounded shear flows (Deardorff 1970, J. Fluid Mech. 41, 453); Lilly's (1967) 0.17 is derived
  /// for isotropic turbulence and overdamps a channel.
  double smagorinsky_constant = 0.1;
  Precision precision = Precision::float32;
  /// Populations on the device (in-core) or in pinned host memory streamed through it in z-slabs ([numerics]
  /// out_of_core, device_memory_limit, time_block, slabs); default "auto": out-of-core only when the block does not
  /// fit the device (GPU builds).
  OutOfCoreConfig out_of_core{};

  // [run]
  std::int64_t steps = 0;         ///< time steps to run (>= 0)
  std::int64_t report_every = 0;  ///< progress line interval in steps (default: max(1, steps / 10))

  // [output]
  std::int64_t output_every = 0;  ///< VTK snapshot interval in steps; 0 = only the final state
  std::string output_directory = "output";
  bool write_vtk = true;           ///< write .vti snapshots and the .pvd collection
  bool write_centerlines = false;  ///< write <name>_centerlines.csv at the end (cavity cases)
  /// Kinetic-energy time series interval in steps ([output] energy_every; 0 = none): <name>_energy.csv with the
  /// fluid cells' mean kinetic energy and its dissipation rate (solver/energy_series.hpp).
  std::int64_t energy_every = 0;
  /// Point fields of the VTK snapshots ([output] fields), in this order: density, velocity, vorticity (curl u, 3
  /// components), q_criterion (Q = (Omega_ij Omega_ij - S_ij S_ij) / 2), strain_rate (|S| = sqrt(2 S_ij S_ij)),
  /// temperature (T; only with [thermal]). The derived fields vorticity, q_criterion and strain_rate are differenced
  /// from the velocity on the device (kernels/stencil_launchers.hpp), ghosts exchanged first.
  std::vector<std::string> output_fields = {"density", "velocity"};
  /// Compression of the VTK files ([output] compression: "none", "zlib", "lz4"): the snapshots (.vti and the pieces
  /// of a .pvti), the solids' surfaces and the particles (.vtp), through VTK's own compressors
  /// (io/vtk_compression.hpp); none writes the raw values.
  VtkCompression output_compression = VtkCompression::none;
  /// [output] asynchronous: snapshots and slices staged in host memory and written by a background thread while the
  /// run goes on (solver/snapshot_writer.hpp); false writes them before the next step.
  bool output_asynchronous = true;
  /// [output] region and stride of the volume snapshots (OutputRegion).
  OutputRegion output_region{};
  /// [[output.slice]] entries, in file order (empty: none).
  std::vector<SliceConfig> slices;

  // [checkpoint]
  /// Steps between checkpoints (io/checkpoint.hpp); 0 = none (a SIGTERM/SIGINT still writes one, and with
  /// every > 0 the final state is written too). The newest two are kept.
  std::int64_t checkpoint_every = 0;
  /// Where checkpoints go; "" = "<output directory>/checkpoints".
  std::string checkpoint_directory;

  // [parallel]
  // [particles]
  ParticleConfig particles{};
  // [thermal]
  ThermalConfig thermal{};
  // [units]
  UnitsConfig units{};

  /// [[solid]] entries, in file order (lattice units once finalized).
  std::vector<SolidConfig> solids;
  /// [forces]: the sampling of the solids' forces.
  ForcesConfig forces{};
  /// [[output.probe]] entries, in file order (empty: none).
  std::vector<ProbeConfig> probes;
  /// [statistics]: the running averages (disabled without the section).
  StatisticsConfig statistics{};

  ParallelConfig parallel{};  ///< MPI decomposition and halo exchange (defaults: automatic, host, overlap, device -1)

  /// Lattice Mach number Ma = max(|U|, fastest moving wall, fastest inlet, Taylor-Green amplitude, free-fall
  /// velocity) / c_s, c_s = 1/sqrt(3).
  double mach() const;
  /// omega = 1 / tau.
  double omega() const { return 1.0 / tau; }
};

/// True when any face is an open boundary (is_open_face).
inline bool has_open_faces(const CaseConfig& config) {
  for (const FaceBoundary& f : config.faces) {
    if (is_open_face(f.kind)) return true;
  }
  return false;
}

/// "<case file>: " to start a message about a case read from a file; "" for a case built in code (bench, tests).
inline std::string source_prefix(const CaseConfig& config) {
  return config.source_file.empty() ? std::string() : config.source_file + ": ";
}

/// Bytes of a memory size written as numerics.device_memory_limit is ("8 GiB", "512MiB", "1.5 GB": units B, kB, MB,
/// GB, TB, KiB, MiB, GiB, TiB), rounded to whole bytes; nullopt when the text is not of that form or not in 1..2^60.
std::optional<std::int64_t> memory_size_bytes(std::string_view text);

/// Reads and validates a case file: a regular file (or a symlink to one) of at most 16 MiB. `overrides` are
/// "section.key=value" strings, the value written as in TOML (e.g. `output.directory="out"`, `run.steps=100`,
/// `domain.size=[32,32,1]`); they replace or add keys before validation. Keys of more than 64 dot-separated parts
/// are refused before parsing (in the file and in overrides).
/// Throws InputError naming the file, the key and the allowed values on any problem.
CaseConfig load_case(const std::string& path, const std::vector<std::string>& overrides = {});

/// One section of the case file and its keys.
struct CaseSection {
  std::string_view name;
  std::vector<std::string_view> keys;
  /// True for a TOML array of tables ([[solid]]: one table per entry, each with these keys).
  bool array_of_tables = false;
};
/// The sections parse_case accepts and their keys (anything else is refused), and the keys of a [boundary.<face>]
/// table. Also read by tools that generate case files (tests/fuzz).
const std::vector<CaseSection>& case_file_schema();
const std::vector<std::string_view>& boundary_face_keys();
/// The keys of boundary_face_keys() that a face of boundary `type` ("wall", "velocity_inlet", ...) takes; empty for
/// an unknown type.
const std::vector<std::string_view>& boundary_type_keys(std::string_view type);

/// Same as load_case, from TOML text (`origin` names the source in messages).
CaseConfig parse_case(const std::string& toml_text, const std::string& origin,
                      const std::vector<std::string>& overrides = {});

/// Checks cross-key consistency and fills derived values (nu, tau, Re, length, report_every; with [thermal] its
/// defaults, kappa, g beta and the scalar sub-steps). Idempotent: calling it again on its result changes nothing.
/// Called by parse_case; exposed for cases built in code (tests, bench). Throws InputError.
void finalize_case(CaseConfig& config);

}  // namespace eddy
