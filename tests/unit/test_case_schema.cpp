// Unit tests for the case-file schema (case_file_schema(), boundary_face_keys(): what the reader accepts) against the
// key table of cases/README.md ("All keys"), and for the lattice relations of kernels/lattice_units.hpp and
// kernels/thermal_analysis.hpp (bitwise the formulas they replace).

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/lattice_units.hpp"
#include "kernels/thermal_analysis.hpp"

namespace eddy {
namespace {

/// The (section, key) rows of the "All keys" table: lines "| `[section]` | `key` | ...".
std::map<std::string, std::set<std::string>> readme_keys() {
  std::ifstream in(std::string(EDDY_SOURCE_DIR) + "/cases/README.md");
  EXPECT_TRUE(in) << "cannot read cases/README.md";
  std::map<std::string, std::set<std::string>> keys;
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_table = line == "## All keys";
    if (!in_table || line.rfind("| `[", 0) != 0) continue;
    const auto section_end = line.find("]`", 4);
    const auto key_start = line.find("| `", section_end);
    const auto key_end = line.find('`', key_start + 3);
    if (section_end == std::string::npos || key_start == std::string::npos || key_end == std::string::npos) {
      ADD_FAILURE() << "cases/README.md: a key row not of the form | `[section]` | `key` |: " << line;
      continue;
    }
    keys[line.substr(4, section_end - 4)].insert(line.substr(key_start + 3, key_end - key_start - 3));
  }
  return keys;
}

TEST(CaseConfigSchema, MatchesTheKeyTableOfTheCasesReadme) {
  const auto documented = readme_keys();
  ASSERT_FALSE(documented.empty()) << "no '| `[section]` | `key` |' rows under '## All keys' in cases/README.md";
  std::map<std::string, std::set<std::string>> accepted;
  for (const CaseSection& section : case_file_schema()) {
    std::set<std::string>& keys = accepted[std::string(section.name)];
    for (auto key : section.keys) EXPECT_TRUE(keys.insert(std::string(key)).second) << section.name << "." << key;
  }
  // [boundary] holds one table per face; the README documents the keys of a face table as [boundary.<face>].
  std::set<std::string> faces(kFaceNames.begin(), kFaceNames.end());
  EXPECT_EQ(accepted["boundary"], faces);
  accepted.erase("boundary");
  for (auto key : boundary_face_keys()) accepted["boundary.<face>"].insert(std::string(key));

  for (const auto& [section, keys] : accepted) {
    const auto it = documented.find(section);
    if (it == documented.end()) {
      ADD_FAILURE() << "[" << section << "] is read (case_file_schema) but has no row in cases/README.md";
      continue;
    }
    for (const auto& key : keys) {
      EXPECT_TRUE(it->second.count(key)) << section << "." << key << " is read but not documented in cases/README.md";
    }
    for (const auto& key : it->second) {
      EXPECT_TRUE(keys.count(key)) << section << "." << key << " is documented in cases/README.md but not read";
    }
  }
  for (const auto& [section, keys] : documented) {
    EXPECT_TRUE(accepted.count(section)) << "[" << section << "] is documented in cases/README.md but not read";
  }
}

TEST(CaseConfigSchema, EveryDocumentedKeyIsAcceptedAndAnUnknownOneRefused) {
  // The schema drives the reader's unknown-key check: a misspelt key names the closest one.
  const std::string base = "[domain]\nsize = [8, 8, 1]\n[physics]\nvelocity = 0.05\nreynolds = 10\n[run]\nsteps = 1\n";
  try {
    parse_case(base + "[output]\nevry = 1\n", "schema.toml");
    FAIL() << "an unknown key was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'output.evry' (did you mean 'every'?)"), std::string::npos)
        << e.what();
  }
}

TEST(LatticeUnits, SameBitsAsTheFormulasTheyReplace) {
  EXPECT_EQ(kSqrt3, std::sqrt(3.0));
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int i = 0; i < 10000; ++i) {
    const double x = std::ldexp(uniform(rng), int(rng() % 60) - 40);
    EXPECT_EQ(tau_from_viscosity(x), 3.0 * x + 0.5);
    EXPECT_EQ(viscosity_from_tau(x + 0.5), ((x + 0.5) - 0.5) / 3.0);
    EXPECT_EQ(mach_number(x), std::sqrt(3.0) * x);
    EXPECT_EQ(mach_number(x), x * std::sqrt(3.0));
    EXPECT_EQ(speed_at_mach(x), x / std::sqrt(3.0));
  }
  static_assert(tau_from_viscosity(1.0 / 6.0) == 1.0, "tau = 1 at nu = 1/6");
  static_assert(viscosity_from_tau(0.5) == 0.0, "nu = 0 at tau = 1/2");
}

TEST(LatticeUnits, SiConversion) {
  // 1 m spanned by 100 cells, 1 m/s as U_lat = 0.1, nu = 1e-3 m^2/s: dt = 1e-3 s, nu_lat = 0.01 (Re = 1000 = 0.1 100 /
  // 0.01).
  const double dx = 0.01;
  const double dt = lattice_time_step(0.1, dx, 1.0);
  EXPECT_DOUBLE_EQ(dt, 1e-3);
  EXPECT_DOUBLE_EQ(lattice_viscosity(1e-3, dt, dx), 0.01);
}

TEST(ThermalAnalysis, SubstepsFromDiffusionAndAdvection) {
  // kappa = 0.5: 4 sub-steps (1/8 each) with a fixed wall, 3 (1/6) without; |U| = 2: 8 for advection.
  EXPECT_EQ(scalar_substeps(0.5, 0.0, true).steps, 4.0);
  EXPECT_EQ(scalar_substeps(0.5, 0.0, false).steps, 3.0);
  EXPECT_EQ(scalar_substeps(0.5, 2.0, false).steps, 8.0);
  EXPECT_EQ(scalar_substeps(0.001, 0.0, true).steps, 1.0);
  EXPECT_EQ(thermal_diffusivity(0.1, 0.5), 0.2);
  EXPECT_EQ(free_fall_velocity_of(1e-4, 1.0, 100.0), std::sqrt(1e-4 * 1.0 * 100.0));
}

}  // namespace
}  // namespace eddy
