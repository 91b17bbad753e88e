// Open faces on the host (solver/open_boundaries.hpp): the links of a block and their rules' constants, the inlet
// profiles and ramp, and the device buffers of the pass.
#include "solver/open_boundaries.hpp"

#include <algorithm>
#include <climits>
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

/// Where the moments of the pressure outlet's face cells live (OpenPassArguments::outlet_moments): the records of the
/// domain's first pressure outlet (lowest face index, `first`) follow OutletMomentsView's formula, so the fused
/// kernel writes them; every other outlet face's K face cells take records base + j and their next cells base + K +
/// j, after the first face's 2 n_b n_c. Which face the kernel covers depends on the case only, so every
/// decomposition takes each cell's moments from the same place (bitwise 1 vs N ranks).
template <class R>
struct OutletRecords {
  std::vector<OutletCell> cells;  // the other faces' cells first, then the fused kernel's face
  std::int64_t apart = 0;         // the other faces' cells: the pass computes their moments every step
  std::array<std::int64_t, 6> next_offset{};
  std::vector<std::int32_t> link_record;  // per link: its face cell's record (pressure outlet), else -1
  std::int64_t count = 0;                 // records
  OutletMomentsView<R> view;              // the fused kernel's face (moments not set; n_b = 0 without one)
};

template <class R>
OutletRecords<R> outlet_records(const BlockShape& shape, const std::vector<OpenLink>& links, int first) {
  OutletRecords<R> r;
  r.link_record.assign(links.size(), -1);
  std::vector<std::size_t> face_cells[6];  // per face, the first link of each of its cells (link order)
  std::vector<std::int32_t> link_cell(links.size(), -1);
  std::unordered_map<std::int64_t, std::int32_t> known;  // key: cell * 8 + face
  for (std::size_t k = 0; k < links.size(); ++k) {
    const OpenLink& link = links[k];
    if (link.rule != kPressureRule) continue;
    std::vector<std::size_t>& cells = face_cells[link.face];
    const auto [at, added] = known.emplace(link.cell * 8 + link.face, std::int32_t(cells.size()));
    if (added) cells.push_back(k);
    link_cell[k] = at->second;
  }
  if (first >= 0 && face_cells[first].empty()) first = -1;  // no cell of this block on it: the pass computes all
  std::int64_t plane = 0;
  if (first >= 0) {
    const int axis = first / 2;
    r.view.axis = axis;
    r.view.face_plane = first % 2 == 0 ? 1 : shape.n[axis];
    r.view.next_plane = first % 2 == 0 ? 2 : shape.n[axis] - 1;
    r.view.n_b = shape.n[axis == 0 ? 1 : 0];
    r.view.n_c = shape.n[axis == 2 ? 1 : 2];
    plane = std::int64_t(r.view.n_b) * r.view.n_c;
    r.next_offset[std::size_t(first)] = plane;
  }
  std::vector<std::int64_t> record[6];  // per face and cell
  std::int64_t base = 2 * plane;
  for (int face = 0; face < 6; ++face) {
    if (face == first) {
      for (std::size_t k : face_cells[face]) {
        const OpenLink& link = links[k];
        const std::int64_t at = r.view.record(link.position[0], link.position[1], link.position[2]);
        if (at < 0 || at >= plane) throw std::logic_error("outlet_records: a face cell off the outlet's plane");
        record[face].push_back(at);
      }
      continue;
    }
    const std::int64_t n = std::int64_t(face_cells[face].size());
    r.next_offset[std::size_t(face)] = n;
    for (std::int64_t j = 0; j < n; ++j) record[face].push_back(base + j);
    base += 2 * n;
  }
  r.count = base;
  if (r.count > std::int64_t(INT32_MAX) / 4) throw std::logic_error("outlet_records: too many outlet records");
  for (int pass = 0; pass < 2; ++pass) {  // the other faces, then the fused kernel's
    for (int face = 0; face < 6; ++face) {
      if ((pass == 0) == (face == first)) continue;
      for (std::size_t j = 0; j < face_cells[face].size(); ++j) {
        const OpenLink& link = links[face_cells[face][j]];
        const std::int64_t at = record[face][j];
        r.cells.push_back(
            OutletCell{link.cell, link.next, std::int32_t(at), std::int32_t(at + r.next_offset[std::size_t(face)])});
      }
    }
    if (pass == 0) r.apart = std::int64_t(r.cells.size());
  }
  for (std::size_t k = 0; k < links.size(); ++k) {
    if (link_cell[k] >= 0) r.link_record[k] = std::int32_t(record[links[k].face][std::size_t(link_cell[k])]);
  }
  return r;
}

