// io/case/schema.cpp: the case-file schema (sections and keys) and the suggestion for a misspelt name.

#include "io/case/schema.hpp"

#include <algorithm>
#include <utility>

namespace eddy {

const std::vector<CaseSection>& case_file_schema() {
  static const std::vector<CaseSection> sections = {
      {"case", {"name"}},
      {"domain", {"size", "periodic"}},
      {"boundary", {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"}},
      {"physics", {"velocity", "length", "reynolds", "tau", "viscosity", "body_force"}},
      {"initial", {"type", "amplitude", "perturbation"}},
      {"numerics",
       {"collision", "magic", "min_tau", "les", "smagorinsky_constant", "storage", "out_of_core", "device_memory_limit",
        "time_block", "slabs"}},
      {"run", {"steps", "report_every"}},
      {"output", {"every", "directory", "vtk", "centerlines", "fields", "probe", "energy_every", "compression",
                  "region", "stride", "slice", "asynchronous"}},
      {"output.probe", {"name", "points", "every", "fields"}, true},
      {"output.region", {"min", "max"}},
      {"output.slice", {"name", "normal", "position", "every"}, true},
      {"parallel", {"ranks", "transport", "overlap", "device"}},
      {"checkpoint", {"every", "directory"}},
      {"units", {"length", "dx", "velocity", "viscosity", "density", "lattice_velocity"}},
      {"particles",
       {"kind", "count", "box_min", "box_max", "seed", "positions", "diameter", "density", "gravity", "two_way",
        "walls", "contacts", "contact_stiffness", "contact_damping", "contact_search", "pair_force", "gravity_constant",
        "softening"}},
      {"thermal",
       {"prandtl", "rayleigh", "gravity", "reference_temperature", "temperature_difference", "initial_temperature",
        "perturbation"}},
      {"solid",
       {"name", "shape", "center", "radius", "start", "end", "min", "max", "rotate", "mesh", "scale", "translate",
        "repair", "voxels", "dimensions", "offset", "array", "wall", "forces", "reference_area", "reference_velocity",
        "reference_length", "drag_direction", "lift_direction"},
       true},
      {"forces", {"every", "statistics_from"}},
      {"statistics", {"start", "start_time", "every", "fields", "average"}},
  };
  return sections;
}

const std::vector<std::string_view>& boundary_face_keys() {
  static const std::vector<std::string_view> keys = {
      "type", "velocity",  "temperature", "profile",  "mean_velocity", "max_velocity",
      "file", "ramp_time", "density",     "pressure", "scheme",        "convection_velocity", "sponge", "sponge_tau"};
  return keys;
}

const std::vector<std::string_view>& boundary_type_keys(std::string_view type) {
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> types = {
      {"wall", {"type", "temperature"}},
      {"moving_wall", {"type", "velocity", "temperature"}},
      {"velocity_inlet",
       {"type", "profile", "velocity", "mean_velocity", "max_velocity", "file", "ramp_time", "sponge", "sponge_tau"}},
      {"pressure_outlet", {"type", "density", "pressure", "sponge", "sponge_tau"}},
      {"outflow", {"type", "scheme", "convection_velocity", "sponge", "sponge_tau"}},
      {"free_slip", {"type"}},
  };
  for (const auto& [name, keys] : types) {
    if (name == type) return keys;
  }
  static const std::vector<std::string_view> none;
  return none;
}

namespace case_io {

std::vector<std::string_view> section_names() {
  std::vector<std::string_view> names;
  for (const auto& section : case_file_schema()) names.push_back(section.name);
  return names;
}

const std::vector<std::string_view>& section_keys(std::string_view name) {
  for (const auto& section : case_file_schema()) {
    if (section.name == name) return section.keys;
  }
  static const std::vector<std::string_view> none;
  return none;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// " (did you mean 'x'?)" for the closest allowed name within two edits, else "".
std::string suggestion(std::string_view given, const std::vector<std::string_view>& allowed) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (auto candidate : allowed) {
    const std::size_t distance = edit_distance(given, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + std::string(best) + "'?)";
}

}  // namespace case_io
}  // namespace eddy
