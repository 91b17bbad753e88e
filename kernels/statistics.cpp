// Running sum of a cell field for the time averages of [statistics] (solver/flow_statistics.hpp):
//   S(x) <- S(x) + phi(x, t_n),   <phi>(x) = S(x) / N after N samples t_1 .. t_N
// (the sample mean, e.g. Pope 2000, Turbulent Flows, eq. 3.2 and 3.10), summed in double whatever the field's
// precision, on the interior cells that are not solid: those the fused kernel updates, whose rho, u and u_a u_b it
// sums itself (StatisticsView, kernels/views.hpp). Used for the temperature T of [thermal], which the fused kernel
// only reads.
// Bytes per interior cell: 1 flag byte + sizeof(R) read; 8 B read and 8 B written on the non-solid ones.
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

}  // namespace

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
