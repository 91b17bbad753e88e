#include "tests/reference/reference_lbm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "solver/solid_shapes.hpp"

namespace eddy::reference {

const int kVelocity[19][3] = {{0, 0, 0},  {1, 0, 0},   {-1, 0, 0},  {0, 1, 0},  {0, -1, 0}, {0, 0, 1},   {0, 0, -1},
                              {1, 1, 0},  {-1, -1, 0}, {1, -1, 0},  {-1, 1, 0}, {1, 0, 1},  {-1, 0, -1}, {1, 0, -1},
                              {-1, 0, 1}, {0, 1, 1},   {0, -1, -1}, {0, 1, -1}, {0, -1, 1}};
const double kWeight[19] = {1.0 / 3,  1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18,
                            1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36,
                            1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};

namespace {

constexpr double kCs2 = 1.0 / 3.0;

int opposite(int i) {
  for (int j = 0; j < 19; ++j)
    if (kVelocity[j][0] == -kVelocity[i][0] && kVelocity[j][1] == -kVelocity[i][1] &&
        kVelocity[j][2] == -kVelocity[i][2])
      return j;
  return -1;
}

double dot(const int c[3], const double v[3]) { return c[0] * v[0] + c[1] * v[1] + c[2] * v[2]; }

}  // namespace

ReferenceLbm::ReferenceLbm(const CaseConfig& config) : config_(config) {
  n_ = std::size_t(config.size[0]) * config.size[1] * config.size[2];
  omega_plus_ = 1.0 / config.tau;
  if (config.collision == Collision::bgk) {
    omega_minus_ = omega_plus_;
  } else {
    const double tau_minus = config.magic / (config.tau - 0.5) + 0.5;  // Lambda = (tau+ - 1/2)(tau- - 1/2)
    omega_minus_ = 1.0 / tau_minus;
  }
  f_.assign(19 * n_, 0.0);
  solid_.assign(n_, -1);
  for (int z = 0; z < config.size[2]; ++z)
    for (int y = 0; y < config.size[1]; ++y)
      for (int x = 0; x < config.size[0]; ++x)
        solid_[x + std::size_t(config.size[0]) * (y + std::size_t(config.size[1]) * z)] = solid_at(config, x, y, z);
  // The wall distance of every link from a fluid cell into a solid one (the fluid node seen from the solid cell,
  // across a periodic face if need be).
  q_.assign(19 * n_, -1.0);
  for (int z = 0; z < config.size[2]; ++z)
    for (int y = 0; y < config.size[1]; ++y)
      for (int x = 0; x < config.size[0]; ++x) {
        const std::size_t k = x + std::size_t(config.size[0]) * (y + std::size_t(config.size[1]) * z);
        if (solid_[k] >= 0) continue;
        for (int i = 1; i < 19; ++i) {
          int t[3] = {x + kVelocity[i][0], y + kVelocity[i][1], z + kVelocity[i][2]};
          bool inside = true;
          for (int a = 0; a < 3; ++a) {
            const int n = config.size[a];
            if (t[a] >= 0 && t[a] < n) continue;
            if (config.faces[2 * a].kind != FaceKind::periodic) inside = false;
            t[a] = (t[a] + n) % n;
          }
          if (!inside || solid_at(config, t[0], t[1], t[2]) < 0) continue;
          const double fluid[3] = {t[0] + 0.5 - kVelocity[i][0], t[1] + 0.5 - kVelocity[i][1],
                                   t[2] + 0.5 - kVelocity[i][2]};
          q_[i * n_ + k] = wall_distance(config, fluid, kVelocity[i]);
        }
      }
}

int ReferenceLbm::solid_at(const CaseConfig& config, int x, int y, int z) {
  const Point3 p = {x + 0.5, y + 0.5, z + 0.5};
  for (std::size_t k = 0; k < config.solids.size(); ++k)
    if (inside_solid(config.solids[k], p)) return int(k);
  return -1;
}

double ReferenceLbm::wall_distance(const CaseConfig& config, const double fluid[3], const int c[3]) {
  // A point is solid when a solid holds it wrapped into the domain (periodic axes) or it lies in the domain.
  const auto inside = [&](double t) {
    Point3 p;
    for (int a = 0; a < 3; ++a) {
      const double n = config.size[a];
      p[a] = fluid[a] + t * c[a];
      if (config.faces[2 * a].kind == FaceKind::periodic) {
        p[a] = p[a] < 0.0 ? p[a] + n : (p[a] >= n ? p[a] - n : p[a]);
      } else if (p[a] < 0.0 || p[a] > n) {
        return false;
      }
    }
    for (const SolidConfig& s : config.solids)
      if (inside_solid(s, p)) return true;
    return false;
  };
  double lo = 0.0, hi = 1.0;  // outside at lo, inside at hi
  for (int k = 0; k < 80; ++k) {
    const double mid = 0.5 * (lo + hi);
    (inside(mid) ? hi : lo) = mid;
  }
  return hi;
}

double ReferenceLbm::equilibrium(int i, double rho, const double u[3]) {
  const double cu = dot(kVelocity[i], u);
  const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  return kWeight[i] * rho * (1.0 + cu / kCs2 + cu * cu / (2 * kCs2 * kCs2) - uu / (2 * kCs2));
}

void ReferenceLbm::set_equilibrium(const std::vector<double>& rho, const std::array<std::vector<double>, 3>& u) {
  for (std::size_t k = 0; k < n_; ++k) {
    const double v[3] = {u[0][k], u[1][k], u[2][k]};
    for (int i = 0; i < 19; ++i) f_[i * n_ + k] = equilibrium(i, rho[k], v);
  }
}

void ReferenceLbm::moments(const std::vector<double>& f, std::size_t k, double& rho, double u[3]) const {
  rho = 0.0;
  double j[3] = {0, 0, 0};
  for (int i = 0; i < 19; ++i) {
    rho += f[i * n_ + k];
    for (int a = 0; a < 3; ++a) j[a] += kVelocity[i][a] * f[i * n_ + k];
  }
  double F[3];
  force_at(k, F);
  for (int a = 0; a < 3; ++a) u[a] = (j[a] + 0.5 * F[a]) / rho;
}

void ReferenceLbm::force_at(std::size_t k, double (&force)[3]) const {
  for (int a = 0; a < 3; ++a) force[a] = config_.body_force[a] + (force_field_[a].empty() ? 0.0 : force_field_[a][k]);
}

namespace {

/// The precedence of an open face's type where faces meet (cases/README.md, "Edges and corners"); 0 for walls.
int precedence(FaceKind kind) {
  switch (kind) {
    case FaceKind::velocity_inlet:
      return 4;
    case FaceKind::pressure_outlet:
      return 3;
    case FaceKind::outflow:
      return 2;
    case FaceKind::free_slip:
      return 1;
    default:
      return 0;
  }
}

/// The direction with velocity `c`.
int direction(const int c[3]) {
  for (int j = 0; j < 19; ++j)
    if (kVelocity[j][0] == c[0] && kVelocity[j][1] == c[1] && kVelocity[j][2] == c[2]) return j;
  return -1;
}

}  // namespace

void ReferenceLbm::post_moments(int x, int y, int z, double& rho, double u[3]) const {
  const std::size_t k = index(x, y, z);
  double m[3] = {0.0, 0.0, 0.0};
  rho = 0.0;
  for (int j = 0; j < 19; ++j) {
    rho += f_[j * n_ + k];
    for (int a = 0; a < 3; ++a) m[a] += kVelocity[j][a] * f_[j * n_ + k];
  }
  for (int a = 0; a < 3; ++a) u[a] = (m[a] - 0.5 * config_.body_force[a]) / rho;
}

double ReferenceLbm::open_population(std::size_t k, int i, const std::vector<int>& faces) const {
  int owner = faces[0];
  for (int face : faces)
    if (precedence(config_.faces[face].kind) > precedence(config_.faces[owner].kind)) owner = face;
  const FaceBoundary& b = config_.faces[owner];
  const int axis = owner / 2;
  const int nx = config_.size[0], ny = config_.size[1];
  const int p[3] = {int(k % nx), int((k / nx) % ny), int(k / (std::size_t(nx) * ny))};
  const int* c = kVelocity[i];
  // The cell x - t along the face (t: c without its normal part), if it is inside the domain (periodic wrap).
  int along[3] = {p[0], p[1], p[2]};
  int beyond = -1;  // the face x - t lies beyond, if any
  for (int a = 0; a < 3; ++a) {
    if (a == axis) continue;
    along[a] -= c[a];
    const int n = config_.size[a];
    if (along[a] >= 0 && along[a] < n) continue;
    if (config_.faces[2 * a].kind == FaceKind::periodic) {
      along[a] = (along[a] + n) % n;
    } else {
      beyond = 2 * a + (along[a] < 0 ? 0 : 1);
    }
  }
  // x - t inside a [[solid]] body: the rules read x itself, as across a face that is not free slip.
  const bool along_solid = beyond < 0 && solid_[index(along[0], along[1], along[2])] >= 0;
  const auto mirror = [&](int a) {
    int m[3] = {c[0], c[1], c[2]};
    m[a] = -m[a];
    return direction(m);
  };
  switch (b.kind) {
    case FaceKind::velocity_inlet: {
      // Velocity bounce-back with the inlet velocity where the link crosses the face, times the sin^2 ramp.
      double u[3] = {b.velocity[0], b.velocity[1], b.velocity[2]};
      if (b.profile == InletProfile::parabolic) {
        double shape = 1.0;
        for (int a = 0; a < 3; ++a) {
          if (a == axis || config_.faces[2 * a].kind == FaceKind::periodic || config_.size[a] == 1) continue;
          const double s = p[a] + 0.5 - 0.5 * c[a], h = config_.size[a];
          shape *= 4.0 * s * (h - s) / (h * h);
        }
        u[0] = u[1] = u[2] = 0.0;
        u[axis] = (owner % 2 == 0 ? 1.0 : -1.0) * b.speed * shape;
      }
      double ramp = 1.0;
      if (b.ramp_time > 0 && double(time_) < b.ramp_time) {
        ramp = std::pow(std::sin(M_PI * double(time_) / (2.0 * b.ramp_time)), 2);
      }
      for (double& v : u) v *= ramp;
      return f_[opposite(i) * n_ + k] + 2.0 * kWeight[i] * dot(c, u) / kCs2;
    }
    case FaceKind::pressure_outlet: {
      // Non-equilibrium extrapolation: the equilibrium at the ghost node (the density mirrored about the face value,
      // the velocity extrapolated from x and x + n) plus the non-equilibrium part of the inner neighbour x - t,
      // whose equilibrium is taken as that of x.
      double inner;
      if (beyond < 0 && !along_solid) {
        inner = f_[i * n_ + index(along[0], along[1], along[2])];
      } else if (beyond >= 0 && config_.faces[beyond].kind == FaceKind::free_slip) {
        inner = f_[mirror(beyond / 2) * n_ + k];
      } else {
        inner = f_[i * n_ + k];
      }
      double rho, u[3], rho_next, next[3], ug[3];
      post_moments(p[0], p[1], p[2], rho, u);
      int q[3] = {p[0], p[1], p[2]};
      q[axis] += c[axis];
      // x + n: u(x) where it is not a fluid cell of the domain (a solid body, or a domain one cell thick)
      if (q[axis] >= 0 && q[axis] < config_.size[axis] && solid_[index(q[0], q[1], q[2])] < 0) {
        post_moments(q[0], q[1], q[2], rho_next, next);
      } else {
        for (int a = 0; a < 3; ++a) next[a] = u[a];
      }
      for (int a = 0; a < 3; ++a) ug[a] = 2.0 * u[a] - next[a];
      return inner + equilibrium(i, 2.0 * b.density - rho, ug) - equilibrium(i, rho, u);
    }
    case FaceKind::outflow: {
      double inner;
      if (beyond < 0 && !along_solid) {
        inner = f_[i * n_ + index(along[0], along[1], along[2])];
      } else if (beyond >= 0 && config_.faces[beyond].kind == FaceKind::free_slip) {
        inner = f_[mirror(beyond / 2) * n_ + k];
      } else {
        inner = f_[i * n_ + k];
      }
      if (b.scheme == OutflowScheme::zero_gradient || !have_history_) return inner;
      const double lambda = b.convection_velocity;
      return (history_[i * n_ + k] + lambda * inner) / (1.0 + lambda);
    }
    case FaceKind::free_slip:
      if (beyond >= 0 || along_solid) return f_[opposite(i) * n_ + k];
      return f_[mirror(axis) * n_ + index(along[0], along[1], along[2])];
    default:
      return 0.0;
  }
}

std::vector<double> ReferenceLbm::stream(std::vector<double>* entering) const {
  const int nx = config_.size[0], ny = config_.size[1], nz = config_.size[2];
  std::vector<double> out(19 * n_, 0.0);
  // Near interpolated links (q < 1/2) whose second node x - c_i lies beyond an open face: that node's population
  // along c_i is the one the open face sends into x, known after the open loop below ([i * n + k] pairs).
  std::vector<std::pair<std::size_t, int>> near_open;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t k = x + std::size_t(nx) * (y + std::size_t(ny) * z);
        if (solid_[k] >= 0) continue;  // solid cells take no part
        for (int i = 0; i < 19; ++i) {
          int target[3] = {x + kVelocity[i][0], y + kVelocity[i][1], z + kVelocity[i][2]};
          // Which non-periodic faces does the link cross? Its wall moves with their velocity if they all share
          // it (a resting wall counts as 0), and rests where they differ (the edge rule, kernels/cell_flags.hpp).
          // Only wall faces count: a wall beats an open face; a link that crosses open faces only leaves the domain.
          int crossed = 0, crossed_open = 0;
          bool same = true;
          double uw[3] = {0.0, 0.0, 0.0};
          for (int a = 0; a < 3; ++a) {
            const int n = config_.size[a];
            if (target[a] >= 0 && target[a] < n) continue;
            const int face = 2 * a + (target[a] < 0 ? 0 : 1);
            const FaceKind kind = config_.faces[face].kind;
            if (kind == FaceKind::periodic) {
              target[a] = (target[a] + n) % n;
              continue;
            }
            if (precedence(kind) > 0) {
              ++crossed_open;
              continue;
            }
            double v[3] = {0.0, 0.0, 0.0};
            if (kind == FaceKind::moving_wall)
              for (int b = 0; b < 3; ++b) v[b] = config_.faces[face].velocity[b];
            if (crossed++ == 0) {
              for (int b = 0; b < 3; ++b) uw[b] = v[b];
            } else if (v[0] != uw[0] || v[1] != uw[1] || v[2] != uw[2]) {
              same = false;
            }
          }
          const double value = f_[i * n_ + k];
          if (crossed > 0) {
            if (!same) uw[0] = uw[1] = uw[2] = 0.0;
            const double correction = 2.0 * kWeight[i] * 1.0 * dot(kVelocity[i], uw) / kCs2;  // rho_w = 1
            out[opposite(i) * n_ + k] = value - correction;
            continue;
          }
          if (crossed_open > 0) continue;  // the population leaves the domain; the open face sends one in (below)
          const std::size_t t = target[0] + std::size_t(nx) * (target[1] + std::size_t(ny) * target[2]);
          const int solid = solid_[t];
          if (solid < 0) {
            out[i * n_ + t] = value;
            continue;
          }
          // Into a solid body: half-way, or interpolated with the second node x - c_i when it is fluid or lies beyond
          // open faces only (a ghost node of the open face: not solid); beyond a wall face it is solid.
          double result = value;
          int behind[3] = {x - kVelocity[i][0], y - kVelocity[i][1], z - kVelocity[i][2]};
          bool beyond_wall = false, beyond_open = false;
          for (int a = 0; a < 3; ++a) {
            const int n = config_.size[a];
            if (behind[a] >= 0 && behind[a] < n) continue;
            const FaceKind kind = config_.faces[2 * a + (behind[a] < 0 ? 0 : 1)].kind;
            if (kind == FaceKind::periodic) {
              behind[a] = (behind[a] + n) % n;
            } else if (precedence(kind) > 0) {
              beyond_open = true;
            } else {
              beyond_wall = true;
            }
          }
          bool behind_fluid = !beyond_wall;
          if (behind_fluid && !beyond_open) {
            const std::size_t b = behind[0] + std::size_t(nx) * (behind[1] + std::size_t(ny) * behind[2]);
            behind_fluid = solid_[b] < 0;
          }
          if (config_.solids[std::size_t(solid)].wall == SolidWall::interpolated && behind_fluid) {
            const double q = q_[i * n_ + k];
            if (q < 0.5 && beyond_open) {
              near_open.emplace_back(k, i);  // after the open loop
              continue;
            }
            if (q < 0.5) {
              const std::size_t b = behind[0] + std::size_t(nx) * (behind[1] + std::size_t(ny) * behind[2]);
              result = 2.0 * q * value + (1.0 - 2.0 * q) * f_[i * n_ + b];
            } else {
              result = (value + (2.0 * q - 1.0) * f_[opposite(i) * n_ + k]) / (2.0 * q);
            }
          }
          out[opposite(i) * n_ + k] = result;
        }
      }
  if (entering) entering->assign(19 * n_, std::numeric_limits<double>::quiet_NaN());
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t k = x + std::size_t(nx) * (y + std::size_t(ny) * z);
        if (solid_[k] >= 0) continue;
        for (int i = 1; i < 19; ++i) {
          // The population arriving along c_i comes from x - c_i: through open faces only, the open rule sets it.
          const int from[3] = {x - kVelocity[i][0], y - kVelocity[i][1], z - kVelocity[i][2]};
          std::vector<int> faces;
          bool wall = false;
          for (int a = 0; a < 3; ++a) {
            if (from[a] >= 0 && from[a] < config_.size[a]) continue;
            const int face = 2 * a + (from[a] < 0 ? 0 : 1);
            if (config_.faces[face].kind == FaceKind::periodic) continue;
            if (precedence(config_.faces[face].kind) == 0) wall = true;
            faces.push_back(face);
          }
          if (faces.empty() || wall) continue;
          out[i * n_ + k] = open_population(k, i, faces);
          if (entering) (*entering)[i * n_ + k] = out[i * n_ + k];
        }
      }
  // The near interpolated links through an open face: f*_i(x - c_i) is what the face sent into x along c_i.
  for (const auto& [k, i] : near_open) {
    const double q = q_[i * n_ + k];
    out[opposite(i) * n_ + k] = 2.0 * q * f_[i * n_ + k] + (1.0 - 2.0 * q) * out[i * n_ + k];
  }
  return out;
}

