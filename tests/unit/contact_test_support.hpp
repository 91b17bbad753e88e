// Helpers shared by the unit tests of the particle-particle forces (test_particle_contacts.cpp) and of the ghost
// particles (test_particle_ghosts.cpp): particles on the host and the device, configurations, a brute-force
// reference of the contact forces and a direct sum of the pair gravity, written from the formulas.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "solver/device_buffer.hpp"
#include "solver/particle_contacts.hpp"

namespace eddy::test {

using Vec3 = std::array<double, 3>;

/// Particles in host memory (structure of arrays, as ParticleView).
struct HostParticles {
  std::vector<double> x[3], v[3], d, rho;
  std::vector<std::int64_t> id;
  std::size_t size() const { return id.size(); }
  void add(Vec3 pos, Vec3 vel, double diameter, double density, std::int64_t ident) {
    for (int a = 0; a < 3; ++a) {
      x[a].push_back(pos[a]);
      v[a].push_back(vel[a]);
    }
    d.push_back(diameter);
    rho.push_back(density);
    id.push_back(ident);
  }
  /// Particles k in `indices`, in that order.
  HostParticles select(const std::vector<std::size_t>& indices) const {
    HostParticles out;
    for (std::size_t k : indices) {
      out.add({x[0][k], x[1][k], x[2][k]}, {v[0][k], v[1][k], v[2][k]}, d[k], rho[k], id[k]);
    }
    return out;
  }
};

/// The same particles in device memory (host memory on cpu), forces filled with `force_fill` (set, not add: the
/// fill must not survive).
struct DeviceParticles {
  DeviceBuffer<double> x[3], v[3], d, rho, f[3];
  DeviceBuffer<std::int64_t> id;
  std::int64_t n;
  explicit DeviceParticles(const HostParticles& h, double force_fill = 123.0) : n(std::int64_t(h.size())) {
    const std::size_t count = h.size();
    for (int a = 0; a < 3; ++a) {
      x[a] = DeviceBuffer<double>(count);
      x[a].upload(h.x[a]);
      v[a] = DeviceBuffer<double>(count);
      v[a].upload(h.v[a]);
      f[a] = DeviceBuffer<double>(count);
      f[a].upload(std::vector<double>(count, force_fill));
    }
    d = DeviceBuffer<double>(count);
    d.upload(h.d);
    rho = DeviceBuffer<double>(count);
    rho.upload(h.rho);
    id = DeviceBuffer<std::int64_t>(count);
    id.upload(h.id);
  }
  ParticleView view() const {
    return ParticleView{{x[0].data(), x[1].data(), x[2].data()},
                        {v[0].data(), v[1].data(), v[2].data()},
                        d.data(),
                        rho.data(),
                        id.data(),
                        {f[0].data(), f[1].data(), f[2].data()},
                        n};
  }
  std::vector<Vec3> forces() const {
    const auto fx = f[0].download(), fy = f[1].download(), fz = f[2].download();
    std::vector<Vec3> out(fx.size());
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = {fx[k], fy[k], fz[k]};
    return out;
  }
};

inline ParticleConfig contact_config(double diameter, double k, double gamma) {
  ParticleConfig c;
  c.enabled = true;
  c.kind = ParticleKind::inertial;
  c.diameter = diameter;
  c.contacts = true;
  c.contact_stiffness = k;
  c.contact_damping = gamma;
  return c;
}

inline ParticleConfig all_pairs_config(double diameter, double k, double gamma) {
  ParticleConfig c = contact_config(diameter, k, gamma);
  c.contact_search = ContactSearch::all_pairs;
  return c;
}

inline ContactRegion whole_domain(std::array<int, 3> size, std::array<bool, 3> periodic) {
  ContactRegion r;
  r.global_size = size;
  r.periodic = periodic;
  r.offset = {0, 0, 0};
  r.size = size;
  return r;
}

inline std::vector<Vec3> compute(ParticleContacts& contacts, const HostParticles& h) {
  DeviceParticles dev(h);
  contacts.compute_forces(dev.view());
  return dev.forces();
}

/// Brute-force contact forces, every ordered pair (i, j != i) in index order; the minimum image on the axes in
/// `wrap` through r - L * round(r / L) (a formulation other than the kernel's). `partners[i]`: the number of
/// particles i touches.
inline std::vector<Vec3> brute_force_contacts(const HostParticles& h, Vec3 length, std::array<bool, 3> wrap, double k,
                                              double gamma, int* contacts_across = nullptr,
                                              std::vector<int>* partners = nullptr) {
  const std::size_t n = h.size();
  std::vector<Vec3> f(n, Vec3{0.0, 0.0, 0.0});
  if (partners) partners->assign(n, 0);
  int across = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      Vec3 r;
      bool wrapped = false;
      for (int a = 0; a < 3; ++a) {
        r[a] = h.x[a][i] - h.x[a][j];
        if (wrap[a]) {
          const double shift = length[a] * std::round(r[a] / length[a]);
          wrapped = wrapped || shift != 0.0;
          r[a] -= shift;
        }
      }
      const double dist = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      const double overlap = 0.5 * (h.d[i] + h.d[j]) - dist;
      if (overlap <= 0.0 || dist == 0.0) continue;
      across += wrapped ? 1 : 0;
      if (partners) ++(*partners)[i];
      double vn = 0.0;
      for (int a = 0; a < 3; ++a) vn += (h.v[a][i] - h.v[a][j]) * r[a] / dist;
      for (int a = 0; a < 3; ++a) f[i][a] += (k * overlap - gamma * vn) * r[a] / dist;
    }
  }
  if (contacts_across) *contacts_across = across;
  return f;
}

