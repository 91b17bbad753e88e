// Open faces on the host (solver/open_boundaries.hpp): the links of a block and their rules' constants, the inlet
// profiles and ramp, and the device buffers of the pass.
#include "solver/open_boundaries.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "kernels/d3q19.hpp"
#include "solver/errors.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {
namespace {

/// Linear interpolation weights of `s` on the increasing `grid`: the interval's first index and the weight of the
/// next point, clamped to the ends.
void bracket(const std::vector<double>& grid, double s, std::size_t& first, double& weight) {
  if (s <= grid.front()) {
    first = 0;
    weight = 0.0;
    return;
  }
  if (s >= grid.back()) {
    first = grid.size() - 2;
    weight = 1.0;
    return;
  }
  first = std::size_t(std::upper_bound(grid.begin(), grid.end(), s) - grid.begin()) - 1;
  weight = (s - grid[first]) / (grid[first + 1] - grid[first]);
}

/// The direction whose velocity is c_i with component `axis` reversed (a mirror image in a plane normal to it).
int mirrored(int i, int axis) {
  int c[3] = {d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)};
  c[axis] = -c[axis];
  for (int j = 0; j < d3q19::Q; ++j) {
    if (d3q19::c(j, 0) == c[0] && d3q19::c(j, 1) == c[1] && d3q19::c(j, 2) == c[2]) return j;
  }
  return i;
}

}  // namespace

std::array<double, 3> inlet_velocity(const CaseConfig& config, int face, const std::array<double, 3>& p) {
  const FaceBoundary& b = config.faces[face];
  const int axis = face / 2;
  const double sign = face % 2 == 0 ? 1.0 : -1.0;
  switch (b.profile) {
    case InletProfile::uniform:
      return b.velocity;
    case InletProfile::parabolic: {
      double factor = 1.0;
      for (int a = 0; a < 3; ++a) {
        if (a == axis || config.faces[2 * a].kind == FaceKind::periodic || config.size[a] <= 1) continue;
        const double length = config.size[a], s = std::clamp(p[a], 0.0, length);
        factor *= 4.0 * s * (length - s) / (length * length);
      }
      std::array<double, 3> u{0.0, 0.0, 0.0};
      u[axis] = sign * b.speed * factor;
      return u;
    }
    case InletProfile::csv: {
      const InletTable& t = b.table;
      std::size_t i0 = 0, i1 = 0;
      double w0 = 0.0, w1 = 0.0;
      bracket(t.coord[0], p[t.axis[0]], i0, w0);
      const std::size_t n0 = t.coord[0].size();
      std::array<double, 3> u{0.0, 0.0, 0.0};
      if (t.axes == 1) {
        for (int d = 0; d < 3; ++d) u[d] = (1.0 - w0) * t.velocity[i0][d] + w0 * t.velocity[i0 + 1][d];
        return u;
      }
      bracket(t.coord[1], p[t.axis[1]], i1, w1);
      const auto at = [&](std::size_t a, std::size_t c) { return t.velocity[a + n0 * c]; };
      for (int d = 0; d < 3; ++d) {
        u[d] = (1.0 - w0) * (1.0 - w1) * at(i0, i1)[d] + w0 * (1.0 - w1) * at(i0 + 1, i1)[d] +
               (1.0 - w0) * w1 * at(i0, i1 + 1)[d] + w0 * w1 * at(i0 + 1, i1 + 1)[d];
      }
      return u;
    }
  }
  return b.velocity;
}

double inlet_ramp(double ramp_time, double t) {
  if (!(ramp_time > 0.0) || t >= ramp_time) return 1.0;
  if (t <= 0.0) return 0.0;
  const double s = std::sin(0.5 * M_PI * t / ramp_time);
  return s * s;
}

