// io/case/run_output.cpp: [run], [output] and [checkpoint]: steps, intervals, directories and output fields.

#include <algorithm>

#include "io/case/sections.hpp"
#include "io/output_fields.hpp"

namespace eddy::case_io {
namespace {

/// run.report_every >= 1 (steps), in the file and in the struct (where 0 is replaced by steps / 10 first).
void require_report_every(const Entry& entry, std::int64_t every) {
  require_in(entry, every, 1, kNoUpperBound, "report_every must be >= 1");
}

}  // namespace

void read_run(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("run"));
  const auto steps = section.integer("steps");
  if (!steps) section.fail("steps", "missing required key 'run.steps' (time steps to run, an integer >= 0)");
  config.steps = *steps;
  if (const auto every = section.integer("report_every")) {
    require_report_every(section.entry("report_every"), *every);
    config.report_every = *every;
  }
}

void read_output(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("output"));
  config.output_every = section.integer("every").value_or(0);
  config.output_directory = section.string("directory").value_or("output");
  config.write_vtk = section.boolean("vtk").value_or(true);
  config.output_asynchronous = section.boolean("asynchronous").value_or(true);
  config.output_compression = section
                                  .choice<VtkCompression>("compression", {{"none", VtkCompression::none},
                                                                          {"zlib", VtkCompression::zlib},
                                                                          {"lz4", VtkCompression::lz4}})
                                  .value_or(VtkCompression::none);
  if (const auto every = section.integer("energy_every")) {
    require_in(section.entry("energy_every"), *every, 0, kNoUpperBound,
               "energy_every must be an integer >= 0 (steps between kinetic-energy samples; 0 = none)");
    config.energy_every = *every;
  }
  config.write_centerlines = section.boolean("centerlines").value_or(false);
  if (section.has("fields")) {
    config.output_fields = section.distinct_names(
        "fields",
        [&](const std::string& field) {
          const OutputField* known = find_output_field(field);
          if (known && known->source == FieldSource::statistics) {
            section.fail("fields", section.quote("fields") + ": '" + field +
                                       "' is a statistics field: list it in [statistics] fields (the running "
                                       "averages are written to every snapshot there)");
          }
          if (!known) {
            section.fail("fields", section.quote("fields") + ": '" + field + "' is not an output field" +
                                       suggestion(field, output_field_names()) +
                                       "; allowed: " + join(output_field_names()));
          }
        },
        "output.fields = [] lists no field: name at least one of " + join(output_field_names()));
  }
  read_probes(section, config);
  read_output_selection(section, config);
}

void read_checkpoint(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("checkpoint"));
  config.checkpoint_every = section.integer("every").value_or(0);
  config.checkpoint_directory = section.string("directory").value_or("");
  if (section.has("directory") && config.checkpoint_directory.empty()) {
    section.fail("directory",
                 "checkpoint.directory = \"\" is not allowed: give a path, or leave the key out for "
                 "<output directory>/checkpoints");
  }
}

/// run.steps >= 0, run.report_every >= 1 (0 = steps / 10, at least 1), output.every >= 0, a non-empty
/// output.directory, checkpoint.every >= 0.
void finalize_run_output(CaseConfig& config, const Source& source) {
  require_in(Entry(source, "run.steps", std::to_string(config.steps)), config.steps, 0, kNoUpperBound,
             "steps must be >= 0");
  if (config.report_every == 0) config.report_every = std::max<std::int64_t>(1, config.steps / 10);
  require_report_every(Entry(source, "run.report_every", std::to_string(config.report_every)), config.report_every);
  require_in(Entry(source, "output.every", std::to_string(config.output_every)), config.output_every, 0, kNoUpperBound,
             "every must be >= 0 (0 = only the final state)");
  if (config.output_directory.empty()) {
    source.fail("output.directory", "output.directory = \"\" is not allowed: the directory must be a non-empty path");
  }
  require_in(Entry(source, "checkpoint.every", std::to_string(config.checkpoint_every)), config.checkpoint_every, 0,
             kNoUpperBound, "every must be >= 0 (steps between checkpoints; 0 = none)");
}

}  // namespace eddy::case_io
