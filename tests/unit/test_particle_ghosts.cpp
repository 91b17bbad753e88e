// Unit tests of the ghost particles on one rank (solver/particle_ghosts.hpp, kernels/ghost_launchers.hpp): across the
// periodic faces a rank spans alone its own particles near one face become its ghosts beyond the other, shifted by
// the period, each image exactly once (faces, edges and corners); the contact forces from own particles plus ghosts
// (cell list and all pairs) equal a brute-force minimum-image double loop, and on a periodic axis thinner than two
// reaches every image within reach counts; the order of the arrays does not change a bit; and a contact cutoff larger
// than a block is refused with exit code 7 (RankCountError). The same exchange between ranks is tested under MPI
// (tests/mpi/test_mpi_ghost_particles.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "solver/decomposition.hpp"
#include "solver/particle_arrays.hpp"
#include "solver/particle_contacts.hpp"
#include "solver/particle_ghosts.hpp"
#include "tests/test_support.hpp"
#include "tests/unit/contact_test_support.hpp"

namespace eddy {
namespace {

using test::HostParticles;
using test::Vec3;

/// A one-rank decomposition of a `size` domain, periodic on the axes in `periodic` (walls elsewhere).
Decomposition one_rank(std::array<int, 3> size, std::array<bool, 3> periodic) {
  CaseConfig c = test::box_case(size[0], size[1], size[2], 0.8);
  for (int a = 0; a < 3; ++a)
    if (periodic[a]) test::make_periodic(c, a);
  return serial_decomposition(c);
}

/// `h` in device arrays (ids as given).
void upload(ParticleArrays& arrays, const HostParticles& h) {
  const std::int64_t n = std::int64_t(h.size());
  arrays.reserve(n);
  const std::size_t doubles = h.size() * sizeof(double);
  for (int a = 0; a < 3; ++a) {
    backend::copy_to_device(arrays.x[a].data(), h.x[a].data(), doubles);
    backend::copy_to_device(arrays.v[a].data(), h.v[a].data(), doubles);
  }
  backend::copy_to_device(arrays.diameter.data(), h.d.data(), doubles);
  backend::copy_to_device(arrays.density.data(), h.rho.data(), doubles);
  backend::copy_to_device(arrays.id.data(), h.id.data(), h.size() * sizeof(std::int64_t));
}

std::vector<double> download(const DeviceBuffer<double>& b, std::int64_t n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  backend::synchronize();
  if (n > 0) backend::copy_to_host(out.data(), b.data(), out.size() * sizeof(double));
  return out;
}

/// Random particles with ids 0 .. n-1 in a shuffled order (the ghost keys need ids in [0, 2^58)).
HostParticles particles_with_small_ids(std::size_t n, Vec3 hi, double d_min, double d_max, std::uint64_t seed) {
  HostParticles h = test::random_particles(n, {0, 0, 0}, hi, d_min, d_max, seed);
  std::vector<std::int64_t> ids(n);
  for (std::size_t k = 0; k < n; ++k) ids[k] = std::int64_t(k);
  std::shuffle(ids.begin(), ids.end(), std::mt19937_64(seed + 1));
  h.id = ids;
  return h;
}

/// A particle near every face, edge and corner of the 24 x 20 x 16 box (ids from 100000), diameter 1.2.
void add_corner_particles(HostParticles& h) {
  std::int64_t id = 100000;
  for (double x : {0.3, 12.0, 23.6})
    for (double y : {0.2, 10.0, 19.5})
      for (double z : {0.4, 8.0, 15.7}) h.add({x, y, z}, {0.01, -0.02, 0.005}, 1.2, 1.5, id++);
}

struct Ghosts {
  std::int64_t total = 0;
  std::vector<double> x[3];
  std::vector<std::int64_t> id;
  std::vector<int> image;  ///< of the ghosts, [total - owned]
};

Ghosts exchange(ParticleGhosts& ghosts, ParticleArrays& arrays, std::int64_t owned) {
  Ghosts g;
  g.total = ghosts.exchange(arrays, owned);
  for (int a = 0; a < 3; ++a) g.x[a] = download(arrays.x[a], g.total);
  g.id.resize(std::size_t(g.total));
  backend::copy_to_host(g.id.data(), arrays.id.data(), g.id.size() * sizeof(std::int64_t));
  std::vector<std::uint8_t> codes(std::size_t(g.total - owned));
  if (!codes.empty()) backend::copy_to_host(codes.data(), ghosts.images(owned).code, codes.size());
  g.image.assign(codes.begin(), codes.end());
  return g;
}

TEST(ParticleGhosts, OneRankGetsEachPeriodicImageWithinTheCutoffExactlyOnce) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> size = {24, 20, 16};
  const std::array<bool, 3> periodic = {true, true, false};
  const double cutoff = 1.6;
  HostParticles h = particles_with_small_ids(700, {24, 20, 16}, 0.6, 1.6, 31);
  add_corner_particles(h);
  ParticleArrays arrays;
  upload(arrays, h);
  ParticleGhosts ghosts(one_rank(size, periodic), cutoff, HaloTransport::host);
  EXPECT_TRUE(ghosts.axes()[0] && ghosts.axes()[1] && !ghosts.axes()[2]);
  const std::int64_t owned = std::int64_t(h.size());
  const Ghosts g = exchange(ghosts, arrays, owned);

