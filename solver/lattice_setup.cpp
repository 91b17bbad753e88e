#include "solver/lattice_setup.hpp"

#include <cmath>

#include "kernels/d3q19.hpp"
#include "solver/block_solids.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy {

BlockShape block_shape(const Decomposition& d) { return BlockShape{{d.local_size[0], d.local_size[1], d.local_size[2]}}; }

namespace {

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
  return solid_flag(faces, count, velocity);
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
      for (int x = whole.lo[0]; x < whole.hi[0]; ++x) flags[shape.index(x, y, z)] = flag_from_faces(config, decomposition, x, y, z);
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
          if (is_solid(flags[neighbour])) {
            flags[cell] = kFluidNearSolid;  // only this cell's own entry is written: no race between threads
            break;
          }
        }
      }
  return flags;
}

std::vector<CutLink> cut_links(const CaseConfig& config, const Decomposition& decomposition,
                               const std::vector<CellFlag>& flags) {
  if (config.solids.empty()) return {};
  return cut_links(config, decomposition, flags, BlockSolids(config, decomposition));
}

std::vector<CutLink> cut_links(const CaseConfig& config, const Decomposition& decomposition,
                               const std::vector<CellFlag>& flags, const BlockSolids& solids) {
  std::vector<CutLink> links;
  if (config.solids.empty()) return links;
  const BlockShape shape = block_shape(decomposition);
  const Box interior = shape.interior();
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
          const Point3 centre = solids.centre(k);
          const Point3 solid_cell = cell_centre(g);
          double r[3];  // the wall point halfway along the link, seen from the solid's (wrapped) cell
          for (int a = 0; a < 3; ++a) r[a] = solid_cell[a] - 0.5 * c[a] - centre[a];
          CutLink link{cell, i, k, {r[1] * c[2] - r[2] * c[1], r[2] * c[0] - r[0] * c[2], r[0] * c[1] - r[1] * c[0]}};
          links.push_back(link);
        }
      }
  return links;
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
  return Relaxation<T>{T(omega_plus), T(omega_minus),
                       {T(config.body_force[0]), T(config.body_force[1]), T(config.body_force[2])}};
}

InitialField initial_field(const CaseConfig& config, const Decomposition& decomposition) {
  InitialField init{};
  switch (config.initial.kind) {
    case InitialKind::rest: init.kind = InitialField::kRest; break;
    case InitialKind::taylor_green_2d: init.kind = InitialField::kTaylorGreen2d; break;
    case InitialKind::taylor_green_3d: init.kind = InitialField::kTaylorGreen3d; break;
  }
  init.amplitude = config.initial.amplitude;
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

}  // namespace eddy
