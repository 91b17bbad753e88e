// Unit tests of the initial particles (io/particle_seed.hpp): the random seeding is reproducible to the bit (pinned
// values, the same list for every rank's subset), stays in its box, and the CSV positions file is read with errors
// that name the file and the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/particle_seed.hpp"
#include "tests/file_helpers.hpp"

namespace eddy {
namespace {

using test::TempDir;
using test::write_text;

/// A finalized 16 x 8 x 4 box (all walls) with `count` random particles.
CaseConfig random_case(std::int64_t count, std::uint64_t seed = 1) {
  CaseConfig c;
  c.size = {16, 8, 4};
  c.tau = 0.8;
  c.steps = 1;
  c.particles.enabled = true;
  c.particles.count = count;
  c.particles.seed = seed;
  finalize_case(c);
  return c;
}

/// The what() of the InputError that `f` throws, or a marker.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError thrown>";
}

::testing::AssertionResult HasAll(const std::string& message, const std::vector<std::string>& fragments) {
  if (message.find('\n') != std::string::npos) return ::testing::AssertionFailure() << "multi-line: " << message;
  for (const auto& fragment : fragments) {
    if (message.find(fragment) == std::string::npos) {
      return ::testing::AssertionFailure() << "message \"" << message << "\" lacks \"" << fragment << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

// ---- the generator and its mapping ----------------------------------------------------------------------------------

TEST(ParticleSeedRandom, GeneratorIsTheStandardMersenneTwister64) {
  // The C++ standard fixes this value ([rand.predef]): any conforming library gives it.
  std::mt19937_64 engine;
  engine.discard(9999);
  EXPECT_EQ(engine(), 9981545732273789042ull);
}

TEST(ParticleSeedRandom, UnitIntervalTakesTheTop53Bits) {
  EXPECT_EQ(unit_interval(0), 0.0);
  EXPECT_EQ(unit_interval((std::uint64_t(1) << 11) - 1), 0.0);  // the low 11 bits are dropped
  EXPECT_EQ(unit_interval(std::uint64_t(1) << 11), 0x1.0p-53);
  EXPECT_EQ(unit_interval(std::uint64_t(1) << 63), 0.5);
  EXPECT_EQ(unit_interval(std::numeric_limits<std::uint64_t>::max()), 1.0 - 0x1.0p-53);  // never 1
}

TEST(ParticleSeedRandom, PositionsFollowTheDocumentedFormula) {
  const CaseConfig c = random_case(50, 12345);
  const std::vector<SeedParticle> particles = seed_particles(c);
  ASSERT_EQ(particles.size(), 50u);
  std::mt19937_64 engine(12345);
  for (std::size_t i = 0; i < particles.size(); ++i) {
    EXPECT_EQ(particles[i].id, std::int64_t(i));
    for (int a = 0; a < 3; ++a) {
      const double u = double(engine() >> 11) / 9007199254740992.0;  // 2^53
      EXPECT_EQ(particles[i].position[a], std::fma(double(c.size[a]), u, 0.0)) << "particle " << i << " axis " << a;
      EXPECT_EQ(particles[i].velocity[a], 0.0);
    }
  }
}

TEST(ParticleSeedRandom, PinnedValuesAreTheSameOnEveryPlatform) {
  // Regression values: a change here changes every seeded run (the seeding is part of the case's definition).
  CaseConfig c = random_case(3, 1);
  c.particles.box_min = {1.0, 2.0, 0.5};
  c.particles.box_max = {9.0, 6.0, 3.5};
  const std::vector<SeedParticle> particles = seed_particles(c);
  ASSERT_EQ(particles.size(), 3u);
  std::mt19937_64 engine(1);
  const std::uint64_t first = engine();
  EXPECT_EQ(first, 2469588189546311528ull);  // mt19937_64 seeded with 1: fixed by the standard's algorithm
  EXPECT_EQ(particles[0].position[0], std::fma(8.0, unit_interval(first), 1.0));
  // The literal values (hex floats, exact), so that a different mapping or draw order shows up even where the
  // engine agrees.
  const std::array<std::array<double, 3>, 3> expected = {{
      {0x1.0916f57eeda1ap+1, 0x1.45d724a04631fp+1, 0x1.da8875b670b2cp+0},
      {0x1.2b0ec02bc9aep+0, 0x1.b3a8eae5d9f8cp+1, 0x1.9df6243c165d2p+1},
      {0x1.31066c6b22b7ap+2, 0x1.261b09f237e29p+1, 0x1.1ad2410d176e9p+1},
  }};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(particles[i].id, std::int64_t(i));
    for (int a = 0; a < 3; ++a)
      EXPECT_EQ(particles[i].position[a], expected[i][a]) << "particle " << i << " axis " << a;
  }
}

TEST(ParticleSeedRandom, SameSeedSameListOtherSeedOtherList) {
  const std::vector<SeedParticle> a = seed_particles(random_case(200, 7));
  const std::vector<SeedParticle> b = seed_particles(random_case(200, 7));
  const std::vector<SeedParticle> other = seed_particles(random_case(200, 8));
  ASSERT_EQ(a.size(), 200u);
  ASSERT_EQ(b.size(), 200u);
  std::size_t same_as_other = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].position, b[i].position);
    EXPECT_EQ(a[i].id, b[i].id);
    same_as_other += a[i].position == other[i].position;
  }
  EXPECT_EQ(same_as_other, 0u);
  // A prefix: 50 particles are the first 50 of 200.
  const std::vector<SeedParticle> prefix = seed_particles(random_case(50, 7));
  for (std::size_t i = 0; i < prefix.size(); ++i) EXPECT_EQ(prefix[i].position, a[i].position);
}

