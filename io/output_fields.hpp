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
    {"reynolds_stress", 6, "m^2/s^2", FieldSource::statistics},    // <u'_a u'_b>: xx, yy, zz, xy, yz, xz
    {"mean_density", 1, "kg/m^3", FieldSource::statistics},        // <rho>
    {"mean_pressure", 1, "Pa", FieldSource::statistics},           // c_s^2 (<rho> - rho0), as the outlets' pressure
    {"mean_temperature", 1, "", FieldSource::statistics},          // <T> (only with [thermal])
}};

/// One component of a symmetric tensor: T_ab and its name.
struct TensorComponent {
  int a, b;
  std::string_view name;
};
/// The components of the 6-component reynolds_stress array, in VTK's order of symmetric tensors, xx, yy, zz, xy, yz,
/// xz (vtkMath::TensorFromSymmetricTensor), so that ParaView's tensor filters (eigenvalues, tensor glyphs) read the
/// array as the tensor it is; the statistics' CSV profile has its columns in the same order.
inline constexpr std::array<TensorComponent, 6> kTensorComponents = {
    {{0, 0, "xx"}, {1, 1, "yy"}, {2, 2, "zz"}, {0, 1, "xy"}, {1, 2, "yz"}, {0, 2, "xz"}}};

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