double ReferenceLbm::molecular_tau(std::size_t k) const {
  const std::size_t nx = config_.size[0], ny = config_.size[1];
  const int cell[3] = {int(k % nx), int(k / nx % ny), int(k / (nx * ny))};
  double excess = 0.0;
  for (int face = 0; face < 6; ++face) {
    const FaceBoundary& b = config_.faces[face];
    if (!is_open_face(b.kind) || b.sponge <= 0.0) continue;
    const int axis = face / 2;
    // The cell's centre lies at cell + 1/2; a _min face at 0, a _max face at size.
    const double centre = cell[axis] + 0.5;
    const double d = face % 2 == 0 ? centre : config_.size[axis] - centre;
    if (d >= b.sponge) continue;
    excess = std::max(excess, (b.sponge_tau - config_.tau) * (b.sponge - d) * (b.sponge - d) / (b.sponge * b.sponge));
  }
  return config_.tau + excess;
}

void ReferenceLbm::smagorinsky_rates(const std::vector<double>& f, std::size_t k, double rho, const double u[3],
                                     const double F[3], const double feq[19], double tau0, double& omega_plus,
                                     double& omega_minus) const {
  // Pi_neq = sum_i c_i c_i (f_i - f_eq_i) + (F u + u F) / 2 (Malaspinas & Sagaut 2012), summed over all 19 directions
  // of the unshifted populations, the full tensor.
  double pi_sq = 0.0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double p = 0.5 * (F[a] * u[b] + u[a] * F[b]);
      for (int i = 0; i < 19; ++i) p += kVelocity[i][a] * kVelocity[i][b] * (f[i * n_ + k] - feq[i]);
      pi_sq += p * p;
    }
  // nu = nu0 + C_S^2 |S| with |S| = sqrt(2 S:S) and S = -Pi_neq / (2 rho c_s^2 tau), tau = 3 nu + 1/2: the positive
  // root of tau^2 - tau0 tau - 3 C_S^2 sqrt(2 pi_sq) / (2 rho c_s^2) = 0 (Hou et al. 1996).
  const double c2 = config_.smagorinsky_constant * config_.smagorinsky_constant;
  const double q = 3.0 * c2 * std::sqrt(2.0 * pi_sq) / (2.0 * rho * kCs2);
  const double tau = 0.5 * (tau0 + std::sqrt(tau0 * tau0 + 4.0 * q));
  omega_plus = 1.0 / tau;
  omega_minus = config_.collision == Collision::bgk ? omega_plus : 1.0 / (config_.magic / (tau - 0.5) + 0.5);
}

