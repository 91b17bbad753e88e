// io/case/output_selection.cpp: the lighter output of [output]: region and stride of the volume snapshots and the
// [[output.slice]] planes; the readers and the finalizer (metres to cells, inside the domain, node indices).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "io/case/sections.hpp"

namespace eddy::case_io {
namespace {

/// "output.slice[<n>]", how messages name the n-th [[output.slice]] table (from 0, in file order).
std::string slice_path(std::size_t n) { return "output.slice[" + std::to_string(n) + "]"; }

std::string length_text(double value, bool metres) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g %s", value, metres ? "m" : "cells");
  return text;
}

/// A name that is part of a file name: letters, digits, '_', '-', '.' (not "." or "..").
bool file_name_part(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

/// output.stride: one integer >= 1 for all axes, or [sx, sy, sz].
std::array<int, 3> read_stride(const Section& section) {
  const toml::node* node = section.find("stride");
  const std::string expected = "an integer >= 1, or three of them [sx, sy, sz] (every n-th node per axis)";
  std::array<std::int64_t, 3> values{};
  if (node->is_array()) {
    values = *section.integer3("stride");
  } else if (const auto one = as_integer(*node)) {
    values.fill(*one);
  } else {
    section.wrong_type("stride", expected);
  }
  std::array<int, 3> stride{};
  for (int a = 0; a < 3; ++a) {
    if (values[a] < 1 || values[a] > (1 << 30))
      section.fail("stride", section.quote("stride") + ": each must be from 1 to 2^30 = 1073741824 (every n-th node per axis)");
    stride[a] = int(values[a]);
  }
  return stride;
}

}  // namespace

void read_output_selection(const Section& output, CaseConfig& config) {
  if (output.has("region")) {
    const Section region = sub_section(output, "region");
    region.check_keys(section_keys("output.region"));
    const auto min = region.number3("min"), max = region.number3("max");
    if (!min || !max) {
      region.fail(min ? "max" : "min", "missing required key '" + region.path(min ? "max" : "min") +
                                           "': a region needs min = [x, y, z] and max = [x, y, z]");
    }
    config.output_region.given = true;
    config.output_region.min_as_given = *min;
    config.output_region.max_as_given = *max;
  }
  if (output.has("stride")) config.output_region.stride = read_stride(output);

  const toml::node* node = output.find("slice");
  if (!node) return;
  const auto* array = node->as_array();
  if (!array || !array->is_array_of_tables())
    output.wrong_type("slice", "an array of tables, one [[output.slice]] header per slice");
  for (std::size_t n = 0; n < array->size(); ++n) {
    const Section section(output.source(), (*array)[n].as_table(), slice_path(n));
    section.check_keys(section_keys("output.slice"));
    SliceConfig slice;
    const auto normal = section.choice<int>("normal", {{"x", 0}, {"y", 1}, {"z", 2}});
    if (!normal)
      section.fail("normal", "missing required key '" + section.path("normal") + "' (\"x\", \"y\" or \"z\")");
    slice.axis = *normal;
    const auto position = section.number("position");
    if (!position) {
      section.fail("position", "missing required key '" + section.path("position") +
                                   "' (where the plane cuts its normal axis; cells, or m under [units])");
    }
    slice.position_as_given = *position;
    if (const auto name = section.string("name")) {
      if (!file_name_part(*name)) {
        section.fail("name", section.quote("name") +
                                 " is not allowed: the name is part of the file names <case>_slice_<name>_<step>.vti; "
                                 "use letters, digits, '_', '-' and '.' (non-empty)");
      }
      slice.name = *name;
      slice.named = true;
    }
    if (const auto every = section.integer("every")) {
      require_in(section.entry("every"), *every, 0, kNoUpperBound,
                 "every must be >= 0 (steps between slices; 0 = the final state only)");
      slice.every = *every;
    }
    config.slices.push_back(std::move(slice));
  }
}

void finalize_output_selection(CaseConfig& config, const Source& source) {
  const bool metres = config.units.enabled;
  const double to_cells = metres ? 1.0 / config.units.dx : 1.0;
  OutputRegion& region = config.output_region;
  for (int a = 0; a < 3; ++a) {
    const int n = config.size[a];
    const std::string axis(1, "xyz"[a]);
    if (region.stride[a] < 1) {
      source.fail("output.stride",
                  "output.stride along " + axis + " = " + std::to_string(region.stride[a]) + " must be >= 1");
    }
    if (!region.given) {
      region.first[a] = 0;
      region.last[a] = n - 1;
      continue;
    }
    const double lo = region.min_as_given[a], hi = region.max_as_given[a];
    const double extent = metres ? n * config.units.dx : double(n);
    if (!(lo >= 0.0 && hi <= extent * (1.0 + 1e-12))) {
      source.fail("output.region", "output.region along " + axis + " = [" + length_text(lo, metres) + ", " +
                                       length_text(hi, metres) + "] lies outside the domain [0, " +
                                       length_text(extent, metres) + "]");
    }
    if (!(lo <= hi)) {
      source.fail("output.region", "output.region: min " + length_text(lo, metres) + " lies above max " +
                                       length_text(hi, metres) + " along " + axis);
    }
    // Node i sits at i + 0.5 cells: the nodes inside [lo, hi].
    const int first = std::max(0, int(std::ceil(lo * to_cells - 0.5 - 1e-9)));
    const int last = std::min(n - 1, int(std::floor(hi * to_cells - 0.5 + 1e-9)));
    if (first > last) {
      source.fail("output.region", "output.region along " + axis + " = [" + length_text(lo, metres) + ", " +
                                       length_text(hi, metres) + "] holds no node: nodes lie at the cell centres (" +
                                       length_text(0.5 / to_cells, metres) + ", " +
                                       length_text(1.5 / to_cells, metres) + ", ...); widen it to include one");
    }
    region.first[a] = first;
    region.last[a] = last;
  }

  std::set<std::string> names;
  for (std::size_t k = 0; k < config.slices.size(); ++k) {
    SliceConfig& slice = config.slices[k];
    const std::string path = slice_path(k);
    const int n = config.size[slice.axis];
    const double extent = metres ? n * config.units.dx : double(n);
    const double p = slice.position_as_given;
    if (!(p >= 0.0 && p <= extent * (1.0 + 1e-12))) {
      source.fail(path + ".position", path + ".position = " + length_text(p, metres) +
                                          " lies outside the domain: " + std::string(1, "xyz"[slice.axis]) +
                                          " must be in [0, " + length_text(extent, metres) + "]");
    }
    // A position on a cell face (k dx in metres, which may divide to k - 1e-16) belongs to cell k, as in cells.
    slice.index = std::clamp(int(std::floor(p * to_cells + 1e-9)), 0, n - 1);
    if (!slice.named) slice.name = std::string(1, "xyz"[slice.axis]) + std::to_string(slice.index);
    if (!names.insert(slice.name).second) {
      source.fail(path + ".name", path + ": the name '" + slice.name + "' is used by an earlier slice" +
                                      (slice.named ? "" : " (it is derived from the normal and the node layer)") +
                                      ": give each slice a name of its own");
    }
    if (slice.every < 0) slice.every = config.output_every;
  }
}

}  // namespace eddy::case_io
