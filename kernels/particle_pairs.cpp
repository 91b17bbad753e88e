// All-pairs forces between particles: soft-sphere contacts and softened gravity, direct O(n^2) sums.
//
// Contacts: the force on particle i from every particle j it overlaps, delta = (d_i + d_j)/2 - |r_ij| > 0,
//   F_i = sum_{j: id_j != id_i} (k delta - gamma (v_i - v_j) . n) n,   n = r_ij / |r_ij|,   r_ij = x_i - x_j
// (minimum image on the wrapped axes of the CellGrid; across ranks and periodic faces the partners include ghost
// copies, which get no force themselves), the linear spring-dashpot normal force (Cundall & Strack
// 1979, Geotechnique 29(1), 47-65). The pair term is add_contact_force (kernels/contact_launchers.hpp), the same
// function the cell list of kernels/particle_contacts.cpp calls: both searches find the same pairs and compute the
// same terms; only the order of the sum differs (ids here, neighbour cells then ids there).
//
// Gravity (Plummer softening):
//   F_i = G m_i sum_{j != i} m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2),   m = density * pi d^3 / 6
// (Aarseth 2003, Gravitational N-Body Simulations, Cambridge University Press: the softened potential
// -G m_j / sqrt(r^2 + eps^2) and its force). Positions as stored (no periodic images). The sources are a separate
// list (across ranks, every particle of the run, gathered by solver/particle_system.cpp); a target skips the source
// with its own id.
// Lattice units, fluid density 1; double precision positions and sums on every backend.
//
// Both through for_each_target_tiled (kernels/pair_tiles.hpp): on GPUs each block stages 128 sources in shared
// memory at a time. Sources are visited in ascending id order (by_id), so the sum of particle i does not depend on
// the order of the arrays.
// Bytes, gravity: per target 32 read + 24 written (48 with accumulate); per block and source 4 + 48 read (sources
// of one block shared), i.e. about n * (n / 128) * 52 bytes of global reads per step on GPUs; ~20 flops per pair.
// Bytes, contacts: per target 64 read + 24 written (48 with accumulate); per block and source 4 + 64 read
// (position, velocity, diameter, id), about targets * (n / 128) * 68 bytes of global reads per step on GPUs; ~15 flops
// per pair apart, ~40 per overlapping pair.
#include <cmath>

#include "kernels/contact_launchers.hpp"
#include "kernels/pair_tiles.hpp"

namespace eddy {
namespace {

struct PairGravity {
  struct Source {
    double x[3];
    double mass;
    std::int64_t id;  ///< the source's id (a target skips itself: the same id)
  };
  struct Accumulator {
    double x[3];    ///< the target's position
    double sum[3];  ///< sum_j m_j (x_j - x_i) / (r^2 + eps^2)^(3/2)
    std::int64_t id;
  };

  ParticleView p;              ///< targets
  ParticleView sources;        ///< x, diameter, density, id read
  const std::uint32_t* by_id;  ///< sources in ascending id order
  double gravity_constant;
  double softening2;
  bool accumulate;

  EDDY_HOST_DEVICE static double mass(double density, double diameter) {
    constexpr double kPi = 3.14159265358979323846;
    return density * (kPi / 6.0) * diameter * diameter * diameter;
  }

  EDDY_HOST_DEVICE Source source(std::int64_t j) const {
    const std::int64_t k = by_id[j];
    Source s;
    s.x[0] = sources.x[0][k];
    s.x[1] = sources.x[1][k];
    s.x[2] = sources.x[2][k];
    s.mass = mass(sources.density[k], sources.diameter[k]);
    s.id = sources.id[k];
    return s;
  }

  EDDY_HOST_DEVICE Accumulator start(std::int64_t i) const {
    Accumulator acc;
    for (int a = 0; a < 3; ++a) {
      acc.x[a] = p.x[a][i];
      acc.sum[a] = 0.0;
    }
    acc.id = p.id[i];
    return acc;
  }

  EDDY_HOST_DEVICE void interact(Accumulator& acc, std::int64_t, const Source& s) const {
    if (s.id == acc.id) return;
    const double r[3] = {s.x[0] - acc.x[0], s.x[1] - acc.x[1], s.x[2] - acc.x[2]};
    const double q = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + softening2;
    if (!(q > 0.0)) return;  // coincident particles without softening: no direction, no force
    const double w = s.mass / (q * sqrt(q));
    for (int a = 0; a < 3; ++a) acc.sum[a] += w * r[a];
  }

  EDDY_HOST_DEVICE void finish(std::int64_t i, const Accumulator& acc) const {
    const double scale = gravity_constant * mass(p.density[i], p.diameter[i]);
    for (int a = 0; a < 3; ++a) {
      const double f = scale * acc.sum[a];
      p.force[a][i] = accumulate ? p.force[a][i] + f : f;
    }
  }
};

/// Contacts over all pairs: the target keeps its sphere and force sum; sources are whole spheres.
struct AllPairsContacts {
  struct Source {
    ContactSphere sphere;
    std::int64_t id;  ///< the source's id (a target skips itself and its own periodic images)
  };
  struct Accumulator {
    ContactSphere sphere;  ///< the target's
    double f[3];
    std::int64_t id;
  };

  ParticleView p;
  const std::uint32_t* by_id;
  CellGrid grid;
  ContactParams params;
  bool accumulate;

  EDDY_HOST_DEVICE ContactSphere sphere(std::int64_t k) const {
    return ContactSphere{{p.x[0][k], p.x[1][k], p.x[2][k]}, {p.v[0][k], p.v[1][k], p.v[2][k]}, 0.5 * p.diameter[k]};
  }

  EDDY_HOST_DEVICE Source source(std::int64_t j) const {
    const std::int64_t k = by_id[j];
    Source s;
    s.sphere = sphere(k);
    s.id = p.id[k];
    return s;
  }

  EDDY_HOST_DEVICE Accumulator start(std::int64_t i) const {
    Accumulator acc;
    acc.sphere = sphere(i);
    acc.f[0] = acc.f[1] = acc.f[2] = 0.0;
    acc.id = p.id[i];
    return acc;
  }

  EDDY_HOST_DEVICE void interact(Accumulator& acc, std::int64_t, const Source& s) const {
    if (s.id == acc.id) return;
    add_contact_force(acc.sphere, s.sphere, grid, params, acc.f);
  }

  EDDY_HOST_DEVICE void finish(std::int64_t i, const Accumulator& acc) const {
    for (int a = 0; a < 3; ++a) p.force[a][i] = accumulate ? p.force[a][i] + acc.f[a] : acc.f[a];
  }
};

}  // namespace

void contact_forces_all_pairs(const ParticleView& p, std::int64_t targets, const std::uint32_t* by_id,
                              const CellGrid& grid, const ContactParams& params, bool accumulate,
                              const backend::Stream* stream) {
  if (p.n <= 0 || targets <= 0) return;
  const AllPairsContacts f{p, by_id, grid, params, accumulate};
  for_each_target_tiled(targets < p.n ? targets : p.n, p.n, f, "particle_contacts_all_pairs", stream);
}

void pair_gravity_forces(const ParticleView& p, const ParticleView& s, const std::uint32_t* s_by_id,
                         const PairGravityParams& params, bool accumulate, const backend::Stream* stream) {
  if (p.n <= 0) return;
  const PairGravity f{p, s, s_by_id, params.gravity_constant, params.softening * params.softening, accumulate};
  for_each_target_tiled(p.n, s.n, f, "particle_pair_gravity", stream);
}

}  // namespace eddy
