// io/case/statistics.cpp: [statistics], the running averages of the flow (solver/flow_statistics.hpp): the reader
// (start or start_time, every, fields, average) and the finalizer (start_time to a step, the start inside the run,
// the fields' default and their need of [thermal], not out of core).

#include <algorithm>
#include <cmath>
#include <limits>

#include "io/case/sections.hpp"
#include "io/output_fields.hpp"

namespace eddy::case_io {
namespace {

/// statistics.every >= 1, in the file and in the struct.
void require_every(const Entry& entry, std::int64_t every) {
  require_in(entry, every, 1, kNoUpperBound, "every must be >= 1 (steps between samples; 1 = every step)");
}

/// statistics.start >= 0, in the file and in the struct.
void require_start(const Entry& entry, std::int64_t start) {
  require_in(entry, start, 0, kNoUpperBound, "start must be >= 0 (the first sampled step)");
}

/// The first step at or after `time` (steps, or s over dt): ceil(time / dt), where a quotient within 1e-9 (relative)
/// of a whole number counts as that number, so 0.5 s over dt = 1e-3 s is step 500 and not 501.
std::int64_t first_step_at(double time, double dt) {
  const double steps = time / dt;
  const double nearest = std::round(steps);
  const double rounded =
      std::abs(steps - nearest) <= 1e-9 * std::max(1.0, std::abs(steps)) ? nearest : std::ceil(steps);
  if (!(rounded < 9.0e18)) return std::numeric_limits<std::int64_t>::max();
  return std::int64_t(std::max(0.0, rounded));
}

/// statistics.fields: a non-empty array of statistics field names, each once.
std::vector<std::string> read_fields(const Section& section) {
  const std::vector<std::string_view> allowed = statistics_field_names();
  return section.distinct_names(
      "fields",
      [&](const std::string& field) {
        if (std::find(allowed.begin(), allowed.end(), field) != allowed.end()) return;
        const std::string why = find_output_field(field)
                                    ? " is an instantaneous output field, not a statistic: list it in [output] fields"
                                    : " is not a statistics field" + suggestion(field, allowed);
        section.fail("fields", section.quote("fields") + ": '" + field + "'" + why + "; allowed: " + join(allowed));
      },
      "statistics.fields = [] lists no field: name at least one of " + join(allowed) +
          ", or leave the key out for all that apply");
}

/// statistics.average: a non-empty array of distinct axis names "x", "y", "z".
std::array<bool, 3> read_average(const Section& section) {
  const std::vector<std::string_view> axes = {"x", "y", "z"};
  const toml::array* list = section.find("average")->as_array();
  if (!list) section.wrong_type("average", "an array of axis names, e.g. [\"x\", \"z\"]");
  if (list->empty()) {
    section.fail("average",
                 "statistics.average = [] lists no axis: name the homogeneous axes to average the profile "
                 "over (\"x\", \"y\", \"z\"), or leave the key out for no profile file");
  }
  std::array<bool, 3> average = {false, false, false};
  for (const toml::node& item : *list) {
    const auto* name = item.as_string();
    if (!name) section.wrong_type("average", "an array of axis names in double quotes, e.g. [\"x\", \"z\"]");
    const std::string axis = name->get();
    const auto at = std::find(axes.begin(), axes.end(), axis);
    if (at == axes.end()) {
      section.fail("average", section.quote("average") + ": '" + axis + "' is not an axis" + suggestion(axis, axes) +
                                  "; allowed: x, y, z");
    }
    const std::size_t a = std::size_t(at - axes.begin());
    if (average[a]) section.fail("average", section.quote("average") + ": '" + axis + "' is listed twice");
    average[a] = true;
  }
  return average;
}

}  // namespace

void read_statistics(const Section& section, CaseConfig& config) {
  if (!section.table()) return;
  section.check_keys(section_keys("statistics"));
  StatisticsConfig& s = config.statistics;
  s.enabled = true;
  if (section.has("start") && section.has("start_time")) {
    section.fail("start_time", "statistics.start = " + node_text(*section.find("start")) + " and " +
                                   section.quote("start_time") +
                                   " both give the first sample: keep one (start in steps, start_time in the case's "
                                   "time units)");
  }
  if (const auto start = section.integer("start")) {
    require_start(section.entry("start"), *start);
    s.start = *start;
  }
  if (const auto time = section.number("start_time")) {
    require_non_negative(section.entry("start_time"), *time,
                         config.units.enabled ? "the time of the first sample, in s" : "the first sample, in steps");
    s.start_time = *time;
  }
  if (const auto every = section.integer("every")) {
    require_every(section.entry("every"), *every);
    s.every = *every;
  }
  if (section.has("fields")) s.fields = read_fields(section);
  if (section.has("average")) s.average = read_average(section);
}

void finalize_statistics(CaseConfig& config, const Source& source) {
  StatisticsConfig& s = config.statistics;
  if (!s.enabled) return;
  require_every(Entry(source, "statistics.every", std::to_string(s.every)), s.every);
  const bool from_time = !std::isnan(s.start_time);
  if (from_time) {
    require_finite(source, "statistics.start_time", s.start_time);
    require_non_negative(Entry(source, "statistics.start_time", fmt(s.start_time)), s.start_time);
    s.start = first_step_at(s.start_time, config.units.enabled ? config.units.dt : 1.0);
  }
  require_start(Entry(source, "statistics.start", std::to_string(s.start)), s.start);
  if (s.start >= config.steps) {
    const std::string key = from_time ? "statistics.start_time" : "statistics.start";
    const std::string given =
        from_time ? fmt(s.start_time) + (config.units.enabled ? " s (step " : " (step ") + std::to_string(s.start) + ")"
                  : std::to_string(s.start);
    source.fail(key, key + " = " + given +
                         " lies at or past the run's end (run.steps = " + std::to_string(config.steps) +
                         "): no step would be sampled; the last step that can be is run.steps - 1 = " +
                         std::to_string(config.steps - 1));
  }
  // The fields: all that apply by default, otherwise as listed; kept in kOutputFields order (the snapshots' order).
  std::vector<std::string> wanted = s.fields;
  if (wanted.empty()) {
    for (std::string_view name : statistics_field_names()) {
      if (name != "mean_temperature" || config.thermal.enabled) wanted.emplace_back(name);
    }
  }
  const std::vector<std::string_view> allowed = statistics_field_names();
  std::vector<std::string> ordered;
  for (std::string_view name : allowed) {
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) ordered.emplace_back(name);
  }
  for (const std::string& name : wanted) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      source.fail("statistics.fields", "statistics.fields: '" + name + "' is not a statistics field" +
                                           suggestion(name, allowed) + "; allowed: " + join(allowed));
    }
  }
  if (!config.thermal.enabled && std::find(ordered.begin(), ordered.end(), "mean_temperature") != ordered.end()) {
    source.fail("statistics.fields",
                "statistics.fields: \"mean_temperature\" needs a [thermal] section (the temperature field is only "
                "solved with it): add [thermal] or remove \"mean_temperature\"");
  }
  s.fields = ordered;
  if (config.out_of_core.mode == OutOfCoreMode::on) {
    source.fail(source.overridden("numerics.out_of_core") ? "numerics.out_of_core" : "statistics",
                "[statistics] is available in core only: numerics.out_of_core = true keeps the populations in host "
                "memory and advances each z-slab several steps per visit, so no step's moments of the whole block "
                "are on the device to add to the running sums; set numerics.out_of_core = false (or \"auto\", which "
                "stays in core with [statistics]) or remove [statistics]");
  }
}

}  // namespace eddy::case_io