std::vector<OpenLink> open_links(const CaseConfig& config, const Decomposition& d, const std::vector<CellFlag>& flags) {
  std::vector<OpenLink> links;
  if (!has_open_faces(config)) return links;
  // Direction-major order, the pressure outlet's links after all others (kernels/open_boundaries.hpp).
  std::vector<OpenLink> by_direction[2][d3q19::Q];
  const BlockShape shape = block_shape(d);
  for (int z = 1; z <= shape.n[2]; ++z)
    for (int y = 1; y <= shape.n[1]; ++y)
      for (int x = 1; x <= shape.n[0]; ++x) {
        const std::int64_t cell = shape.index(x, y, z);
        if (!is_fluid(flags[std::size_t(cell)])) continue;
        const int local[3] = {x, y, z};
        for (int i = 1; i < d3q19::Q; ++i) {
          const int c[3] = {d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)};
          const std::int64_t ghost = cell - shape.offset(c[0], c[1], c[2]);
          const CellFlag from = flags[std::size_t(ghost)];
          if (!is_open(from)) continue;
          const int face = from - kOpen, axis = face / 2;
          const FaceBoundary& b = config.faces[face];
          int t[3] = {c[0], c[1], c[2]};  // the part of c_i along the face
          t[axis] = 0;
          const std::int64_t along = cell - shape.offset(t[0], t[1], t[2]);  // x - t_i
          OpenLink link{};
          link.next = -1;
          link.cell = cell;
          link.ghost = ghost;
          link.dir = i;
          link.face = face;
          for (int a = 0; a < 3; ++a) link.position[a] = local[a];
          switch (b.kind) {
            case FaceKind::velocity_inlet: {
              std::array<double, 3> crossing{};  // x - c_i / 2, global lattice coordinates
              for (int a = 0; a < 3; ++a) crossing[a] = d.offset[a] + local[a] - 1 + 0.5 - 0.5 * c[a];
              const std::array<double, 3> u = inlet_velocity(config, face, crossing);
              link.rule = kInletRule;
              for (int a = 0; a < 3; ++a) link.value[a] = u[a];
              link.source = cell;
              link.source_dir = d3q19::opp(i);
              break;
            }
            case FaceKind::pressure_outlet:
            case FaceKind::outflow: {
              if (b.kind == FaceKind::pressure_outlet) {
                int n[3] = {0, 0, 0};
                n[axis] = c[axis];
                const int inner = local[axis] + n[axis];
                const std::int64_t next = cell + shape.offset(n[0], n[1], n[2]);
                link.rule = kPressureRule;
                link.value[0] = b.density;
                link.next = inner >= 1 && inner <= shape.n[axis] && is_fluid(flags[std::size_t(next)]) ? next : -1;
              } else {
                link.rule = b.scheme == OutflowScheme::convective ? kConvectiveRule : kCopyRule;
                link.value[0] = b.convection_velocity;
              }
              // The ghost node's inner neighbour x - t_i, whose post-collision population f*_i both rules read.
              link.source = along;
              link.source_dir = i;
              if (!is_fluid(flags[std::size_t(along)])) {
                // x - t_i is a solid body or the ghost node of another face (an edge this face owns): read x.
                link.source = cell;
                const CellFlag beyond = flags[std::size_t(along)];
                if (is_open(beyond) && config.faces[beyond - kOpen].kind == FaceKind::free_slip) {
                  link.source_dir = mirrored(i, (beyond - kOpen) / 2);  // the mirror image through that plane
                }
              }
              break;
            }
            case FaceKind::free_slip: {
              link.rule = kCopyRule;
              link.source = along;
              link.source_dir = mirrored(i, axis);
              if (!is_fluid(flags[std::size_t(along)])) {  // a solid body, or another free-slip plane: bounce back
                link.source = cell;
                link.source_dir = d3q19::opp(i);
              }
              break;
            }
            default:
              continue;
          }
          by_direction[link.rule == kPressureRule ? 1 : 0][i].push_back(link);
        }
      }
  for (const auto& group : by_direction)
    for (const std::vector<OpenLink>& some : group) links.insert(links.end(), some.begin(), some.end());
  return links;
}