TEST(ParticleSeedRandom, PositionsFillTheBoxUniformly) {
  CaseConfig c = random_case(20000, 99);
  c.particles.box_min = {2.0, 1.0, 0.25};
  c.particles.box_max = {10.0, 7.0, 3.75};
  const std::vector<SeedParticle> particles = seed_particles(c);
  ASSERT_EQ(particles.size(), 20000u);
  std::array<double, 3> sum{}, low{1e300, 1e300, 1e300}, high{-1e300, -1e300, -1e300};
  for (const SeedParticle& p : particles) {
    for (int a = 0; a < 3; ++a) {
      ASSERT_GE(p.position[a], c.particles.box_min[a]);
      ASSERT_LT(p.position[a], c.particles.box_max[a]);
      sum[a] += p.position[a];
      low[a] = std::min(low[a], p.position[a]);
      high[a] = std::max(high[a], p.position[a]);
    }
  }
  for (int a = 0; a < 3; ++a) {
    const double width = c.particles.box_max[a] - c.particles.box_min[a];
    const double mean = sum[a] / 20000.0;
    // Uniform: mean at the centre within 4 standard errors (width / sqrt(12 N)); the extremes near the edges.
    EXPECT_NEAR(mean, 0.5 * (c.particles.box_min[a] + c.particles.box_max[a]), 4.0 * width / std::sqrt(12.0 * 20000));
    EXPECT_LT(low[a] - c.particles.box_min[a], 0.002 * width);
    EXPECT_LT(c.particles.box_max[a] - high[a], 0.002 * width);
  }
}

TEST(ParticleSeedRandom, DefaultBoxIsTheDomainAlsoBeforeFinalize) {
  CaseConfig c;
  c.size = {4, 3, 2};
  c.particles.enabled = true;
  c.particles.count = 1000;  // box_max left at {0, 0, 0}: the domain
  const std::vector<SeedParticle> particles = seed_particles(c);
  ASSERT_EQ(particles.size(), 1000u);
  for (const SeedParticle& p : particles) {
    for (int a = 0; a < 3; ++a) {
      ASSERT_GE(p.position[a], 0.0);
      ASSERT_LT(p.position[a], double(c.size[a]));
    }
  }
  // The same list as the finalized case (where box_max became the domain size).
  CaseConfig finalized = c;
  finalized.tau = 0.8;
  finalized.steps = 1;
  finalize_case(finalized);
  EXPECT_EQ(finalized.particles.box_max, (std::array<double, 3>{4.0, 3.0, 2.0}));
  const std::vector<SeedParticle> again = seed_particles(finalized);
  ASSERT_EQ(again.size(), particles.size());
  for (std::size_t i = 0; i < again.size(); ++i) ASSERT_EQ(again[i].position, particles[i].position);
}

