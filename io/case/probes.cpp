// io/case/probes.cpp: [[output.probe]], points whose fields are sampled into a CSV time series (solver/probes.hpp):
// the reader (names, points, interval, fields) and the finalizer (metres to cells, points inside the domain,
// temperature only with [thermal]).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "io/case/sections.hpp"
#include "io/output_fields.hpp"

namespace eddy::case_io {
namespace {

/// "output.probe[<n>]", how messages name the n-th [[output.probe]] table (from 0, in file order).
std::string probe_path(std::size_t n) { return "output.probe[" + std::to_string(n) + "]"; }

/// The fields a probe can take: those computed cell by cell from the moments or the temperature.
std::vector<std::string_view> probe_field_names() {
  std::vector<std::string_view> names;
  for (const OutputField& f : kOutputFields)
    if (f.source == FieldSource::moments || f.source == FieldSource::thermal) names.push_back(f.name);
  return names;
}

std::string point_text(const std::array<double, 3>& p) {
  char text[128];
  std::snprintf(text, sizeof text, "[%.9g, %.9g, %.9g]", p[0], p[1], p[2]);
  return text;
}

/// probe.points: a non-empty array of [x, y, z] numbers, finite.
std::vector<std::array<double, 3>> read_points(const Section& section) {
  const toml::node* node = section.find("points");
  if (!node) section.fail("points", "missing required key '" + section.path("points") + "' (an array of [x, y, z])");
  const auto* list = node->as_array();
  const std::string expected = "a non-empty array of points [[x, y, z], ...]";
  if (!list || list->empty()) section.wrong_type("points", expected);
  std::vector<std::array<double, 3>> points;
  for (std::size_t k = 0; k < list->size(); ++k) {
    const auto* xyz = (*list)[k].as_array();
    if (!xyz || xyz->size() != 3) section.wrong_type("points", expected);
    std::array<double, 3> p{};
    for (std::size_t a = 0; a < 3; ++a) {
      const auto v = as_number((*xyz)[a]);
      if (!v) section.wrong_type("points", expected + " of numbers");
      if (!std::isfinite(*v))
        section.fail("points", section.quote("points") + ": point " + std::to_string(k) + " is not finite");
      p[a] = *v;
    }
    points.push_back(p);
  }
  return points;
}

std::vector<std::string> read_fields(const Section& section) {
  const std::vector<std::string_view> allowed = probe_field_names();
  if (!section.has("fields")) return {"density", "velocity"};
  return section.distinct_names("fields", [&](const std::string& field) {
    if (std::find(allowed.begin(), allowed.end(), field) != allowed.end()) return;
    const std::string why = find_output_field(field) ? " is an output field a probe cannot sample (it is not a "
                                                       "cell's own value)"
                                                     : " is not a probe field" + suggestion(field, allowed);
    section.fail("fields", section.quote("fields") + ": '" + field + "'" + why + "; allowed: " + join(allowed));
  });
}

}  // namespace

void read_probes(const Section& output, CaseConfig& config) {
  const toml::node* node = output.find("probe");
  if (!node) return;
  const auto* array = node->as_array();
  if (!array || !array->is_array_of_tables())
    output.wrong_type("probe", "an array of tables, one [[output.probe]] header per probe");
  std::set<std::string> seen;
  for (std::size_t n = 0; n < array->size(); ++n) {
    const Section section(output.source(), (*array)[n].as_table(), probe_path(n));
    section.check_keys(section_keys("output.probe"));
    ProbeConfig probe;
    const auto name = section.string("name");
    if (!name) section.fail("name", "missing required key '" + section.path("name") + "' (names the probe's file)");
    const bool ok = !name->empty() && *name != "." && *name != ".." &&
                    std::all_of(name->begin(), name->end(), [](unsigned char ch) {
                      return std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
                    });
    if (!ok)
      section.fail("name", section.quote("name") +
                               " is not allowed: the name is part of the file name <case>_probe_<name>.csv; use "
                               "letters, digits, '_', '-' and '.' (non-empty)");
    if (!seen.insert(*name).second)
      section.fail("name", section.quote("name") + " is used by an earlier probe: each needs a name of its own");
    probe.name = *name;
    probe.points = read_points(section);
    probe.points_as_given = probe.points;
    if (const auto every = section.integer("every")) {
      require_in(section.entry("every"), *every, 1, kNoUpperBound, "every must be >= 1 (steps between samples)");
      probe.every = *every;
    }
    probe.fields = read_fields(section);
    config.probes.push_back(std::move(probe));
  }
}

void finalize_probes(CaseConfig& config, const Source& source) {
  const bool metres = config.units.enabled;
  if (!config.probes.empty() && config.out_of_core.mode == OutOfCoreMode::on) {
    source.fail("output.probe",
                "[[output.probe]] is available in core only, and numerics.out_of_core = true keeps "
                "the populations in host memory, where no copy of the fields stays on the device to "
                "sample a few cells from; set numerics.out_of_core = false (or \"auto\") or drop "
                "the probes");
  }
  for (std::size_t n = 0; n < config.probes.size(); ++n) {
    ProbeConfig& probe = config.probes[n];
    const std::string path = probe_path(n);
    if (probe.every < 1)
      source.fail(path + ".every", path + ".every = " + std::to_string(probe.every) + " must be >= 1");
    for (const std::string& field : probe.fields) {
      if (field == "temperature" && !config.thermal.enabled)
        source.fail(path + ".fields", path + ".fields: \"temperature\" needs a [thermal] section");
    }
    if (probe.points_as_given.size() != probe.points.size()) probe.points_as_given = probe.points;
    for (std::size_t k = 0; k < probe.points.size(); ++k) {
      std::array<double, 3>& p = probe.points[k];
      p = probe.points_as_given[k];
      if (metres)
        for (double& x : p) x /= config.units.dx;
      for (int a = 0; a < 3; ++a) {
        const double n_a = double(config.size[a]);
        if (!(p[a] >= 0.0 && p[a] <= n_a)) {
          char limit[160];
          std::snprintf(limit, sizeof limit, "%.9g", metres ? n_a * config.units.dx : n_a);
          source.fail(path + ".points", path + ".points of '" + probe.name + "': point " + std::to_string(k) + " = " +
                                            point_text(probe.points_as_given[k]) + " lies outside the domain (" +
                                            "xyz"[a] + " must be in [0, " + limit + "] " + (metres ? "m" : "cells") +
                                            ")");
        }
      }
    }
  }
}

}  // namespace eddy::case_io
