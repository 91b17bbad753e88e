// Unit tests of the particle-particle forces (solver/particle_contacts.hpp, kernels/contact_launchers.hpp): the
// cell-list contact forces against a brute-force O(N^2) double loop (periodic boundaries included), the all-pairs
// contact search against the cell list and the brute force, the same bits for permuted arrays and for a rank's
// sub-region, the all-pairs softened gravity against a direct sum written here, Newton's third law, the analytic
// head-on contact, buffer growth and the cell reset between calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/contact_launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/particle_contacts.hpp"
#include "tests/test_support.hpp"
#include "tests/unit/contact_test_support.hpp"

namespace eddy {
namespace {

using namespace eddy::test;  // NOLINT: the shared helpers of tests/unit/contact_test_support.hpp

TEST(ParticleContacts, CellGridCoversTheRegionWithCellsAtLeastOneDiameterWide) {
  const CellGrid g = make_cell_grid(whole_domain({24, 20, 7}, {true, false, true}), 1.6);
  EXPECT_EQ(g.n[0], 15);  // floor(24 / 1.6)
  EXPECT_EQ(g.n[1], 12);
  EXPECT_EQ(g.n[2], 4);
  for (int a = 0; a < 3; ++a) EXPECT_GE(g.width[a], 1.6);
  EXPECT_TRUE(g.wrap[0]);
  EXPECT_FALSE(g.wrap[1]);
  EXPECT_TRUE(g.wrap[2]);
  // A rank's slab of a periodic axis does not wrap; its cells are the global ones that overlap it.
  ContactRegion slab = whole_domain({24, 20, 7}, {true, false, true});
  slab.offset = {8, 0, 0};
  slab.size = {8, 20, 7};
  const CellGrid s = make_cell_grid(slab, 1.6);
  EXPECT_FALSE(s.wrap[0]);
  EXPECT_EQ(s.first[0], 5);  // cells [5, 10) span [8, 16)
  EXPECT_EQ(s.n[0], 5);
  EXPECT_THROW(make_cell_grid(slab, 0.0), std::invalid_argument);
  slab.size[1] = 0;
  EXPECT_THROW(make_cell_grid(slab, 1.0), std::invalid_argument);
}

TEST(ParticleContacts, HeadOnPairGivesTheAnalyticSpringDashpotForce) {
  EDDY_REQUIRE_DEVICE();
  const double k = 0.5, gamma = 0.3;
  ParticleContacts contacts(contact_config(1.0, k, gamma), whole_domain({10, 8, 8}, {false, false, false}));
  HostParticles h;
  h.add({5.0, 4.0, 4.0}, {0.01, 0.0, 0.0}, 1.0, 1.0, 7);
  h.add({5.75, 4.0, 4.0}, {-0.02, 0.0, 0.0}, 1.0, 1.0, 3);
  // overlap 0.25; n (from 1 to 0) = -x; (v0 - v1).n = -0.03: F0 = -(k 0.25 + gamma 0.03) x.
  const double expected = k * 0.25 + gamma * 0.03;
  auto f = compute(contacts, h);
  EXPECT_NEAR(f[0][0], -expected, 1e-15);
  EXPECT_NEAR(f[1][0], expected, 1e-15);
  EXPECT_EQ(f[0][0], -f[1][0]);
  for (int a = 1; a < 3; ++a) {
    EXPECT_EQ(f[0][a], 0.0);
    EXPECT_EQ(f[1][a], 0.0);
  }
  // Receding: the dashpot now pulls against the separation (the spring still pushes).
  h.v[0][0] = -0.01;
  h.v[0][1] = 0.02;
  f = compute(contacts, h);
  EXPECT_NEAR(f[0][0], -(k * 0.25 - gamma * 0.03), 1e-15);
  // Just touching (overlap 0) and apart: no force, the old force values are overwritten.
  h.x[0][1] = 6.0;
  f = compute(contacts, h);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(f[0][a], 0.0);
    EXPECT_EQ(f[1][a], 0.0);
  }
}

TEST(ParticleContacts, CellListEqualsBruteForceIncludingPeriodicBoundaries) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> size = {24, 20, 16};
  const std::array<bool, 3> periodic = {true, true, false};
  const double k = 0.8, gamma = 0.05;
  HostParticles h = random_particles(700, {0, 0, 0}, {24, 20, 16}, 0.6, 1.6, 11);
  // Pairs straddling the periodic x and y boundaries, and the x-y corner.
  h.add({0.2, 5.0, 5.0}, {0.01, 0, 0}, 1.2, 1.0, 900001);
  h.add({23.5, 5.3, 5.1}, {-0.01, 0, 0}, 1.2, 1.0, 900002);
  h.add({10.0, 0.1, 8.0}, {0, 0.02, 0}, 1.0, 1.0, 900003);
  h.add({10.4, 19.6, 8.0}, {0, 0, 0.01}, 1.0, 1.0, 900004);
  h.add({0.05, 0.05, 12.0}, {0, 0, 0}, 1.5, 1.0, 900005);
  h.add({23.7, 19.8, 12.3}, {0, 0, 0}, 1.5, 1.0, 900006);
  ParticleContacts contacts(contact_config(1.6, k, gamma), whole_domain(size, periodic));
  const auto f = compute(contacts, h);
  int across = 0;
  const auto ref = brute_force_contacts(h, {24, 20, 16}, {true, true, false}, k, gamma, &across);
  EXPECT_GE(across, 6);  // the test set does exercise the periodic wrap
  int touching = 0;
  for (const auto& v : ref) touching += (v[0] != 0.0 || v[1] != 0.0 || v[2] != 0.0) ? 1 : 0;
  EXPECT_GT(touching, 200);
  expect_close(f, ref, 1e-12);
  // The straddling pairs push each other apart across the boundary.
  const std::size_t a = h.size() - 6;
  EXPECT_GT(f[a][0], 0.0);  // at x = 0.2, pushed towards +x by its neighbour at x = 23.5 (= -0.5)
  EXPECT_LT(f[a + 1][0], 0.0);
}