void check_open_decomposition(const CaseConfig& config, const Decomposition& d) {
  for (int face = 0; face < 6; ++face) {
    if (config.faces[face].kind != FaceKind::pressure_outlet) continue;
    const int axis = face / 2;
    int first = 0, count = 0;
    d.block_extent(axis, face % 2 == 0 ? 0 : d.dims[axis] - 1, first, count);
    if (count >= 2) continue;
    throw RankCountError(source_prefix(config) + "the blocks next to the pressure outlet " + kFaceNames[face] +
                         " would be " + std::to_string(count) + " cell thick along " + "xyz"[axis] + " (" +
                         std::to_string(d.dims[axis]) + " ranks over " + std::to_string(d.global_size[axis]) +
                         " cells): its rule reads the next cell inwards, which must lie in the same block; use "
                         "fewer ranks along " +
                         "xyz"[axis] + " (parallel.ranks)");
  }
}

void check_open_faces_reach_fluid(const CaseConfig& config, const Decomposition& d,
                                  const std::vector<OpenLink>& links) {
  long long count[6] = {0, 0, 0, 0, 0, 0};
  for (const OpenLink& link : links) ++count[link.face];
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, count, 6, MPI_LONG_LONG, MPI_SUM, d.comm));
  for (int face = 0; face < 6; ++face) {
    const FaceKind kind = config.faces[face].kind;
    if (count[face] > 0 ||
        !(kind == FaceKind::velocity_inlet || kind == FaceKind::pressure_outlet || kind == FaceKind::outflow)) {
      continue;
    }
    const char* type = kind == FaceKind::velocity_inlet    ? "velocity_inlet"
                       : kind == FaceKind::pressure_outlet ? "pressure_outlet"
                                                           : "outflow";
    throw CollectiveInputError(source_prefix(config) + "boundary." + kFaceNames[face] + ".type = \"" + type +
                               "\" has no fluid cell next to it: the [[solid]] bodies cover the whole face, so "
                               "nothing can flow " +
                               (kind == FaceKind::velocity_inlet ? "in" : "out") +
                               " there; move or shrink the solids, or make the face a wall");
  }
}

template <class T>
OpenFaces<T>::OpenFaces(const CaseConfig& config, const Decomposition& decomposition,
                        const std::vector<CellFlag>& flags)
    : shape_(block_shape(decomposition)) {
  check_open_decomposition(config, decomposition);
  const std::vector<OpenLink> links = open_links(config, decomposition, flags);
  check_open_faces_reach_fluid(config, decomposition, links);
  n_links_ = std::int64_t(links.size());
  for (int face = 0; face < 6; ++face) {
    const FaceBoundary& b = config.faces[face];
    ramp_time_[std::size_t(face)] = b.kind == FaceKind::velocity_inlet ? b.ramp_time : 0.0;
    face_value_[std::size_t(face)] = b.kind == FaceKind::pressure_outlet ? b.density : b.convection_velocity;
  }
  if (n_links_ == 0) return;
  // The device form: 16 bytes a link, the inlet velocities apart, one outlet cell per (face cell, face).
  std::vector<OpenLinkCode> codes;
  std::vector<R> inlet_velocity;
  std::vector<OutletCell> outlet;
  std::unordered_map<std::int64_t, std::int32_t> outlet_index;  // key: cell * 8 + face
  codes.reserve(links.size());
  for (const OpenLink& link : links) {
    OpenLinkCode code{};
    code.cell = link.cell;
    code.index = -1;
    code.code = OpenLinkCode::pack(link.dir, link.source_dir, link.rule, link.face, link.source != link.cell);
    if (n_outlet_links_ > 0 && link.rule != kPressureRule) {
      throw std::logic_error("open_links: a link of another rule after the pressure outlet's");
    }
    if (link.rule == kInletRule) {
      code.index = std::int32_t(inlet_velocity.size() / 3);
      for (int d = 0; d < 3; ++d) inlet_velocity.push_back(R(link.value[d]));
    } else if (link.rule == kPressureRule) {
      const auto [at, added] = outlet_index.emplace(link.cell * 8 + link.face, std::int32_t(outlet.size()));
      if (added) outlet.push_back(OutletCell{link.cell, link.next});
      code.index = at->second;
      ++n_outlet_links_;
    }
    if (code.source(shape_) != link.source) {
      throw std::logic_error("open_links: a link's source is neither its cell nor x - t_i");
    }
    codes.push_back(code);
    has_convective_ = has_convective_ || link.rule == kConvectiveRule;
  }
  links_ = DeviceBuffer<OpenLinkCode>(codes.size());
  links_.upload(codes);
  if (!inlet_velocity.empty()) {
    inlet_velocity_ = DeviceBuffer<R>(inlet_velocity.size());
    inlet_velocity_.upload(inlet_velocity);
  }
  n_outlet_ = std::int64_t(outlet.size());
  if (n_outlet_ > 0) {
    outlet_ = DeviceBuffer<OutletCell>(outlet.size());
    outlet_.upload(outlet);
    outlet_moments_ = DeviceBuffer<R>(7 * outlet.size());
  }
  if (has_convective_) history_ = DeviceBuffer<T>(links.size());
  host_codes_ = std::move(codes);
}

