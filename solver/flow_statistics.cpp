// FlowStatistics and the statistics fields derived from its sums (solver/flow_statistics.hpp).
#include "solver/flow_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "io/output_fields.hpp"

namespace eddy {

int statistics_components(const CaseConfig& config) {
  const StatisticsConfig& s = config.statistics;
  if (!s.enabled) return 0;
  return (s.second_moments() ? StatisticsView::kAllMoments : StatisticsView::kFirstMoments) +
         (s.wants("mean_temperature") ? 1 : 0);
}

StatisticsQuantity statistics_quantity(std::string_view name, bool second_moments, bool temperature) {
  const OutputField* field = find_output_field(name);
  if (!field || field->source != FieldSource::statistics) {
    std::string names;
    for (std::string_view known : statistics_field_names()) names += (names.empty() ? "" : ", ") + std::string(known);
    throw std::invalid_argument("'" + std::string(name) + "' is not a statistics field (they are " + names + ")");
  }
  const bool second = name == "velocity_rms" || name == "reynolds_stress";
  if (second && !second_moments) {
    throw std::invalid_argument("the statistics hold no " + std::string(name) +
                                ": add \"velocity_rms\" or \"reynolds_stress\" to [statistics] fields (then the "
                                "products u_a u_b are summed too)");
  }
  if (name == "mean_temperature" && !temperature) {
    throw std::invalid_argument(
        "the statistics hold no mean_temperature: it needs [thermal] and \"mean_temperature\" in [statistics] fields");
  }
  return name == "mean_velocity"     ? StatisticsQuantity::mean_velocity
         : name == "velocity_rms"    ? StatisticsQuantity::velocity_rms
         : name == "reynolds_stress" ? StatisticsQuantity::reynolds_stress
         : name == "mean_density"    ? StatisticsQuantity::mean_density
         : name == "mean_pressure"   ? StatisticsQuantity::mean_pressure
                                     : StatisticsQuantity::mean_temperature;
}

std::vector<double> statistics_field_values(const StatisticsSums& s, std::string_view name,
                                            const StatisticsScaling& scaling) {
  const StatisticsQuantity quantity = statistics_quantity(name, s.second_moments, s.temperature);
  const std::int64_t n = s.cells;
  std::vector<double> out(std::size_t(statistics_components(quantity)) * std::size_t(n), 0.0);
  if (s.samples == 0) {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    return out;
  }
  const double inverse = 1.0 / double(s.samples);
  const StatisticsUnits units{1.0 / scaling.velocity, scaling.density};
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    if (!s.fluid[std::size_t(k)]) continue;  // 0 in solid cells, as the moment read-outs
    statistics_values(quantity, s.sums.data() + k, n, inverse, s.temperature_component(), units, out.data() + k, n);
  }
  return out;
}

FlowStatistics::FlowStatistics(const StatisticsConfig& config, const BlockShape& shape,
                               const std::vector<CellFlag>& flags, bool thermal)
    : shape_(shape),
      start_(config.start),
      every_(std::max<std::int64_t>(1, config.every)),
      second_moments_(config.second_moments()),
      temperature_(thermal && config.wants("mean_temperature")),
      sums_(std::size_t(components()) * std::size_t(shape.n_cells())) {
  fluid_.resize(std::size_t(shape.interior_cells()));
  std::int64_t k = 0;
  for (int z = 1; z <= shape.n[2]; ++z)
    for (int y = 1; y <= shape.n[1]; ++y)
      for (int x = 1; x <= shape.n[0]; ++x) fluid_[std::size_t(k++)] = is_solid(flags[shape.index(x, y, z)]) ? 0 : 1;
  reset();
}

void FlowStatistics::reset() {
  const std::vector<double> zero(std::size_t(shape_.n_cells()), 0.0);
  backend::synchronize();
  for (int c = 0; c < components(); ++c) {
    backend::copy_to_device(sums_.data() + std::int64_t(c) * shape_.n_cells(), zero.data(),
                            zero.size() * sizeof(double));
  }
  samples_ = 0;
  first_step_ = -1;
}

StatisticsSums FlowStatistics::host_sums() const {
  StatisticsSums s;
  s.cells = shape_.interior_cells();
  s.samples = samples_;
  s.first_step = first_step_;
  s.second_moments = second_moments_;
  s.temperature = temperature_;
  s.fluid = fluid_;
  s.sums.resize(std::size_t(components()) * std::size_t(s.cells));
  std::vector<double> block(std::size_t(shape_.n_cells()));
  backend::synchronize();
  for (int c = 0; c < components(); ++c) {  // one component at a time: the host holds one block field extra
    backend::copy_to_host(block.data(), sums_.data() + std::int64_t(c) * shape_.n_cells(),
                          block.size() * sizeof(double));
    double* to = s.sums.data() + std::int64_t(c) * s.cells;
    for (int z = 1; z <= shape_.n[2]; ++z)
      for (int y = 1; y <= shape_.n[1]; ++y)
        for (int x = 1; x <= shape_.n[0]; ++x) *to++ = block[std::size_t(shape_.index(x, y, z))];
  }
  return s;
}

std::vector<unsigned char> FlowStatistics::interior_bytes() const {
  const std::vector<double> sums = host_sums().sums;
  std::vector<unsigned char> bytes(sums.size() * sizeof(double));
  std::memcpy(bytes.data(), sums.data(), bytes.size());
  return bytes;
}

void FlowStatistics::restore(const std::vector<unsigned char>& bytes, std::int64_t samples, std::int64_t first_step) {
  const std::int64_t n = shape_.interior_cells();
  if (bytes.size() != std::size_t(components()) * std::size_t(n) * sizeof(double) || samples < 0) {
    throw std::invalid_argument("statistics: " + std::to_string(bytes.size()) +
                                " bytes of sums do not fit this block (" + std::to_string(components()) +
                                " sums per cell)");
  }
  std::vector<double> block(std::size_t(shape_.n_cells()), 0.0);
  backend::synchronize();
  for (int c = 0; c < components(); ++c) {
    const unsigned char* from = bytes.data() + std::size_t(c) * std::size_t(n) * sizeof(double);
    std::int64_t k = 0;
    for (int z = 1; z <= shape_.n[2]; ++z)
      for (int y = 1; y <= shape_.n[1]; ++y)
        for (int x = 1; x <= shape_.n[0]; ++x, ++k)
          std::memcpy(&block[std::size_t(shape_.index(x, y, z))], from + std::size_t(k) * sizeof(double),
                      sizeof(double));
    backend::copy_to_device(sums_.data() + std::int64_t(c) * shape_.n_cells(), block.data(),
                            block.size() * sizeof(double));
  }
  samples_ = samples;
  first_step_ = samples > 0 ? first_step : -1;
}

}  // namespace eddy