  // Expected: for each particle, every non-zero combination of per-axis shifts s_a in {0} + {+1 if x_a < c} +
  // {-1 if x_a >= L_a - c} on the periodic axes, at x_a + s_a L_a.
  std::map<std::pair<std::int64_t, int>, Vec3> want;
  for (std::size_t k = 0; k < h.size(); ++k) {
    std::vector<int> shifts[3];
    for (int a = 0; a < 3; ++a) {
      shifts[a] = {0};
      if (!periodic[a]) continue;
      if (h.x[a][k] < cutoff) shifts[a].push_back(1);
      if (h.x[a][k] >= size[a] - cutoff) shifts[a].push_back(-1);
    }
    for (int sx : shifts[0])
      for (int sy : shifts[1])
        for (int sz : shifts[2]) {
          if (sx == 0 && sy == 0 && sz == 0) continue;
          const int image = (sx + 1) + 3 * (sy + 1) + 9 * (sz + 1);
          want[{h.id[k], image}] = {h.x[0][k] + sx * size[0], h.x[1][k] + sy * size[1], h.x[2][k] + sz * size[2]};
        }
  }
  ASSERT_EQ(g.total - owned, std::int64_t(want.size()));
  EXPECT_GT(want.size(), 150u);
  std::set<std::pair<std::int64_t, int>> seen;
  int corners = 0;
  for (std::int64_t k = owned; k < g.total; ++k) {
    const std::pair<std::int64_t, int> key{g.id[std::size_t(k)], g.image[std::size_t(k - owned)]};
    EXPECT_TRUE(seen.insert(key).second) << "image " << key.second << " of particle " << key.first << " twice";
    const auto it = want.find(key);
    ASSERT_NE(it, want.end()) << "unexpected image " << key.second << " of particle " << key.first;
    for (int a = 0; a < 3; ++a) EXPECT_EQ(g.x[a][std::size_t(k)], it->second[a]);
    corners += (key.second % 3 != 1 && (key.second / 3) % 3 != 1) ? 1 : 0;
  }
  EXPECT_GE(corners, 4);  // the x-y edges (corners of the periodic plane) came in two hops
  // The own particles are untouched.
  for (std::size_t k = 0; k < h.size(); ++k) EXPECT_EQ(g.x[0][k], h.x[0][k]);
  // A second exchange replaces the ghosts (same result, not appended).
  EXPECT_EQ(ghosts.exchange(arrays, owned), g.total);
  EXPECT_EQ(ghosts.stats().exchanges, 2);
}

/// Contact forces of the own particles of `h` with ghosts on one rank of `size` (periodic as given).
std::vector<Vec3> forces_with_ghosts(const HostParticles& h, std::array<int, 3> size, std::array<bool, 3> periodic,
                                     const ParticleConfig& config) {
  ParticleArrays arrays;
  upload(arrays, h);
  const Decomposition d = one_rank(size, periodic);
  ParticleGhosts ghosts(d, config.diameter, HaloTransport::host);
  const std::int64_t owned = std::int64_t(h.size());
  const std::int64_t total = ghosts.exchange(arrays, owned);
  ContactRegion region = test::whole_domain(size, periodic);
  region.halo = config.diameter;
  region.halo_axes = ghosts.axes();
  ParticleContacts contacts(config, region);
  EXPECT_FALSE(contacts.grid().wrap[0] || contacts.grid().wrap[1] || contacts.grid().wrap[2]);
  ContactParticles in;
  in.all = arrays.view(total);
  in.images = ghosts.images(owned);
  for (int a = 0; a < 3; ++a) {  // a fill that must not survive
    const std::vector<double> fill(std::size_t(arrays.capacity), 123.0);
    backend::copy_to_device(arrays.force[a].data(), fill.data(), fill.size() * sizeof(double));
  }
  contacts.compute_forces(in);
  const auto fx = download(arrays.force[0], owned), fy = download(arrays.force[1], owned),
             fz = download(arrays.force[2], owned);
  std::vector<Vec3> f(static_cast<std::size_t>(owned));
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = {fx[k], fy[k], fz[k]};
  return f;
}

TEST(ParticleGhosts, ContactsWithGhostsEqualTheMinimumImageBruteForce) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> size = {24, 20, 16};
  const std::array<bool, 3> periodic = {true, true, false};
  const double k = 0.8, gamma = 0.05;
  HostParticles h = particles_with_small_ids(700, {24, 20, 16}, 0.6, 1.6, 11);
  add_corner_particles(h);
  int across = 0;
  const auto ref = test::brute_force_contacts(h, {24, 20, 16}, periodic, k, gamma, &across);
  EXPECT_GE(across, 20);  // contacts across the periodic faces and edges
  const auto cell_list = forces_with_ghosts(h, size, periodic, test::contact_config(1.6, k, gamma));
  test::expect_close(cell_list, ref, 1e-12);
  const auto all_pairs = forces_with_ghosts(h, size, periodic, test::all_pairs_config(1.6, k, gamma));
  test::expect_close(all_pairs, ref, 1e-12);
}

