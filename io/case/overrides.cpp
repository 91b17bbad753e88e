// io/case/overrides.cpp: --set overrides (io/case/overrides.hpp).

#include "io/case/overrides.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "io/case/section.hpp"
#include "io/case/toml_guards.hpp"

namespace eddy::case_io {
namespace {

/// `text` cut to about 80 characters for messages (a --set may be arbitrarily long).
std::string abbreviated(const std::string& text) {
  return text.size() <= 80 ? text : text.substr(0, 60) + "... (" + std::to_string(text.size()) + " characters)";
}

[[noreturn]] void bad_override(const Source& source, const std::string& text, const std::string& why) {
  source.fail("", "bad --set '" + text + "': " + why);
}

std::vector<std::string> split_override_key(const Source& source, const std::string& text, const std::string& key) {
  std::vector<std::string> path;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    const std::string segment = trim(std::string_view(key).substr(start, dot == std::string::npos ? dot : dot - start));
    const bool bare = !segment.empty() && std::all_of(segment.begin(), segment.end(), [](unsigned char ch) {
      return std::isalnum(ch) || ch == '_' || ch == '-';
    });
    if (!bare) {
      bad_override(source, text,
                   segment.empty() ? "the key has an empty part; expected SECTION.KEY=VALUE, e.g. run.steps=100"
                                   : "key part '" + segment + "' may only contain letters, digits, '_' and '-'");
    }
    path.push_back(segment);
    if (dot == std::string::npos) return path;
    start = dot + 1;
  }
}

/// An override that fixes one quantity replaces the file's keys that fix the same quantity, so that e.g.
/// `--set physics.reynolds=400` works on a case that gives tau, and `--set boundary.y_max.type="wall"` on a lid
/// (its temperature stays: any wall may have one). Keys set by an earlier --set are kept (two conflicting --set are
/// reported by validation).
void drop_superseded(toml::table& parent, const std::vector<std::string>& path, const toml::node& value,
                     const Source& source) {
  const auto drop = [&](std::string_view key) {
    std::string dotted;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) dotted += path[i] + ".";
    if (!source.overridden(dotted + std::string(key))) parent.erase(key);
  };
  if (path.size() == 2 && path[0] == "physics") {
    const std::vector<std::string_view> viscosity_keys = {"reynolds", "tau", "viscosity"};
    if (std::find(viscosity_keys.begin(), viscosity_keys.end(), path[1]) != viscosity_keys.end()) {
      for (auto key : viscosity_keys) {
        if (key != path[1]) drop(key);
      }
    }
  }
  // A face's type drops the file's keys the new type does not take (a lid's velocity, an inlet's profile keys, a
  // wall temperature when the face becomes open).
  if (path.size() == 3 && path[0] == "boundary" && path[2] == "type") {
    const auto& kept = boundary_type_keys(value.value<std::string>().value_or(""));
    if (!kept.empty()) {
      for (auto key : boundary_face_keys()) {
        if (std::find(kept.begin(), kept.end(), key) == kept.end()) drop(key);
      }
    }
  }
  // [units]: the SI length and the cell size fix the same thing.
  if (path.size() == 2 && path[0] == "units") {
    if (path[1] == "dx") drop("length");
    if (path[1] == "length") drop("dx");
  }
  // [numerics]: out_of_core = false drops the file's keys that only out-of-core runs use.
  if (path.size() == 2 && path[0] == "numerics" && path[1] == "out_of_core" && value.value<bool>() == false) {
    for (std::string_view key : {"device_memory_limit", "time_block", "slabs"}) drop(key);
  }
  // [particles]: random seeding (count, with seed, box_min, box_max) and a positions file exclude each other.
  if (path.size() == 2 && path[0] == "particles") {
    if (path[1] == "count") drop("positions");
    if (path[1] == "positions") {
      for (std::string_view key : {"count", "seed", "box_min", "box_max"}) drop(key);
    }
    // Switching a feature off drops the file's keys that only that feature uses.
    if (path[1] == "contacts" && value.value<bool>() == false) {
      for (std::string_view key : {"contact_stiffness", "contact_damping", "contact_search"}) drop(key);
    }
    if (path[1] == "pair_force" && value.value<std::string>() == "none") {
      for (std::string_view key : {"gravity_constant", "softening"}) drop(key);
    }
    if (path[1] == "kind" && value.value<std::string>() == "tracer") {
      for (std::string_view key : {"density", "gravity", "two_way", "contacts", "contact_stiffness", "contact_damping",
                                   "contact_search", "pair_force", "gravity_constant", "softening"}) {
        drop(key);
      }
    }
  }
}

