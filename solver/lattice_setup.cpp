#include "solver/lattice_setup.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/boundary_rules.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/open_boundaries.hpp"
#include "solver/block_solids.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy {

BlockShape block_shape(const Decomposition& d) {
  return BlockShape{{d.local_size[0], d.local_size[1], d.local_size[2]}};
}

namespace {

/// The precedence of kernels/cell_flags.hpp (boundary_flag) of a face of type `kind` where faces meet.
int open_precedence(FaceKind kind) {
  switch (kind) {
    case FaceKind::velocity_inlet:
      return kVelocityInletPrecedence;
    case FaceKind::pressure_outlet:
      return kPressureOutletPrecedence;
    case FaceKind::outflow:
      return kOutflowPrecedence;
    case FaceKind::free_slip:
      return kFreeSlipPrecedence;
    default:
      return kWallFace;
  }
}

/// Flag of a block cell from the global faces it lies beyond (none: fluid), by the edge rule of
/// kernels/cell_flags.hpp (cases/README.md, "Edges and corners").
CellFlag flag_from_faces(const CaseConfig& config, const Decomposition& d, int x, int y, int z) {
  const int p[3] = {x, y, z};
  int faces[3];
  int count = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const int global = d.offset[axis] + p[axis] - 1;
    int face = -1;
    if (global < 0) face = 2 * axis;
    if (global >= d.global_size[axis]) face = 2 * axis + 1;
    if (face >= 0 && config.faces[face].kind != FaceKind::periodic) faces[count++] = face;
  }
  if (count == 0) return kFluid;
  const auto velocity = [&](int face) {
    return config.faces[face].kind == FaceKind::moving_wall ? config.faces[face].velocity
                                                            : std::array<double, 3>{0.0, 0.0, 0.0};
  };
  return boundary_flag(
      faces, count, [&](int face) { return open_precedence(config.faces[face].kind); }, velocity);
}

/// Marks kWall every cell of the block (ghost layer included) that a solid covers (solver/block_solids.hpp). Cells
/// beyond a wall face keep the face's flag.
void mark_solids(const BlockSolids& solids, const BlockShape& shape, std::vector<CellFlag>& flags) {
  if (solids.empty()) return;
  const Box whole = shape.whole();
#pragma omp parallel for schedule(static)
  for (int z = whole.lo[2]; z < whole.hi[2]; ++z)
    for (int y = whole.lo[1]; y < whole.hi[1]; ++y)
      for (int x = whole.lo[0]; x < whole.hi[0]; ++x) {
        std::array<std::int64_t, 3> g{};
        if (solids.solid_at(x, y, z, g) >= 0) flags[shape.index(x, y, z)] = kWall;
      }
}
}  // namespace

std::vector<std::int32_t> solid_labels(const BlockSolids& solids, const std::array<int, 3>& n, int margin_z) {
  std::vector<std::int32_t> labels(std::size_t(n[0]) * std::size_t(n[1]) * std::size_t(n[2]), 0);
  if (solids.empty()) return labels;
#pragma omp parallel for schedule(static)
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x) {
        std::array<std::int64_t, 3> g{};
        const int k = solids.solid_at(x + 1, y + 1, z + 1 + margin_z, g);  // block index: ghost + 1
        labels[std::size_t(x) + std::size_t(n[0]) * (std::size_t(y) + std::size_t(n[1]) * std::size_t(z))] = k + 1;
      }
  return labels;
}

std::vector<std::int32_t> solid_labels(const CaseConfig& config, const Decomposition& decomposition) {
  if (config.solids.empty()) return solid_labels(BlockSolids(), decomposition.local_size, 0);
  return solid_labels(BlockSolids(config, decomposition), decomposition.local_size, 0);
}

std::vector<CellFlag> build_flags(const CaseConfig& config, const Decomposition& decomposition) {
  return build_flags(config, decomposition, BlockSolids(config, decomposition));
}

