// The stencil output fields (solver/derived_fields.hpp).
#include "solver/derived_fields.hpp"

#include <algorithm>

#include "io/output_fields.hpp"

namespace eddy {

namespace {

bool wanted(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

bool is_derived_field(const std::string& name) {
  const OutputField* field = find_output_field(name);
  return field != nullptr && field->source == FieldSource::stencil;
}

int derived_components(const std::vector<std::string>& names) {
  int components = 0;
  for (const OutputField& field : kOutputFields) {
    if (field.source == FieldSource::stencil && wanted(names, field.name)) components += field.components;
  }
  return components;
}

template <class R>
void run_derived_stencils(const R* const (&u)[3], const OuterLayerView<R>& outer, const FlagView& flags,
                          const BlockShape& shape, R* const (&out)[3], const std::vector<std::string>& names,
                          double rate, const std::function<void(const R* component, double scale)>& take,
                          const backend::Stream* stream) {
  for (const OutputField& field : kOutputFields) {
    if (field.source != FieldSource::stencil || !wanted(names, field.name)) continue;
    if (field.name == "vorticity") {
      vorticity(u, flags, shape, out, kStencilVariant, stream, outer);
      for (const R* component : out) take(component, rate);
    } else if (field.name == "q_criterion") {
      q_criterion(u, flags, shape, out[0], kStencilVariant, stream, outer);
      take(out[0], rate * rate);
    } else if (field.name == "strain_rate") {
      strain_rate_magnitude(u, flags, shape, out[0], kStencilVariant, stream, outer);
      take(out[0], rate);
    }
  }
}

#define EDDY_INSTANTIATE(R)                                                                                         \
  template void run_derived_stencils<R>(const R* const(&)[3], const OuterLayerView<R>&, const FlagView&,            \
                                        const BlockShape&, R* const(&)[3], const std::vector<std::string>&, double, \
                                        const std::function<void(const R*, double)>&, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