/// The face whose outlet moments the fused kernel writes: the domain's first pressure outlet, -1 without one.
int kernel_outlet_face(const CaseConfig& config) {
  for (int face = 0; face < 6; ++face) {
    if (config.faces[face].kind == FaceKind::pressure_outlet) return face;
  }
  return -1;
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
  const OutletRecords<R> records = outlet_records<R>(shape_, links, kernel_outlet_face(config));
  // The device form: 16 bytes a link, the inlet velocities apart, one record of moments per (outlet cell, face).
  std::vector<OpenLinkCode> codes;
  std::vector<R> inlet_velocity;
  codes.reserve(links.size());
  for (std::size_t k = 0; k < links.size(); ++k) {
    const OpenLink& link = links[k];
    OpenLinkCode code{};
    code.cell = link.cell;
    code.index = -1;
    code.code =
        OpenLinkCode::pack(link.dir, link.source_dir, link.rule, link.face, link.source != link.cell, link.next >= 0);
    if (n_outlet_links_ > 0 && link.rule != kPressureRule) {
      throw std::logic_error("open_links: a link of another rule after the pressure outlet's");
    }
    if (link.rule == kInletRule) {
      code.index = std::int32_t(inlet_velocity.size() / 3);
      for (int d = 0; d < 3; ++d) inlet_velocity.push_back(R(link.value[d]));
    } else if (link.rule == kPressureRule) {
      code.index = records.link_record[k];
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
  n_outlet_ = std::int64_t(records.cells.size());
  n_outlet_apart_ = records.apart;
  next_offset_ = records.next_offset;
  if (n_outlet_ > 0) {
    outlet_ = DeviceBuffer<OutletCell>(records.cells.size());
    outlet_.upload(records.cells);
    outlet_moments_ = DeviceBuffer<R>(4 * std::size_t(records.count));
    step_moments_ = records.view;
    if (step_moments_.n_b > 0) step_moments_.moments = outlet_moments_.data();
  }
  if (has_convective_) history_ = DeviceBuffer<T>(links.size());
  host_codes_ = std::move(codes);
}

template <class T>
void OpenFaces<T>::apply(const PopulationView<T>& a, PopulationLayout layout, const FlagView& flags,
                         const BlockShape& shape, const WallVelocities<R>& walls, const R (&force)[3],
                         const ForceFieldView<R>& field, const std::array<int, 3>& origin, std::int64_t arrival,
                         const StabilityView<R>& stability, bool moments_from_step, const backend::Stream* stream) {
  if (n_links_ == 0) return;
  OpenPassArguments<T> args{};
  args.a = a;
  args.swapped = layout == PopulationLayout::swapped;
  args.flags = flags;
  args.shape = shape;
  args.walls = walls;
  for (int d = 0; d < 3; ++d) args.force[d] = force[d];
  args.field = field;
  for (int face = 0; face < 6; ++face) {
    args.ramp[face] = R(inlet_ramp(ramp_time_[std::size_t(face)], double(arrival)));
    args.face_value[face] = R(face_value_[std::size_t(face)]);
  }
  args.inlet_velocity = inlet_velocity_.data();
  args.outlet_moments = outlet_moments_.data();
  for (int face = 0; face < 6; ++face) args.next_offset[face] = next_offset_[std::size_t(face)];
  // The fused kernel of the step wrote the moments of step_moments()'s face: the first kernel computes the others.
  args.n_outlet = moments_from_step && step_moments_.present() ? n_outlet_apart_ : n_outlet_;
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