template <class T>
void OpenFaces<T>::apply(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                         const BlockShape& shape, const WallVelocities<R>& walls, const R (&force)[3],
                         const std::array<int, 3>& origin, std::int64_t arrival, const StabilityView<R>& stability,
                         const backend::Stream* stream) {
  if (n_links_ == 0) return;
  OpenPassArguments<T> args{};
  args.a = a;
  args.swapped = layout == PopulationLayout::swapped;
  args.flags = flags;
  args.shape = shape;
  args.walls = walls;
  for (int d = 0; d < 3; ++d) args.force[d] = force[d];
  for (int face = 0; face < 6; ++face) {
    args.ramp[face] = R(inlet_ramp(ramp_time_[std::size_t(face)], double(arrival)));
    args.face_value[face] = R(face_value_[std::size_t(face)]);
  }
  args.inlet_velocity = inlet_velocity_.data();
  args.outlet_moments = outlet_moments_.data();
  args.n_outlet = n_outlet_;
  args.n_outlet_links = n_outlet_links_;
  args.key = RoundingKey{static_cast<std::uint32_t>(arrival), {origin[0], origin[1], origin[2]}};
  args.step_taken = static_cast<std::uint32_t>(arrival - 1);
  args.history = has_convective_ ? history_.data() : nullptr;
  args.have_history = have_history_;
  args.stability = stability;
  apply_open_boundaries(args, outlet_.data(), links_.data(), n_links_, stream);
  have_history_ = true;
}

template <class T>
void OpenFaces<T>::restore(const PopulationView<T>& a, PopulationLayout layout, const backend::Stream* stream) {
  have_history_ = true;
  if (n_links_ == 0) return;
  restore_open_boundaries(a, layout == PopulationLayout::swapped, shape_, links_.data(), n_links_,
                          has_convective_ ? history_.data() : nullptr, stream);
}

template <class T>
void OpenFaces<T>::pack_link_values(const T* all, const BlockShape& shape, T* packed) const {
  const std::int64_t interior = shape.interior_cells();
  for (const OpenLinkCode& link : host_codes_) {
    int p[3];
    link.position(shape, p);
    const std::int64_t k = (p[0] - 1) + std::int64_t(shape.n[0]) * ((p[1] - 1) + std::int64_t(shape.n[1]) * (p[2] - 1));
    packed[std::int64_t(link.dir()) * interior + k] =
        all[std::int64_t(d3q19::opp(link.dir())) * shape.n_cells() + link.ghost(shape)];
  }
}

template class OpenFaces<float>;
template class OpenFaces<double>;
template class OpenFaces<half_t>;

}  // namespace eddy