TEST(ParticleContacts, AllPairsSearchEqualsCellListAndBruteForce) {
  EDDY_REQUIRE_DEVICE();
  const double k = 0.8, gamma = 0.05;
  struct Setup {
    std::array<int, 3> size;
    std::array<bool, 3> periodic;
    std::size_t count;
    int min_across;
  };
  // The domain and straddling pairs of CellListEqualsBruteForceIncludingPeriodicBoundaries, denser; then a box
  // periodic on every axis whose y axis has two cells and z axis one (the cell list's special cases of short wrapped
  // axes).
  const Setup setups[2] = {{{24, 20, 16}, {true, true, false}, 2000, 6}, {{24, 4, 3}, {true, true, true}, 150, 20}};
  for (const Setup& setup : setups) {
    SCOPED_TRACE("domain " + std::to_string(setup.size[0]) + " x " + std::to_string(setup.size[1]) + " x " +
                 std::to_string(setup.size[2]));
    const Vec3 length = {double(setup.size[0]), double(setup.size[1]), double(setup.size[2])};
    HostParticles h = random_particles(setup.count, {0, 0, 0}, length, 0.6, 1.6, 11);
    if (setup.size[1] == 20) {
      // Pairs straddling the periodic x and y boundaries, and the x-y corner.
      h.add({0.2, 5.0, 5.0}, {0.01, 0, 0}, 1.2, 1.0, 900001);
      h.add({23.5, 5.3, 5.1}, {-0.01, 0, 0}, 1.2, 1.0, 900002);
      h.add({10.0, 0.1, 8.0}, {0, 0.02, 0}, 1.0, 1.0, 900003);
      h.add({10.4, 19.6, 8.0}, {0, 0, 0.01}, 1.0, 1.0, 900004);
      h.add({0.05, 0.05, 12.0}, {0, 0, 0}, 1.5, 1.0, 900005);
      h.add({23.7, 19.8, 12.3}, {0, 0, 0}, 1.5, 1.0, 900006);
    }
    const ContactRegion region = whole_domain(setup.size, setup.periodic);
    ParticleContacts cell_list(contact_config(1.6, k, gamma), region);
    ParticleContacts all_pairs(all_pairs_config(1.6, k, gamma), region);
    EXPECT_TRUE(cell_list.cell_list());
    EXPECT_TRUE(all_pairs.contacts());
    EXPECT_FALSE(all_pairs.cell_list());
    for (int a = 0; a < 3; ++a) {  // the same periodic images
      EXPECT_EQ(all_pairs.grid().wrap[a], cell_list.grid().wrap[a]);
      EXPECT_EQ(all_pairs.grid().length[a], cell_list.grid().length[a]);
    }
    const auto f_cells = compute(cell_list, h);
    const auto f_pairs = compute(all_pairs, h);
    int across = 0;
    std::vector<int> partners;
    const auto ref = brute_force_contacts(h, length, setup.periodic, k, gamma, &across, &partners);
    EXPECT_GE(across, setup.min_across);  // the test set does exercise the periodic wrap
    int touching = 0, many = 0;
    for (int count : partners) {
      touching += count > 0 ? 1 : 0;
      many += count > 2 ? 1 : 0;
    }
    EXPECT_GT(touching, int(setup.count) / 4);
    EXPECT_GT(many, 10);  // sums of three and more terms, whose order matters to the last bit
    expect_close(f_pairs, f_cells, 1e-12);
    expect_close(f_pairs, ref, 1e-12);
    // The same pair term: a particle with at most one partner gets the same bits from both searches.
    int lone_differ = 0, same = 0;
    double worst = 0.0;
    for (std::size_t i = 0; i < h.size(); ++i) {
      const bool identical = same_bits(f_pairs[i], f_cells[i]);
      same += identical ? 1 : 0;
      lone_differ += (partners[i] <= 1 && !identical) ? 1 : 0;
      for (int a = 0; a < 3; ++a) worst = std::max(worst, std::abs(f_pairs[i][a] - f_cells[i][a]));
    }
    EXPECT_EQ(lone_differ, 0);
    char note[96];
    std::snprintf(note, sizeof note, "%d of %zu bitwise equal, max difference %.3g of the largest force", same,
                  h.size(), worst / max_abs(f_cells));
    RecordProperty("all_pairs_vs_cell_list_" + std::to_string(setup.size[1]), note);
    // All pairs in id order: permuted arrays give the same bits.
    std::vector<std::size_t> perm(h.size());
    std::iota(perm.begin(), perm.end(), std::size_t(0));
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(7));
    const auto g = compute(all_pairs, h.select(perm));
    int differ = 0;
    for (std::size_t j = 0; j < perm.size(); ++j) differ += same_bits(g[j], f_pairs[perm[j]]) ? 0 : 1;
    EXPECT_EQ(differ, 0);
    // All pairs sets no cell size: configured with a diameter below the particles', it still finds every contact.
    ParticleContacts small(all_pairs_config(0.5, k, gamma), region);
    const auto f_small = compute(small, h);
    for (std::size_t i = 0; i < h.size(); ++i) differ += same_bits(f_small[i], f_pairs[i]) ? 0 : 1;
    EXPECT_EQ(differ, 0);
  }
}

