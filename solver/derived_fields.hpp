// Output fields derived from the velocity by finite differences (kernels/stencil_launchers.hpp): the fields of
// io/output_fields.hpp whose source is FieldSource::stencil, and how their stencils are run on a block.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kernels/block.hpp"
#include "kernels/stencil_launchers.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// True when `name` is an output field computed by stencils (FieldSource::stencil in kOutputFields).
bool is_derived_field(const std::string& name);

/// Components of the stencil fields among `names`, summed (vorticity 3, q_criterion 1, strain_rate 1).
int derived_components(const std::vector<std::string>& names);

/// Stencil kernels of the derived fields: the shared-memory tiled variant, measured faster on the H200 than the
/// plain one (vorticity 20 % / 6 %, Q-criterion 38 % / 27 % at 256^3 / 512^3; docs/performance.md).
inline constexpr StencilVariant kStencilVariant = StencilVariant::tiled;

/// Runs the stencils of the fields among `names`, in kOutputFields order, on the velocity `u` (cell fields of
/// `shape`, ghost cells filled, with its outer layer `outer`: kernels/stencil_launchers.hpp) into the cell fields `out`
/// (3, reused from field to field), and after each field calls take(component, scale) for each of its components: scale
/// = rate for vorticity and |S|, rate^2 for Q
/// (`rate`: 1 / step in output units). Device work is queued on `stream`; take is called after it is queued.
template <class R>
void run_derived_stencils(const R* const (&u)[3], const OuterLayerView<R>& outer, const FlagView& flags,
                          const BlockShape& shape, R* const (&out)[3], const std::vector<std::string>& names,
                          double rate, const std::function<void(const R* component, double scale)>& take,
                          const backend::Stream* stream);

}  // namespace eddy