std::vector<CellFlag> build_flags(const CaseConfig& config, const Decomposition& decomposition,
                                  const BlockSolids& solids) {
  const BlockShape shape = block_shape(decomposition);
  std::vector<CellFlag> flags(static_cast<std::size_t>(shape.n_cells()), kFluid);
  // Host threads (OpenMP where the build links it): a 1024 x 1024 x 512 block has half a billion cells.
  const Box whole = shape.whole();
#pragma omp parallel for schedule(static)
  for (int z = whole.lo[2]; z < whole.hi[2]; ++z)
    for (int y = whole.lo[1]; y < whole.hi[1]; ++y)
      for (int x = whole.lo[0]; x < whole.hi[0]; ++x)
        flags[shape.index(x, y, z)] = flag_from_faces(config, decomposition, x, y, z);
  mark_solids(solids, shape, flags);

  const Box interior = shape.interior();
#pragma omp parallel for schedule(static)
  for (int z = interior.lo[2]; z < interior.hi[2]; ++z)
    for (int y = interior.lo[1]; y < interior.hi[1]; ++y)
      for (int x = interior.lo[0]; x < interior.hi[0]; ++x) {
        const std::int64_t cell = shape.index(x, y, z);
        if (is_solid(flags[cell])) continue;
        for (int i = 1; i < d3q19::Q; ++i) {
          const std::int64_t neighbour = cell + shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2));
          if (!is_fluid(flags[neighbour])) {  // solid, or an open face's ghost node (the stencils' one-sided rule)
            flags[cell] = kFluidNearSolid;    // only this cell's own entry is written: no race between threads
            break;
          }
        }
      }
  return flags;
}

CutLinkList cut_links(const CaseConfig& config, const Decomposition& decomposition,
                      const std::vector<CellFlag>& flags) {
  if (config.solids.empty()) return {};
  return cut_links(config, decomposition, flags, BlockSolids(config, decomposition));
}

namespace {

bool in_box(const Box& b, int x, int y, int z) {
  return x >= b.lo[0] && x < b.hi[0] && y >= b.lo[1] && y < b.hi[1] && z >= b.lo[2] && z < b.hi[2];
}

/// Whether block cell (x, y, z) lies in the first kOpenPassReach layers next to an open face of the domain (by its
/// global position): the open-face pass may read its populations (kernels/open_boundaries.hpp).
bool next_to_open_face(const CaseConfig& config, const Decomposition& d, int x, int y, int z) {
  const int p[3] = {x, y, z};
  for (int axis = 0; axis < 3; ++axis) {
    const int global = d.offset[axis] + p[axis] - 1;
    if (is_open_face(config.faces[2 * axis].kind) && global < kOpenPassReach) return true;
    if (is_open_face(config.faces[2 * axis + 1].kind) && global >= d.global_size[axis] - kOpenPassReach) return true;
  }
  return false;
}

}  // namespace

CutLinkList cut_links(const CaseConfig& config, const Decomposition& decomposition, const std::vector<CellFlag>& flags,
                      const BlockSolids& solids) {
  CutLinkList list;
  if (config.solids.empty()) return list;
  const BlockShape shape = block_shape(decomposition);
  const Box interior = shape.interior();
  std::vector<CutLink> early_interpolated, late_interpolated, halfway;
  for (int z = interior.lo[2]; z < interior.hi[2]; ++z)
    for (int y = interior.lo[1]; y < interior.hi[1]; ++y)
      for (int x = interior.lo[0]; x < interior.hi[0]; ++x) {
        const std::int64_t cell = shape.index(x, y, z);
        if (is_solid(flags[cell])) continue;
        for (int i = 1; i < d3q19::Q; ++i) {
          const int c[3] = {d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)};
          if (!is_solid(flags[cell + shape.offset(c[0], c[1], c[2])])) continue;
          std::array<std::int64_t, 3> g{};
          const int k = solids.solid_at(x + c[0], y + c[1], z + c[2], g);
          if (k < 0) continue;  // a face wall, or a cell beyond one
          const SolidConfig& solid = config.solids[std::size_t(k)];
          const Point3 solid_cell = cell_centre(g);
          // The fluid node seen from the solid's (wrapped) cell: across a periodic face, the image next to it.
          const Point3 fluid = {solid_cell[0] - c[0], solid_cell[1] - c[1], solid_cell[2] - c[2]};
          const std::int64_t behind = cell - shape.offset(c[0], c[1], c[2]);
          CutLink link{};
          link.cell = cell;
          link.behind = behind;
          link.dir = i;
          link.solid = k;
          link.x = x;
          link.y = y;
          link.z = z;
          link.q = 0.5;
          bool interpolated = false;
          if (solid.wall == SolidWall::interpolated) {
            const double q = solids.link_wall_distance(x, y, z, c);
            link.q = q;
            interpolated = q != 0.5 && !is_solid(flags[behind]);
          }
          const InterpolationWeights w = bouzidi_linear_weights(link.q);
          link.near = w.near ? 1 : 0;
          link.weight_out = w.out;
          link.weight_other = w.other;
          const Point3 centre = solids.centre(k);
          double r[3];  // the wall point x_f + q c, seen from the solid's centre
          for (int a = 0; a < 3; ++a) r[a] = fluid[a] + link.q * c[a] - centre[a];
          link.arm[0] = r[1] * c[2] - r[2] * c[1];
          link.arm[1] = r[2] * c[0] - r[0] * c[2];
          link.arm[2] = r[0] * c[1] - r[1] * c[0];
          if (!interpolated) {
            halfway.push_back(link);
          } else if (in_box(interior, x - c[0], y - c[1], z - c[2]) &&
                     !next_to_open_face(config, decomposition, x, y, z)) {
            early_interpolated.push_back(link);
          } else {
            late_interpolated.push_back(link);
          }
        }
      }
  list.early_interpolated = std::int64_t(early_interpolated.size());
  list.interpolated = list.early_interpolated + std::int64_t(late_interpolated.size());
  list.links = std::move(early_interpolated);
  list.links.insert(list.links.end(), late_interpolated.begin(), late_interpolated.end());
  list.links.insert(list.links.end(), halfway.begin(), halfway.end());
  return list;
}