TEST(ParticleContacts, AllPairsLauncherAddsToTheForcesWhenAccumulating) {
  EDDY_REQUIRE_DEVICE();
  // The launcher alone (ParticleContacts only ever writes the contacts): forces filled with 123 get the contact
  // force added; by_id built here.
  const double k = 0.6, gamma = 0.2;
  const std::array<int, 3> size = {12, 10, 8};
  const std::array<bool, 3> periodic = {false, true, true};
  const HostParticles h = random_particles(300, {0, 0, 0}, {12, 10, 8}, 0.8, 1.5, 31);
  std::vector<std::uint32_t> by_id(h.size());
  std::iota(by_id.begin(), by_id.end(), std::uint32_t(0));
  std::sort(by_id.begin(), by_id.end(), [&](std::uint32_t a, std::uint32_t b) { return h.id[a] < h.id[b]; });
  DeviceBuffer<std::uint32_t> by_id_device(by_id.size());
  by_id_device.upload(by_id);
  const CellGrid grid = make_cell_grid(whole_domain(size, periodic), 1.5);
  DeviceParticles dev(h, 123.0);
  contact_forces_all_pairs(dev.view(), dev.n, by_id_device.data(), grid, ContactParams{k, gamma}, true);
  backend::synchronize();
  const auto f = dev.forces();
  const auto ref = brute_force_contacts(h, {12, 10, 8}, periodic, k, gamma);
  std::vector<Vec3> got(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    for (int a = 0; a < 3; ++a) got[i][a] = f[i][a] - 123.0;
  }
  ASSERT_GT(max_abs(ref), 0.1);
  expect_close(got, ref, 1e-12);
}

