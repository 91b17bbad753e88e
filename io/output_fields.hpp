// The output fields eddy can write, in one list: the case validation ([output] fields), the snapshot pieces
// (their point arrays, in this order), the .pvti, the SI units and the out-of-core path all read it.
#pragma once

#include <array>
#include <string_view>
#include <vector>

namespace eddy {

/// What a field is computed from.
enum class FieldSource {
  moments,   ///< rho and u, read out of the populations (density, velocity)
  stencil,   ///< finite differences of u on the device (kernels/stencil_launchers.hpp), ghost cells filled
  thermal,   ///< the temperature field of [thermal] (only with it)
  geometry,  ///< the case's solids, cell by cell on the host (solver/lattice_setup.hpp, solid_labels)
  /// the running sums of [statistics] (solver/flow_statistics.hpp); chosen by statistics.fields, not output.fields
  statistics,
};

/// One output field: its name in the case and in the VTK files, its components, its unit in SI output (empty:
/// the case's own units) and what it needs.
struct OutputField {
  std::string_view name;
  int components;
  std::string_view si_unit;
  FieldSource source;
};

/// Every output field, in the order a snapshot holds them.
inline constexpr std::array<OutputField, 13> kOutputFields = {{
    {"density", 1, "kg/m^3", FieldSource::moments},
    {"velocity", 3, "m/s", FieldSource::moments},
    {"vorticity", 3, "1/s", FieldSource::stencil},      // omega = curl u
    {"q_criterion", 1, "1/s^2", FieldSource::stencil},  // Q = (|Omega|^2 - |S|^2) / 2, Hunt, Wray & Moin 1988
    {"strain_rate", 1, "1/s", FieldSource::stencil},    // |S| = sqrt(2 S_ij S_ij)
    {"temperature", 1, "", FieldSource::thermal},
    {"solid", 1, "", FieldSource::geometry},  // 0 in fluid, 1 + k in the cells of [[solid]] k (file order)
    // [statistics] (cases/README.md, "Turbulence statistics"), <.> the average over the samples, u' = u - <u>:
    {"mean_velocity", 3, "m/s", FieldSource::statistics},          // <u>
    {"velocity_rms", 3, "m/s", FieldSource::statistics},           // sqrt(<u'_a u'_a>), a = x, y, z
    {"reynolds_stress", 6, "m^2/s^2", FieldSource::statistics},    // <u'_a u'_b>: xx, yy, zz, xy, xz, yz
    {"mean_density", 1, "kg/m^3", FieldSource::statistics},        // <rho>
    {"mean_pressure", 1, "Pa", FieldSource::statistics},           // c_s^2 (<rho> - rho0), as the outlets' pressure
    {"mean_temperature", 1, "", FieldSource::statistics},          // <T> (only with [thermal])
}};

/// The names of the components of the 6-component reynolds_stress array (a symmetric tensor written as its upper
/// triangle row by row after the diagonal; VTK's own order of symmetric tensors is xx, yy, zz, xy, yz, xz).
inline constexpr std::array<std::string_view, 6> kTensorComponents = {"xx", "yy", "zz", "xy", "xz", "yz"};

/// The field called `name`, or nullptr.
constexpr const OutputField* find_output_field(std::string_view name) {
  for (const OutputField& field : kOutputFields) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

/// The names of the fields [output] fields takes (every output field but the statistics), in snapshot order (for
/// messages and suggestions).
inline std::vector<std::string_view> output_field_names() {
  std::vector<std::string_view> names;
  for (const OutputField& field : kOutputFields)
    if (field.source != FieldSource::statistics) names.push_back(field.name);
  return names;
}

/// The names of the fields [statistics] fields takes, in snapshot order.
inline std::vector<std::string_view> statistics_field_names() {
  std::vector<std::string_view> names;
  for (const OutputField& field : kOutputFields)
    if (field.source == FieldSource::statistics) names.push_back(field.name);
  return names;
}

}  // namespace eddy
