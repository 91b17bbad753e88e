#include "solver/moment_readout.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "io/output_fields.hpp"
#include "io/vtk_output.hpp"
#include "solver/output_box.hpp"

namespace eddy {

namespace {
constexpr std::int64_t kChunk = std::int64_t(1) << 16;
}  // namespace

template <class R>
void DiagnosticsAccumulator::add(const R* part, std::int64_t slab, std::int64_t first, std::int64_t cells) {
  if (cells <= 0) return;
  const std::int64_t chunk_lo = first / kChunk, chunk_hi = (first + cells - 1) / kChunk + 1;
  if (std::int64_t(chunks_.size()) < chunk_hi) chunks_.resize(std::size_t(chunk_hi));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = chunk_lo; c < chunk_hi; ++c) {
    Partial& p = chunks_[std::size_t(c)];  // a chunk cut by the slab's ends goes on where the last slab left it
    const std::int64_t lo = std::max(first, c * kChunk), hi = std::min(first + cells, (c + 1) * kChunk);
    for (std::int64_t k = lo; k < hi; ++k) {
      const std::int64_t j = k - first;
      const double rho = part[j], ux = part[slab + j], uy = part[2 * slab + j], uz = part[3 * slab + j];
      const double speed2 = ux * ux + uy * uy + uz * uz;
      if (!std::isfinite(rho) || !std::isfinite(speed2)) {
        if (p.first_bad < 0) p.first_bad = k;
        continue;
      }
      p.mass += rho;
      p.energy += 0.5 * speed2;
      p.fluid += rho != 0.0;
      if (speed2 > p.max_speed2) {
        p.max_speed2 = speed2;
        p.fastest = k;
      }
    }
  }
}

std::array<int, 3> interior_to_global(std::int64_t k, const std::array<int, 3>& size,
                                      const std::array<int, 3>& offset) {
  const int x = int(k % size[0]);
  const int y = int((k / size[0]) % size[1]);
  const int z = int(k / (std::int64_t(size[0]) * size[1]));
  return {offset[0] + x, offset[1] + y, offset[2] + z};
}

Diagnostics DiagnosticsAccumulator::result(const std::array<int, 3>& size, const std::array<int, 3>& offset) const {
  Partial total;
  for (const Partial& p : chunks_) {
    total.mass += p.mass;
    total.energy += p.energy;
    total.fluid += p.fluid;
    if (p.max_speed2 > total.max_speed2) {
      total.max_speed2 = p.max_speed2;
      total.fastest = p.fastest;
    }
    if (total.first_bad < 0) total.first_bad = p.first_bad;
  }
  Diagnostics d;
  d.mass = total.mass;
  d.kinetic_energy = total.energy;
  d.fluid_cells = total.fluid;
  d.max_speed = std::sqrt(std::max(total.max_speed2, 0.0));
  d.fastest_cell = interior_to_global(total.fastest, size, offset);
  d.finite = total.first_bad < 0;
  if (!d.finite) d.first_nonfinite_cell = interior_to_global(total.first_bad, size, offset);
  return d;
}

template <class R>
MacroscopicFields to_fields(const std::vector<R>& host, const Decomposition& decomposition) {
  const std::size_t n = host.size() / 4;
  MacroscopicFields out;
  out.size = decomposition.local_size;
  out.offset = decomposition.offset;
  out.global_size = decomposition.global_size;
  out.rho.assign(host.begin(), host.begin() + n);
  for (int a = 0; a < 3; ++a) out.u[a].assign(host.begin() + (a + 1) * n, host.begin() + (a + 2) * n);
  return out;
}

bool wants_output(const CaseConfig& config, std::string_view name) {
  const OutputField* field = find_output_field(name);
  if (field && field->source == FieldSource::statistics) {
    return config.statistics.enabled && config.statistics.wants(name);
  }
  const auto& fields = config.output_fields;
  return std::find(fields.begin(), fields.end(), name) != fields.end();
}