TEST(ParticleContacts, PermutedArraysGiveTheSameBits) {
  EDDY_REQUIRE_DEVICE();
  ParticleConfig config = contact_config(1.5, 0.7, 0.1);
  config.pair_force = PairForce::gravity;
  config.gravity_constant = 0.02;
  config.softening = 0.5;
  const ContactRegion region = whole_domain({10, 10, 10}, {true, false, true});
  const HostParticles h = random_particles(900, {0, 0, 0}, {10, 10, 10}, 0.7, 1.5, 5);
  std::vector<std::size_t> perm(h.size());
  std::iota(perm.begin(), perm.end(), std::size_t(0));
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(99));
  const HostParticles permuted = h.select(perm);
  ParticleContacts contacts(config, region);
  const auto f = compute(contacts, h);
  const auto g = compute(contacts, permuted);
  int differ = 0;
  for (std::size_t k = 0; k < perm.size(); ++k) differ += same_bits(g[k], f[perm[k]]) ? 0 : 1;
  EXPECT_EQ(differ, 0);
  // A fresh object (other buffer history) gives the same bits too.
  ParticleContacts fresh(config, region);
  const auto g2 = compute(fresh, permuted);
  for (std::size_t k = 0; k < perm.size(); ++k) differ += same_bits(g2[k], g[k]) ? 0 : 1;
  EXPECT_EQ(differ, 0);
}

TEST(ParticleContacts, RankSubRegionGivesTheSameBitsAsTheWholeDomain) {
  EDDY_REQUIRE_DEVICE();
  // One rank's slab x in [6, 14) of a 20 x 12 x 10 domain, periodic in y (held whole: wraps) and x (split: no wrap).
  // Dense (about 4 partners per particle), so the order of the terms of most sums matters to the last bit.
  const std::array<int, 3> size = {20, 12, 10};
  const std::array<bool, 3> periodic = {true, true, false};
  const double k = 0.6, gamma = 0.2;
  const HostParticles h = random_particles(1500, {0, 0, 0}, {20, 12, 10}, 0.8, 1.6, 21);
  ParticleContacts whole(contact_config(1.6, k, gamma), whole_domain(size, periodic));
  const auto f = compute(whole, h);
  ContactRegion slab = whole_domain(size, periodic);
  slab.offset = {6, 0, 0};
  slab.size = {8, 12, 10};
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h.x[0][i] >= 6.0 && h.x[0][i] < 14.0) mine.push_back(i);
  }
  std::shuffle(mine.begin(), mine.end(), std::mt19937_64(3));
  ParticleContacts rank(contact_config(1.6, k, gamma), slab);
  const auto g = compute(rank, h.select(mine));
  // Particles at least a diameter inside the slab have all their partners on this rank.
  int compared = 0, differ = 0;
  for (std::size_t k2 = 0; k2 < mine.size(); ++k2) {
    const double x = h.x[0][mine[k2]];
    if (x < 7.6 || x >= 12.4) continue;
    ++compared;
    differ += same_bits(g[k2], f[mine[k2]]) ? 0 : 1;
  }
  EXPECT_GT(compared, 300);
  EXPECT_EQ(differ, 0);
}

TEST(ParticleContacts, AllPairsGravityEqualsDirectSum) {
  EDDY_REQUIRE_DEVICE();
  ParticleConfig config;
  config.enabled = true;
  config.kind = ParticleKind::inertial;
  config.pair_force = PairForce::gravity;
  config.gravity_constant = 0.05;
  config.softening = 0.7;
  const HostParticles h = random_particles(1000, {0, 0, 0}, {32, 32, 32}, 0.5, 1.5, 17);
  ParticleContacts gravity(config, whole_domain({32, 32, 32}, {false, false, false}));
  EXPECT_FALSE(gravity.contacts());
  const auto f = compute(gravity, h);
  std::vector<double> scale;
  const auto ref = direct_gravity(h, config.gravity_constant, config.softening, scale);
  int bad = 0;
  double worst = 0.0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double norm = std::sqrt(ref[i][0] * ref[i][0] + ref[i][1] * ref[i][1] + ref[i][2] * ref[i][2]);
    for (int a = 0; a < 3; ++a) {
      const double err = std::abs(f[i][a] - ref[i][a]);
      worst = std::max(worst, err / norm);
      if ((err > 1e-5 * norm || err > 1e-12 * scale[i]) && ++bad <= 5) {
        ADD_FAILURE() << "particle " << i << " axis " << a << ": " << f[i][a] << " vs " << ref[i][a];
      }
    }
  }
  EXPECT_EQ(bad, 0);
  RecordProperty("max_relative_error", std::to_string(worst));
}