void ReferenceLbm::collide(std::vector<double>& f) const {
  for (std::size_t k = 0; k < n_; ++k) {
    if (solid_[k] >= 0) continue;
    double rho, u[3], F[3];
    moments(f, k, rho, u);
    force_at(k, F);
    double feq[19], source[19], post[19];
    for (int i = 0; i < 19; ++i) {
      feq[i] = equilibrium(i, rho, u);
      const int* c = kVelocity[i];
      double s = 0.0;
      for (int a = 0; a < 3; ++a) s += ((c[a] - u[a]) / kCs2 + dot(c, u) * c[a] / (kCs2 * kCs2)) * F[a];
      source[i] = kWeight[i] * s;
    }
    double omega_plus = omega_plus_, omega_minus = omega_minus_;
    const double tau0 = molecular_tau(k);
    if (config_.les == LesModel::smagorinsky) {
      smagorinsky_rates(f, k, rho, u, F, feq, tau0, omega_plus, omega_minus);
    } else if (tau0 != config_.tau) {
      omega_plus = 1.0 / tau0;
      omega_minus = config_.collision == Collision::bgk ? omega_plus : 1.0 / (config_.magic / (tau0 - 0.5) + 0.5);
    }
    for (int i = 0; i < 19; ++i) {
      const int o = opposite(i);
      const double fi = f[i * n_ + k], fo = f[o * n_ + k];
      const double f_sym = 0.5 * (fi + fo), f_anti = 0.5 * (fi - fo);
      const double eq_sym = 0.5 * (feq[i] + feq[o]), eq_anti = 0.5 * (feq[i] - feq[o]);
      const double s_sym = 0.5 * (source[i] + source[o]), s_anti = 0.5 * (source[i] - source[o]);
      post[i] = fi - omega_plus * (f_sym - eq_sym) - omega_minus * (f_anti - eq_anti) +
                (1.0 - 0.5 * omega_plus) * s_sym + (1.0 - 0.5 * omega_minus) * s_anti;
    }
    for (int i = 0; i < 19; ++i) f[i * n_ + k] = post[i];
  }
}

void ReferenceLbm::step() {
  std::vector<double> entering;
  std::vector<double> f = stream(&entering);
  collide(f);
  f_.swap(f);
  history_.swap(entering);
  have_history_ = true;
  ++time_;
}

void ReferenceLbm::fields(std::vector<double>& rho, std::array<std::vector<double>, 3>& u) const {
  const std::vector<double> f = stream();
  rho.assign(n_, 0.0);
  for (auto& c : u) c.assign(n_, 0.0);
  for (std::size_t k = 0; k < n_; ++k) {
    if (solid_[k] >= 0) continue;  // rho = 0, u = 0, as eddy writes solid cells
    double v[3];
    moments(f, k, rho[k], v);
    for (int a = 0; a < 3; ++a) u[a][k] = v[a];
  }
}

}  // namespace eddy::reference