/// Direct sum of the softened gravity, written from the formula: F_i = sum_{j != i} G m_i m_j (x_j - x_i) /
/// (|x_j - x_i|^2 + eps^2)^(3/2). `magnitude_sum[i]` = sum_j |term_ij| (the scale of the rounding error).
inline std::vector<Vec3> direct_gravity(const HostParticles& h, double G, double eps,
                                        std::vector<double>& magnitude_sum) {
  const double pi = std::acos(-1.0);
  const std::size_t n = h.size();
  std::vector<double> m(n);
  for (std::size_t i = 0; i < n; ++i) m[i] = h.rho[i] * pi * std::pow(h.d[i], 3) / 6.0;
  std::vector<Vec3> f(n, Vec3{0.0, 0.0, 0.0});
  magnitude_sum.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      Vec3 r;
      for (int a = 0; a < 3; ++a) r[a] = h.x[a][j] - h.x[a][i];
      const double s = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + eps * eps;
      const double c = G * m[i] * m[j] / std::pow(s, 1.5);
      for (int a = 0; a < 3; ++a) {
        f[i][a] += c * r[a];
        magnitude_sum[i] += std::abs(c * r[a]);
      }
    }
  }
  return f;
}

/// n particles uniformly in [lo, hi) per axis, diameters in [d_min, d_max], velocities in [-0.05, 0.05], densities
/// in [0.5, 3]; ids unique, scattered over the int64 range (negative and above 2^32 included).
inline HostParticles random_particles(std::size_t n, Vec3 lo, Vec3 hi, double d_min, double d_max, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::int64_t> ids(n);
  for (std::size_t k = 0; k < n; ++k) ids[k] = std::int64_t(k) * 1000003 - 4000000000LL + (std::int64_t(k % 3) << 40);
  std::shuffle(ids.begin(), ids.end(), rng);
  HostParticles h;
  for (std::size_t k = 0; k < n; ++k) {
    Vec3 x, v;
    for (int a = 0; a < 3; ++a) x[a] = lo[a] + (hi[a] - lo[a]) * unit(rng);
    for (int a = 0; a < 3; ++a) v[a] = 0.1 * (unit(rng) - 0.5);
    h.add(x, v, d_min + (d_max - d_min) * unit(rng), 0.5 + 2.5 * unit(rng), ids[k]);
  }
  return h;
}

inline double max_abs(const std::vector<Vec3>& f) {
  double m = 0.0;
  for (const auto& v : f) {
    for (double c : v) m = std::max(m, std::abs(c));
  }
  return m;
}

inline void expect_close(const std::vector<Vec3>& got, const std::vector<Vec3>& want, double relative) {
  ASSERT_EQ(got.size(), want.size());
  const double scale = max_abs(want);
  ASSERT_GT(scale, 0.0);
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    for (int a = 0; a < 3; ++a) {
      if (std::abs(got[i][a] - want[i][a]) > relative * scale && ++bad <= 5) {
        ADD_FAILURE() << "particle " << i << " axis " << a << ": " << got[i][a] << " vs " << want[i][a];
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

inline bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(a.data(), b.data(), sizeof(Vec3)) == 0; }

}  // namespace eddy::test