template <class T>
WallVelocities<T> wall_velocities(const CaseConfig& config) {
  WallVelocities<T> walls{};
  for (int face = 0; face < 6; ++face)
    for (int a = 0; a < 3; ++a)
      walls.u[face][a] = config.faces[face].kind == FaceKind::moving_wall ? T(config.faces[face].velocity[a]) : T(0);
  return walls;
}

template <class T>
Relaxation<T> relaxation(const CaseConfig& config) {
  const double omega_plus = 1.0 / config.tau;
  const double omega_minus =
      config.collision == Collision::bgk ? omega_plus : trt_omega_minus(omega_plus, config.magic);
  return Relaxation<T>{
      T(omega_plus), T(omega_minus), {T(config.body_force[0]), T(config.body_force[1]), T(config.body_force[2])}};
}

template <class T>
Smagorinsky<T> smagorinsky(const CaseConfig& config) {
  const bool sponge = std::any_of(config.faces.begin(), config.faces.end(),
                                  [](const FaceBoundary& b) { return is_open_face(b.kind) && b.sponge > 0.0; });
  if (config.les != LesModel::smagorinsky && !sponge) return Smagorinsky<T>{};
  const double factor = config.les == LesModel::smagorinsky ? smagorinsky_factor(config.smagorinsky_constant) : 0.0;
  return Smagorinsky<T>{T(config.tau), T(factor), config.collision == Collision::bgk ? T(0) : T(config.magic)};
}

template <class T>
SpongeLayers<T> sponge_layers(const CaseConfig& config, const Decomposition& decomposition) {
  SpongeLayers<T> sponge;
  for (int a = 0; a < 3; ++a) {
    sponge.offset[a] = decomposition.offset[a];
    sponge.size[a] = config.size[a];
  }
  for (int face = 0; face < 6; ++face) {
    const FaceBoundary& b = config.faces[face];
    if (!is_open_face(b.kind) || !(b.sponge > 0.0)) continue;
    sponge.inverse_thickness[face] = T(1.0 / b.sponge);
    sponge.tau_excess[face] = T(b.sponge_tau - config.tau);
    sponge.any = true;
  }
  return sponge;
}

InitialField initial_field(const CaseConfig& config, const Decomposition& decomposition) {
  InitialField init{};
  switch (config.initial.kind) {
    case InitialKind::rest:
      init.kind = InitialField::kRest;
      break;
    case InitialKind::taylor_green_2d:
      init.kind = InitialField::kTaylorGreen2d;
      break;
    case InitialKind::taylor_green_3d:
      init.kind = InitialField::kTaylorGreen3d;
      break;
    case InitialKind::turbulent_channel:
      init.kind = InitialField::kTurbulentChannel;
      break;
  }
  init.amplitude = config.initial.amplitude;
  init.perturbation = config.initial.perturbation;
  init.tau = config.tau;  // = 1 / omega_plus (relaxation): the rate at which the first collision relaxes f_neq
  for (int a = 0; a < 3; ++a) {
    init.k[a] = 2.0 * M_PI / config.size[a];
    init.offset[a] = decomposition.offset[a];
  }
  return init;
}

template WallVelocities<float> wall_velocities<float>(const CaseConfig&);
template WallVelocities<double> wall_velocities<double>(const CaseConfig&);
template Relaxation<float> relaxation<float>(const CaseConfig&);
template Relaxation<double> relaxation<double>(const CaseConfig&);
template Smagorinsky<float> smagorinsky<float>(const CaseConfig&);
template Smagorinsky<double> smagorinsky<double>(const CaseConfig&);
template SpongeLayers<float> sponge_layers<float>(const CaseConfig&, const Decomposition&);
template SpongeLayers<double> sponge_layers<double>(const CaseConfig&, const Decomposition&);

}  // namespace eddy