TEST(ParticleContacts, ForcesSumToZero) {
  EDDY_REQUIRE_DEVICE();
  // Dense set (many contacts) with contacts and gravity: every pair force is equal and opposite.
  ParticleConfig config = contact_config(1.4, 1.0, 0.3);
  config.pair_force = PairForce::gravity;
  config.gravity_constant = 0.1;
  config.softening = 0.3;
  const HostParticles h = random_particles(800, {0, 0, 0}, {12, 12, 12}, 0.9, 1.4, 8);
  ParticleContacts contacts(config, whole_domain({12, 12, 12}, {true, true, true}));
  const auto f = compute(contacts, h);
  Vec3 total = {0, 0, 0};
  double magnitude = 0.0;
  for (const auto& v : f) {
    for (int a = 0; a < 3; ++a) {
      total[a] += v[a];
      magnitude += std::abs(v[a]);
    }
  }
  ASSERT_GT(magnitude, 1.0);
  for (int a = 0; a < 3; ++a) EXPECT_LE(std::abs(total[a]), 1e-12 * magnitude) << "axis " << a;
}

TEST(ParticleContacts, BuffersGrowAndCellsResetBetweenCalls) {
  EDDY_REQUIRE_DEVICE();
  const double k = 0.9, gamma = 0.1;
  const std::array<int, 3> size = {20, 20, 20};
  ParticleContacts contacts(contact_config(1.5, k, gamma), whole_domain(size, {false, true, false}));
  // Few, many (the buffers grow), then few elsewhere: stale cells of the large set would add phantom contacts.
  const std::size_t counts[3] = {40, 1500, 60};
  const Vec3 hi[3] = {{6, 6, 6}, {20, 20, 20}, {20, 20, 20}};
  for (int call = 0; call < 3; ++call) {
    const HostParticles h = random_particles(counts[call], {0, 0, 0}, hi[call], 0.9, 1.5, 40 + call);
    const auto f = compute(contacts, h);
    const auto ref = brute_force_contacts(h, {20, 20, 20}, {false, true, false}, k, gamma);
    expect_close(f, ref, 1e-12);
    EXPECT_GE(contacts.capacity(), std::int64_t(counts[call]));
  }
}

TEST(ParticleContacts, NothingEnabledSetsForcesToZero) {
  EDDY_REQUIRE_DEVICE();
  ParticleConfig config = contact_config(1.0, 1.0, 0.0);
  config.contacts = false;
  ParticleContacts none(config, whole_domain({8, 8, 8}, {false, false, false}));
  EXPECT_FALSE(none.contacts());
  EXPECT_FALSE(none.pair_gravity());
  const HostParticles h = random_particles(50, {0, 0, 0}, {8, 8, 8}, 1.0, 1.0, 2);
  for (const auto& v : compute(none, h)) {
    for (double c : v) EXPECT_EQ(c, 0.0);
  }
}

TEST(ParticleContacts, RejectsBadParameters) {
  const ContactRegion region = whole_domain({8, 8, 8}, {false, false, false});
  EXPECT_THROW(ParticleContacts(contact_config(0.0, 1.0, 0.0), region), std::invalid_argument);
  EXPECT_THROW(ParticleContacts(all_pairs_config(0.0, 1.0, 0.0), region), std::invalid_argument);
  EXPECT_THROW(ParticleContacts(all_pairs_config(1.0, -1.0, 0.0), region), std::invalid_argument);
  EXPECT_THROW(ParticleContacts(contact_config(1.0, -1.0, 0.0), region), std::invalid_argument);
  EXPECT_THROW(ParticleContacts(contact_config(1.0, 1.0, std::nan("")), region), std::invalid_argument);
  ParticleConfig g;
  g.enabled = true;
  g.pair_force = PairForce::gravity;
  g.softening = -1.0;
  EXPECT_THROW(ParticleContacts(g, region), std::invalid_argument);
}

}  // namespace
}  // namespace eddy
