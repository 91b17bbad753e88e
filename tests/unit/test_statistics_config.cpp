// Unit tests for the [statistics] reader (io/case/statistics.cpp): defaults, start_time to a step (steps, and s
// under [units]), the fields' order and default, and every bad input, each an InputError naming its key (through the
// eddy binary: tests/unit/test_cli_errors.cpp, StatisticsBadInputExitsTwo).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "solver/run_report.hpp"

namespace eddy {
namespace {

/// A periodic 8 x 6 x 4 box of 100 steps with `statistics` as the body of its [statistics] section and `extra`
/// further sections.
std::string box(const std::string& statistics, const std::string& extra = "") {
  return "[domain]\nsize = [8, 6, 4]\nperiodic = [true, false, true]\n[physics]\nvelocity = 0.05\ntau = 0.8\n"
         "[run]\nsteps = 100\n" +
         extra + "[statistics]\n" + statistics;
}

/// The same box in SI: L = nx = 8 cells span 0.01 m (dx = 1.25e-3 m), U = 0.5 m/s at lattice 0.1: dt = 2.5e-4 s.
std::string si_box(const std::string& statistics) {
  return "[domain]\nsize = [8, 6, 4]\nperiodic = [true, false, true]\n[run]\nsteps = 100\n"
         "[units]\nlength = 0.01\nvelocity = 0.5\nviscosity = 1e-4\n[statistics]\n" +
         statistics;
}

const std::string kThermal = "[thermal]\nprandtl = 0.71\n";

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_case(text, "stats.toml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError thrown>";
}

/// Expects an InputError for `text` that starts "stats.toml: " and contains every fragment.
void expect_error(const std::string& text, const std::vector<std::string>& fragments,
                  const std::vector<std::string>& overrides = {}) {
  const std::string message = error_of(text, overrides);
  EXPECT_EQ(message.rfind("stats.toml: ", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const std::string& f : fragments) EXPECT_NE(message.find(f), std::string::npos) << message << "\nlacks: " << f;
}

TEST(StatisticsConfig, AbsentSectionIsOff) {
  const CaseConfig c = parse_case(
      "[domain]\nsize = [8, 6, 4]\n[physics]\nvelocity = 0.05\ntau = 0.8\n[run]\nsteps = 10\n", "stats.toml");
  EXPECT_FALSE(c.statistics.enabled);
}

TEST(StatisticsConfig, DefaultsSampleEveryStepFromZeroWithAllFieldsThatApply) {
  const CaseConfig c = parse_case(box(""), "stats.toml");
  EXPECT_TRUE(c.statistics.enabled);
  EXPECT_EQ(c.statistics.start, 0);
  EXPECT_EQ(c.statistics.every, 1);
  EXPECT_EQ(c.statistics.fields, (std::vector<std::string>{"mean_velocity", "velocity_rms", "reynolds_stress",
                                                           "mean_density", "mean_pressure"}));
  EXPECT_TRUE(c.statistics.second_moments());
  EXPECT_FALSE(c.statistics.has_profile());
  const CaseConfig t = parse_case(box("", kThermal), "stats.toml");
  EXPECT_EQ(t.statistics.fields.back(), "mean_temperature");
}

TEST(StatisticsConfig, GivenKeysAndTheFieldsInSnapshotOrder) {
  const CaseConfig c = parse_case(
      box("start = 40\nevery = 3\nfields = [\"mean_density\", \"mean_velocity\"]\naverage = [\"z\", \"x\"]\n"),
      "stats.toml");
  EXPECT_EQ(c.statistics.start, 40);
  EXPECT_EQ(c.statistics.every, 3);
  EXPECT_EQ(c.statistics.fields, (std::vector<std::string>{"mean_velocity", "mean_density"}));
  EXPECT_FALSE(c.statistics.second_moments());
  EXPECT_EQ(c.statistics.average, (std::array<bool, 3>{true, false, true}));
  // finalize_case again changes nothing.
  CaseConfig again = c;
  finalize_case(again);
  EXPECT_EQ(again.statistics.fields, c.statistics.fields);
  EXPECT_EQ(again.statistics.start, 40);
}

TEST(StatisticsConfig, StartTimeIsTheFirstStepAtOrAfterIt) {
  EXPECT_EQ(parse_case(box("start_time = 12.5\n"), "stats.toml").statistics.start, 13);  // steps without [units]
  EXPECT_EQ(parse_case(box("start_time = 12\n"), "stats.toml").statistics.start, 12);
  const CaseConfig si = parse_case(si_box("start_time = 0.01\n"), "stats.toml");
  ASSERT_DOUBLE_EQ(si.units.dt, 2.5e-4);
  EXPECT_EQ(si.statistics.start, 40);  // 0.01 / 2.5e-4 = 40 (within round-off of a whole number: not 41)
  EXPECT_EQ(parse_case(si_box("start_time = 0.01001\n"), "stats.toml").statistics.start, 41);
  // Idempotent.
  CaseConfig again = si;
  finalize_case(again);
  EXPECT_EQ(again.statistics.start, 40);
}

TEST(StatisticsConfig, SummaryCountsTheSamplesAndNeverPassesTheRun) {
  const CaseConfig c = parse_case(box("start = 10\nevery = 30\n"), "stats.toml");  // steps 10, 40, 70 of 100
  EXPECT_NE(statistics_summary(c).find("the states at steps 10, 40, ... (every 30, 3 samples by step 100)"),
            std::string::npos)
      << statistics_summary(c);
  // Averages that no file receives: a warning.
  EXPECT_EQ(statistics_summary(c).find("warning"), std::string::npos);
  const CaseConfig nowhere = parse_case(box("start = 10\n", "[output]\nvtk = false\n"), "stats.toml");
  EXPECT_NE(statistics_summary(nowhere).find("warning: the [statistics] averages are written nowhere"),
            std::string::npos);
  const CaseConfig profile =
      parse_case(box("start = 10\naverage = [\"x\"]\n", "[output]\nvtk = false\n"), "stats.toml");
  EXPECT_EQ(statistics_summary(profile).find("warning"), std::string::npos);
  // An every beyond the run: one sample, and no step past it (start + every overflowed to a negative step).
  const CaseConfig huge = parse_case(box("start = 5\nevery = 9223372036854775807\n"), "stats.toml");
  EXPECT_NE(statistics_summary(huge).find("the state at step 5 only (every 9223372036854775807, 1 sample by step "),
            std::string::npos)
      << statistics_summary(huge);
}

TEST(StatisticsConfig, StartPastTheRunsEndIsRefused) {
  expect_error(box("start = 100\n"), {"statistics.start = 100", "run.steps = 100", "no step would be sampled", "99"});
  expect_error(box("start = 1000\n"), {"statistics.start = 1000"});
  expect_error(box("start_time = 250\n"), {"statistics.start_time = 250", "run.steps = 100"});
  expect_error(si_box("start_time = 0.03\n"), {"statistics.start_time = 0.03 s (step 120)", "run.steps = 100"});
  expect_error(box("start = 50\n"), {"statistics.start = 50", "run.steps = 50"}, {"run.steps=50"});
  // The last step that can be sampled is accepted.
  EXPECT_EQ(parse_case(box("start = 99\n"), "stats.toml").statistics.start, 99);
}

TEST(StatisticsConfig, BadStartEveryAndBothStarts) {
  expect_error(box("start = -1\n"), {"statistics.start = -1", "out of range", ">= 0"});
  expect_error(box("start = 1.5\n"), {"statistics.start = 1.5", "integer"});
  expect_error(box("start_time = -2.0\n"), {"statistics.start_time = -2", ">= 0"});
  expect_error(box("start = 3\nstart_time = 4.0\n"), {"statistics.start = 3", "statistics.start_time = 4", "keep one"});
  expect_error(box("every = 0\n"), {"statistics.every = 0", "out of range", ">= 1"});
  expect_error(box("every = -5\n"), {"statistics.every = -5", ">= 1"});
  expect_error(box("evry = 2\n"), {"unknown key 'statistics.evry'", "did you mean 'every'?"});
}

TEST(StatisticsConfig, BadFields) {
  expect_error(
      box("fields = [\"mean_velocty\"]\n"),
      {"statistics.fields", "'mean_velocty' is not a statistics field", "did you mean 'mean_velocity'?",
       "allowed: mean_velocity, velocity_rms, reynolds_stress, mean_density, mean_pressure, mean_temperature"});
  expect_error(box("fields = [\"vorticity\"]\n"), {"statistics.fields", "'vorticity'", "[output] fields"});
  expect_error(box("fields = []\n"), {"statistics.fields = []", "lists no field"});
  expect_error(box("fields = [\"mean_density\", \"mean_density\"]\n"), {"statistics.fields", "listed twice"});
  expect_error(box("fields = \"mean_density\"\n"), {"statistics.fields", "wrong type"});
  expect_error(box("fields = [\"mean_temperature\"]\n"), {"statistics.fields", "mean_temperature", "[thermal]"});
  EXPECT_EQ(parse_case(box("fields = [\"mean_temperature\"]\n", kThermal), "stats.toml").statistics.fields,
            (std::vector<std::string>{"mean_temperature"}));
  // The statistics are not [output] fields.
  expect_error(
      "[domain]\nsize = [8, 6, 4]\n[physics]\nvelocity = 0.05\ntau = 0.8\n[run]\nsteps = 10\n"
      "[output]\nfields = [\"mean_velocity\"]\n",
      {"output.fields", "'mean_velocity' is a statistics field", "[statistics] fields"});
}

TEST(StatisticsConfig, BadAverageAxes) {
  expect_error(box("average = [\"w\"]\n"), {"statistics.average", "'w' is not an axis", "allowed: x, y, z"});
  expect_error(box("average = [\"X\"]\n"), {"statistics.average", "'X'", "did you mean 'x'?"});
  expect_error(box("average = [\"x\", \"x\"]\n"), {"statistics.average", "listed twice"});
  expect_error(box("average = []\n"), {"statistics.average = []", "lists no axis"});
  expect_error(box("average = [0, 2]\n"), {"statistics.average", "wrong type"});
  expect_error(box("average = \"x\"\n"), {"statistics.average", "wrong type"});
}

TEST(StatisticsConfig, OutOfCoreIsRefusedNamingTheSection) {
  expect_error(box("", "[numerics]\nout_of_core = true\n"), {"[statistics]", "in core only", "out_of_core"});
  expect_error(box(""), {"numerics.out_of_core", "(from --set numerics.out_of_core=true)"},
               {"numerics.out_of_core=true"});
  EXPECT_TRUE(parse_case(box("", "[numerics]\nout_of_core = \"auto\"\n"), "stats.toml").statistics.enabled);
}

TEST(StatisticsConfig, StructsBuiltInCodeAreCheckedToo) {
  CaseConfig c = parse_case(box(""), "stats.toml");
  c.statistics.every = 0;
  EXPECT_THROW(finalize_case(c), InputError);
  c = parse_case(box(""), "stats.toml");
  c.statistics.fields = {"mean_speed"};
  try {
    finalize_case(c);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'mean_speed' is not a statistics field"), std::string::npos) << e.what();
  }
  c = parse_case(box(""), "stats.toml");
  c.statistics.start = 100;
  EXPECT_THROW(finalize_case(c), InputError);
}

}  // namespace
}  // namespace eddy