TEST(ParticleGhosts, FullyPeriodicBoxAndPermutedArraysGiveTheSameBits) {
  EDDY_REQUIRE_DEVICE();
  // Dense (about 4 partners per particle): the order of the terms matters to the last bit; the ghosts come in an
  // order set by the threads, the sums in (cell, id, image) order whatever the arrays' order.
  const std::array<int, 3> size = {12, 12, 12};
  const std::array<bool, 3> periodic = {true, true, true};
  const double k = 0.6, gamma = 0.2;
  const HostParticles h = particles_with_small_ids(900, {12, 12, 12}, 0.8, 1.4, 5);
  const ParticleConfig config = test::contact_config(1.4, k, gamma);
  const auto f = forces_with_ghosts(h, size, periodic, config);
  test::expect_close(f, test::brute_force_contacts(h, {12, 12, 12}, periodic, k, gamma), 1e-12);
  std::vector<std::size_t> perm(h.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(9));
  const auto g = forces_with_ghosts(h.select(perm), size, periodic, config);
  int differ = 0;
  for (std::size_t i = 0; i < perm.size(); ++i) differ += test::same_bits(g[i], f[perm[i]]) ? 0 : 1;
  EXPECT_EQ(differ, 0);
}

TEST(ParticleGhosts, ThinPeriodicAxisSeesEveryImageWithinReach) {
  EDDY_REQUIRE_DEVICE();
  // z is periodic and 2 cells thick, the contact reach up to 1.4: a pair can touch directly and through the image
  // one period away at once (the minimum image alone would miss one of the two). The reference sums every image
  // j + s L (s = -1, 0, 1) within reach, written here independently.
  const std::array<int, 3> size = {10, 10, 2};
  const std::array<bool, 3> periodic = {true, false, true};
  const double k = 0.7, gamma = 0.1;
  HostParticles h = particles_with_small_ids(150, {10, 10, 2}, 0.9, 1.4, 23);
  std::vector<Vec3> ref(h.size(), Vec3{0, 0, 0});
  int double_touch = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    for (std::size_t j = 0; j < h.size(); ++j) {
      if (i == j) continue;
      int touches = 0;
      for (int sz = -1; sz <= 1; ++sz) {
        Vec3 r = {h.x[0][i] - h.x[0][j], h.x[1][i] - h.x[1][j], h.x[2][i] - (h.x[2][j] + 2.0 * sz)};
        r[0] -= 10.0 * std::round(r[0] / 10.0);  // x: wide, the minimum image is the only one
        const double dist = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        const double overlap = 0.5 * (h.d[i] + h.d[j]) - dist;
        if (overlap <= 0.0) continue;
        ++touches;
        double vn = 0.0;
        for (int a = 0; a < 3; ++a) vn += (h.v[a][i] - h.v[a][j]) * r[a] / dist;
        for (int a = 0; a < 3; ++a) ref[i][a] += (k * overlap - gamma * vn) * r[a] / dist;
      }
      double_touch += touches > 1 ? 1 : 0;
    }
  }
  EXPECT_GT(double_touch, 10);
  test::expect_close(forces_with_ghosts(h, size, periodic, test::contact_config(1.4, k, gamma)), ref, 1e-12);
  test::expect_close(forces_with_ghosts(h, size, periodic, test::all_pairs_config(1.4, k, gamma)), ref, 1e-12);
}

TEST(ParticleGhosts, ContactCutoffLargerThanABlockIsARankCountError) {
  CaseConfig c = test::box_case(10, 12, 8, 0.8);
  c.particles.enabled = true;
  c.particles.kind = ParticleKind::inertial;
  c.particles.contacts = true;
  c.particles.contact_stiffness = 1.0;
  c.particles.diameter = 3.0;
  Decomposition d = serial_decomposition(c);
  d.size = 4;
  d.dims = {1, 4, 1};  // blocks of 3 cells along y: a cutoff of 3 fits
  EXPECT_NO_THROW(check_contact_blocks(c, d));
  d.dims = {4, 1, 1};  // blocks of 2 (and 3) cells along x
  try {
    check_contact_blocks(c, d);
    ADD_FAILURE() << "no error for a cutoff of 3 cells on blocks of 2";
  } catch (const RankCountError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("particles.diameter = 3 cells"), std::string::npos) << what;
    EXPECT_NE(what.find("along x: 2 cells"), std::string::npos) << what;
    EXPECT_NE(what.find("4 MPI ranks"), std::string::npos) << what;
    EXPECT_NE(what.find("at most 3 ranks along x"), std::string::npos) << what;
  }
  c.particles.contacts = false;  // no contacts, no ghosts: any split
  EXPECT_NO_THROW(check_contact_blocks(c, d));
}

}  // namespace
}  // namespace eddy