TEST(ParticleSeedRandom, TheUpperBoundIsNeverReachedByRounding) {
  // A box one double wide: fma(2^-52, u, 1) rounds to 1 + 2^-52 = box_max for u > 1/2; it must stay below.
  CaseConfig c;
  c.size = {4, 4, 4};
  c.particles.enabled = true;
  c.particles.count = 200;
  c.particles.box_min = {1.0, 1.0, 1.0};
  c.particles.box_max = {std::nextafter(1.0, 2.0), 2.0, 2.0};
  for (const SeedParticle& p : seed_particles(c)) {
    ASSERT_EQ(p.position[0], 1.0);
    ASSERT_LT(p.position[1], 2.0);
  }
}

TEST(ParticleSeedRandom, RankSubsetsPartitionTheGlobalList) {
  const CaseConfig c = random_case(500, 3);
  const std::vector<SeedParticle> global = seed_particles(c);
  // 2 x 2 x 1 blocks of the 16 x 8 x 4 domain.
  std::vector<SeedParticle> joined;
  for (double x0 : {0.0, 8.0}) {
    for (double y0 : {0.0, 4.0}) {
      const std::vector<SeedParticle> part = seed_particles(c, {x0, y0, 0.0}, {x0 + 8.0, y0 + 4.0, 4.0});
      for (const SeedParticle& p : part) {
        EXPECT_GE(p.position[0], x0);
        EXPECT_LT(p.position[0], x0 + 8.0);
        EXPECT_GE(p.position[1], y0);
        EXPECT_LT(p.position[1], y0 + 4.0);
      }
      joined.insert(joined.end(), part.begin(), part.end());
    }
  }
  ASSERT_EQ(joined.size(), global.size());
  std::sort(joined.begin(), joined.end(), [](const SeedParticle& a, const SeedParticle& b) { return a.id < b.id; });
  for (std::size_t i = 0; i < global.size(); ++i) {
    EXPECT_EQ(joined[i].id, global[i].id);
    EXPECT_EQ(joined[i].position, global[i].position);
  }
}

TEST(ParticleSeedRandom, NoParticlesSectionGivesAnEmptyList) {
  CaseConfig c;
  c.size = {4, 4, 4};
  EXPECT_TRUE(seed_particles(c).empty());
  c.particles.enabled = true;
  c.particles.count = 0;
  EXPECT_TRUE(HasAll(error_of([&] { seed_particles(c); }), {"particles.count = 0", ">= 1"}));
}

// ---- the positions file ------------------------------------------------------------------------------------------

TEST(ParticlePositionsFile, RowsAreReadInOrderWithCommentsBlanksAndCrlf) {
  TempDir dir;
  const std::string path = dir.file("p.csv");
  write_text(path,
             "# particles for a test\n"
             "\n"
             " x , y , z \r\n"
             "0,0,0\r\n"
             "# a comment between rows\n"
             "15.999, 7.5, 3.25\n"
             "\n"
             "+1e-3,2.5E0,0.125\n");
  const std::vector<std::array<double, 3>> rows = read_particle_positions(path, {16, 8, 4});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(rows[1], (std::array<double, 3>{15.999, 7.5, 3.25}));
  EXPECT_EQ(rows[2], (std::array<double, 3>{1e-3, 2.5, 0.125}));
}

