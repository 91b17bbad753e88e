#include "solver/derived_fields.hpp"

#include <algorithm>

namespace eddy {

bool is_derived_field(const std::string& name) {
  return std::any_of(std::begin(kDerivedFields), std::end(kDerivedFields),
                     [&](const DerivedField& d) { return name == d.name; });
}

template <class R>
void run_derived_stencils(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* const (&out)[3],
                          const std::vector<std::string>& names, double rate,
                          const std::function<void(const R* component, double scale)>& take,
                          const backend::Stream* stream) {
  for (const DerivedField& d : kDerivedFields) {
    if (std::find(names.begin(), names.end(), d.name) == names.end()) continue;
    const std::string name = d.name;
    if (name == "vorticity") {
      vorticity(u, flags, shape, out, kStencilVariant, stream);
      for (const R* component : out) take(component, rate);
    } else if (name == "q_criterion") {
      q_criterion(u, flags, shape, out[0], kStencilVariant, stream);
      take(out[0], rate * rate);
    } else {
      strain_rate_magnitude(u, flags, shape, out[0], kStencilVariant, stream);
      take(out[0], rate);
    }
  }
}

#define EDDY_INSTANTIATE(R)                                                                                        \
  template void run_derived_stencils<R>(const R* const(&)[3], const FlagView&, const BlockShape&, R* const(&)[3], \
                                        const std::vector<std::string>&, double,                                  \
                                        const std::function<void(const R*, double)>&, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