/// `--set domain.periodic=[...]` replaces the file's [boundary.<face>] tables on the axes it makes periodic.
void drop_boundaries_on_periodic_axes(toml::table& root, const std::vector<std::string>& path, const toml::node& value,
                                      const Source& source) {
  const auto* periodic = value.as_array();
  auto* boundary = root["boundary"].as_table();
  if (path != std::vector<std::string>{"domain", "periodic"} || !periodic || !boundary) return;
  for (std::size_t axis = 0; axis < 3 && axis < periodic->size(); ++axis) {
    if ((*periodic)[axis].value<bool>() != true) continue;
    for (std::size_t side = 0; side < 2; ++side) {
      const std::string face = kFaceNames[2 * axis + side];
      bool overridden = false;
      overridden = source.overridden("boundary." + face);
      for (auto key : boundary_face_keys()) {
        overridden = overridden || source.overridden("boundary." + face + "." + std::string(key));
      }
      if (!overridden) boundary->erase(face);
    }
  }
}

}  // namespace

/// Applies one "section.key=value" override to the parsed tree (creating missing tables).
void apply_override(toml::table& root, const std::string& text, Source& source) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) bad_override(source, text, "expected KEY=VALUE, e.g. run.steps=100");
  const std::string key = trim(std::string_view(text).substr(0, equals));
  const std::string value = trim(std::string_view(text).substr(equals + 1));
  if (key.empty()) bad_override(source, text, "the key is empty; expected SECTION.KEY=VALUE, e.g. run.steps=100");
  const std::vector<std::string> path = split_override_key(source, text, key);
  if (path.size() > std::size_t(kMaxKeyParts)) {
    bad_override(source, abbreviated(text),
                 "key nesting deeper than " + std::to_string(kMaxKeyParts) + " levels (the key has " +
                     std::to_string(path.size()) + " dot-separated parts)");
  }
  const std::string quoting_hint =
      "values are written as in TOML: strings need quotes, e.g. --set 'output.directory=\"out\"'";
  if (value.empty()) bad_override(source, text, "the value is empty; " + quoting_hint);

  const std::string value_text = "v = " + value + "\n";
  if (deep_key_line(value_text)) {  // e.g. an inline table {a.a.a... = 1}
    bad_override(source, abbreviated(text),
                 "key nesting deeper than " + std::to_string(kMaxKeyParts) + " levels in the value");
  }
  if (const auto found = unsafe_non_ascii(value_text)) bad_override(source, text, non_ascii_problem(*found));
  toml::table parsed;
  try {
    parsed = toml::parse(value_text, std::string_view("--set"));
  } catch (const toml::parse_error& e) {
    bad_override(source, text,
                 "'" + value + "' is not a TOML value (" + std::string(e.description()) + "); " + quoting_hint);
  }
  if (parsed.size() != 1 || !parsed.contains("v")) bad_override(source, text, "expected a single TOML value");

  toml::table* table = &root;
  std::string dotted;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    dotted += (i > 0 ? "." : "") + path[i];
    toml::node* node = table->get(path[i]);
    if (!node) {
      table->insert(path[i], toml::table{});
      node = table->get(path[i]);
    }
    table = node->as_table();
    if (!table) bad_override(source, text, "'" + dotted + "' is " + type_name(*node) + ", not a table");
  }
  toml::node& new_value = *parsed.get("v");
  drop_superseded(*table, path, new_value, source);
  drop_boundaries_on_periodic_axes(root, path, new_value, source);
  new_value.visit([&](auto& v) { table->insert_or_assign(path.back(), std::move(v)); });
  source.record_override(key, text);
}

}  // namespace eddy::case_io
