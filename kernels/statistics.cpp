// Running sum of a cell field for the time averages of [statistics] (solver/flow_statistics.hpp):
//   S(x) <- S(x) + phi(x, t_n),   <phi>(x) = S(x) / N after N samples t_1 .. t_N
// (the sample mean, e.g. Pope 2000, Turbulent Flows, eq. 3.2 and 3.10), summed in double whatever the field's
// precision, on the interior cells that are not solid: those the fused kernel updates, whose rho, u and u_a u_b it
// sums itself (StatisticsView, kernels/views.hpp). Used for the temperature T of [thermal], which the fused kernel
// only reads.
// Bytes per interior cell: 1 flag byte + sizeof(R) read; 8 B read and 8 B written on the non-solid ones.
// The read-out of an average (statistics_readout): the cell's averages from its sums by the pure functions of
// kernels/statistics_values.hpp, into a contiguous array of the interior cells. Bytes per interior cell: 1 flag byte
// read, up to 10 sums of 8 B read, up to 6 values of 8 B written.
#include <limits>

#include "kernels/parallel_for.hpp"
#include "kernels/statistics_launchers.hpp"

namespace eddy {
namespace {

template <class R>
struct AccumulateField {
  const R* field;
  FlagView flags;
  BlockShape shape;
  double* sum;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    if (is_solid(flags.flag[cell])) return;
    sum[cell] += double(field[cell]);
  }
};

struct StatisticsReadout {
  const double* sums;
  FlagView flags;
  BlockShape shape;
  StatisticsQuantity quantity;
  double inverse;  // 1 / N; NaN before the first sample
  int temperature_component;
  StatisticsUnits units;
  double* out;

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = shape.index(x, y, z);
    const std::int64_t interior = shape.interior_cells();
    const std::int64_t k = (x - 1) + std::int64_t(shape.n[0]) * ((y - 1) + std::int64_t(shape.n[1]) * (z - 1));
    const int components = statistics_components(quantity);
    if (!(inverse == inverse) || is_solid(flags.flag[cell])) {  // NaN everywhere before a sample, 0 in solids
      for (int c = 0; c < components; ++c) out[c * interior + k] = inverse == inverse ? 0.0 : inverse;
      return;
    }
    statistics_values(quantity, sums + cell, shape.n_cells(), inverse, temperature_component, units, out + k,
                      interior);
  }
};

}  // namespace

void statistics_readout(const double* sums, const FlagView& flags, const BlockShape& shape,
                        StatisticsQuantity quantity, std::int64_t samples, int temperature_component,
                        const StatisticsUnits& units, double* out, const backend::Stream* stream) {
  const double inverse = samples > 0 ? 1.0 / double(samples) : std::numeric_limits<double>::quiet_NaN();
  parallel_for(shape.interior(),
               StatisticsReadout{sums, flags, shape, quantity, inverse, temperature_component, units, out},
               "statistics_readout", stream);
}

template <class R>
void accumulate_cell_field(const R* field, const FlagView& flags, const BlockShape& shape, double* sum,
                           const backend::Stream* stream) {
  parallel_for(shape.interior(), AccumulateField<R>{field, flags, shape, sum}, "accumulate_cell_field", stream);
}

template void accumulate_cell_field<float>(const float*, const FlagView&, const BlockShape&, double*,
                                           const backend::Stream*);
template void accumulate_cell_field<double>(const double*, const FlagView&, const BlockShape&, double*,
                                            const backend::Stream*);

}  // namespace eddy