std::vector<std::string> written_fields(const CaseConfig& config) {
  std::vector<std::string> names;
  for (const OutputField& field : kOutputFields) {
    if (wants_output(config, field.name)) names.emplace_back(field.name);
  }
  return names;
}

std::vector<std::pair<std::string, int>> piece_fields(const CaseConfig& config, bool thermal) {
  std::vector<std::pair<std::string, int>> fields;
  for (const OutputField& field : kOutputFields) {
    const bool held = field.source == FieldSource::moments ||
                      (wants_output(config, field.name) && (field.source != FieldSource::thermal || thermal));
    if (held) fields.emplace_back(std::string(field.name), field.components);
  }
  return fields;
}

template <class R>
StagedPiece stage_piece_vti(const std::string& path, const OutputBox& box, const OutputScaling& scaling,
                            const Decomposition& decomposition, const std::shared_ptr<const std::vector<R>>& host,
                            const std::vector<std::pair<std::string, int>>& fields,
                            const std::vector<std::string>& wanted, std::int64_t step, VtkCompression compression) {
  const std::size_t n = std::size_t(decomposition.local_size[0]) * decomposition.local_size[1] *
                        decomposition.local_size[2];
  const int components = int(host->size() / std::max<std::size_t>(n, 1));
  StagedPiece staged;
  std::shared_ptr<const std::vector<R>> values;
  // One rank (with or without a communicator: the CLI's single-rank runs have one) writing every node of its block.
  if (decomposition.size == 1 && box == whole_grid(decomposition.local_size)) {
    staged.piece = PieceExtent{{0, 0, 0}, decomposition.local_size};  // the block itself: its arrays as they are
    values = host;
  } else {
    values = std::make_shared<const std::vector<R>>(
        gather_box_piece(box, decomposition, *host, components, staged.piece));
  }
  if (staged.piece.size[0] == 0) {  // this rank holds none of the box
    staged.write = [] {};
    return staged;
  }
  staged.bytes = values->size() * sizeof(R);
  GridGeometry grid;
  for (int a = 0; a < 3; ++a) {
    grid.size[a] = staged.piece.size[a];
    grid.offset[a] = staged.piece.offset[a];
    grid.spacing[a] = box.stride[a] / scaling.length;
    grid.origin[a] = (box.first[a] + 0.5) / scaling.length;
  }
  if (scaling.si) {
    grid.length_units = "m";
    grid.time_units = "s";
  }
  // The point fields, pointing into the staged values (which the write owns).
  const std::size_t m = std::size_t(grid.size[0]) * grid.size[1] * grid.size[2];
  std::vector<PointField<R>> point_fields;
  const R* next = values->data();
  for (const auto& [name, count] : fields) {
    const OutputField* known = find_output_field(name);
    PointField<R> field{name, {}, scaling.si && known ? std::string(known->si_unit) : std::string(), {}};
    for (int c = 0; c < count; ++c, next += m) field.components.push_back(next);
    if (name == "reynolds_stress") {
      for (const TensorComponent& t : kTensorComponents) field.component_names.emplace_back(t.name);
    }
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) point_fields.push_back(field);
  }
  const double time = scaling.time(step);
  staged.write = [path, grid, point_fields, values, time, compression] {
    eddy::write_vti<R>(path, grid, point_fields, time, compression);
  };
  return staged;
}

#define EDDY_INSTANTIATE(R)                                                                                   \
  template void DiagnosticsAccumulator::add<R>(const R*, std::int64_t, std::int64_t, std::int64_t);           \
  template MacroscopicFields to_fields<R>(const std::vector<R>&, const Decomposition&);                       \
  template StagedPiece stage_piece_vti<R>(const std::string&, const OutputBox&, const OutputScaling&,         \
                                          const Decomposition&, const std::shared_ptr<const std::vector<R>>&, \
                                          const std::vector<std::pair<std::string, int>>&,                    \
                                          const std::vector<std::string>&, std::int64_t, VtkCompression);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