TEST(ParticlePositionsFile, ErrorsNameTheFileAndTheLine) {
  TempDir dir;
  const std::string path = dir.file("p.csv");
  const auto error = [&](const std::string& text, std::int64_t max_rows = kMaxParticles) {
    write_text(path, text);
    return error_of([&] { read_particle_positions(path, {16, 8, 4}, max_rows); });
  };
  EXPECT_TRUE(HasAll(error("x,y,z\n1,2,3\n1,abc,3\n"), {path + ":3:", "column y", "'abc'", "not a number"}));
  EXPECT_TRUE(HasAll(error("x,y,z\n1,2,3 4\n"), {path + ":2:", "column z", "not a number"}));
  EXPECT_TRUE(HasAll(error("x,y,z\n1,2,\n"), {path + ":2:", "column z", "not a number"}));
  EXPECT_TRUE(HasAll(error("x,y,z\nnan,2,3\n"), {path + ":2:", "column x", "not a finite number"}));
  EXPECT_TRUE(HasAll(error("x,y,z\n1,2,inf\n"), {path + ":2:", "not a finite number"}));
  EXPECT_TRUE(HasAll(error("x,y,z\n1,2\n"), {path + ":2:", "expected 3 cells", "found 2"}));
  EXPECT_TRUE(HasAll(error("x,y,z\n1,2,3,4\n"), {path + ":2:", "found 4"}));
  EXPECT_TRUE(HasAll(error("# c\nx,y\n1,2\n"), {path + ":2:", "header", "'x,y,z'", "'x,y'"}));
  EXPECT_TRUE(HasAll(error("1,2,3\n"), {path + ":1:", "header"}));
  EXPECT_TRUE(HasAll(error("z,y,x\n1,2,3\n"), {path + ":1:", "header"}));
  // Outside the domain [0, n) on each axis.
  EXPECT_TRUE(
      HasAll(error("x,y,z\n1,2,3\n16,2,3\n"), {path + ":3:", "x = 16", "outside the domain", "[0, 16)", "[16, 8, 4]"}));
  EXPECT_TRUE(HasAll(error("x,y,z\n1,-0.5,3\n"), {path + ":2:", "y = -0.5", "[0, 8)"}));
  EXPECT_TRUE(HasAll(error("x,y,z\n1,2,4.0000001\n"), {path + ":2:", "z = 4.0000001", "[0, 4)"}));
  // Too many rows, empty files.
  EXPECT_TRUE(HasAll(error("x,y,z\n1,1,1\n2,2,2\n\n3,3,3\n", 2), {path + ":5:", "too many particles", "limit of 2"}));
  EXPECT_NO_THROW(read_particle_positions(path, {16, 8, 4}, 3));
  EXPECT_TRUE(HasAll(error("x,y,z\n"), {path, "no particles"}));
  EXPECT_TRUE(HasAll(error("# only a comment\n\n"), {path, "no header"}));
  EXPECT_TRUE(HasAll(error(""), {path, "no header"}));
}

TEST(ParticlePositionsFile, MissingFilesAndDirectoriesAreInputErrors) {
  TempDir dir;
  const std::string missing = dir.file("nope.csv");
  EXPECT_TRUE(HasAll(error_of([&] {
                       read_particle_positions(missing, {4, 4, 4});
                     }),
                     {"cannot read particle positions file", missing, "No such file or directory"}));
  EXPECT_TRUE(HasAll(error_of([&] {
                       read_particle_positions(dir.path().string(), {4, 4, 4});
                     }),
                     {dir.path().string(), "is a directory"}));
}

TEST(ParticlePositionsFile, SeedingFromACaseFileReadsThePathRelativeToIt) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "cases" / "data");
  write_text(dir.file("cases/data/p.csv"), "x,y,z\n0.5,0.5,0.5\n3.5,2.5,1.5\n");
  const std::string case_file = dir.file("cases/seeded.toml");
  write_text(case_file,
             "[domain]\nsize = [4, 3, 2]\n[physics]\ntau = 0.8\n[run]\nsteps = 1\n"
             "[particles]\npositions = \"data/p.csv\"\ndiameter = 0.5\n");
  const CaseConfig c = load_case(case_file);
  EXPECT_EQ(c.particles.positions_file, dir.file("cases/data/p.csv"));
  const std::vector<SeedParticle> particles = seed_particles(c);
  ASSERT_EQ(particles.size(), 2u);
  EXPECT_EQ(particles[0].id, 0);
  EXPECT_EQ(particles[0].position, (std::array<double, 3>{0.5, 0.5, 0.5}));
  EXPECT_EQ(particles[1].id, 1);
  EXPECT_EQ(particles[1].position, (std::array<double, 3>{3.5, 2.5, 1.5}));
  EXPECT_EQ(particles[1].velocity, (std::array<double, 3>{0.0, 0.0, 0.0}));
  // Subsets keep the global ids.
  const std::vector<SeedParticle> upper = seed_particles(c, {2.0, 0.0, 0.0}, {4.0, 3.0, 2.0});
  ASSERT_EQ(upper.size(), 1u);
  EXPECT_EQ(upper[0].id, 1);

  // A problem in the file is reported with the case file and the key.
  write_text(dir.file("cases/data/p.csv"), "x,y,z\n0.5,0.5,0.5\n4,1,1\n");
  EXPECT_TRUE(HasAll(error_of([&] { seed_particles(c); }), {case_file + ": " + dir.file("cases/data/p.csv") + ":3:",
                                                            "x = 4", "[0, 4)", "(particles.positions)"}));
  std::filesystem::remove(dir.file("cases/data/p.csv"));
  EXPECT_TRUE(HasAll(error_of([&] { seed_particles(c); }), {case_file + ": ", "p.csv", "No such file"}));
}

}  // namespace
}  // namespace eddy
