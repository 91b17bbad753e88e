#include "tests/reference/reference_lbm.hpp"

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

std::vector<double> ReferenceLbm::stream() const {
  const int nx = config_.size[0], ny = config_.size[1], nz = config_.size[2];
  std::vector<double> out(19 * n_, 0.0);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t k = x + std::size_t(nx) * (y + std::size_t(ny) * z);
        if (solid_[k] >= 0) continue;  // solid cells take no part
        for (int i = 0; i < 19; ++i) {
          int target[3] = {x + kVelocity[i][0], y + kVelocity[i][1], z + kVelocity[i][2]};
          // Which non-periodic faces does the link cross? Its wall moves with their velocity if they all share
          // it (a resting wall counts as 0), and rests where they differ (the edge rule, kernels/cell_flags.hpp).
          int crossed = 0;
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
          const std::size_t t = target[0] + std::size_t(nx) * (target[1] + std::size_t(ny) * target[2]);
          const int solid = solid_[t];
          if (solid < 0) {
            out[i * n_ + t] = value;
            continue;
          }
          // Into a solid body: half-way, or interpolated with the second node x - c_i when it is fluid.
          double result = value;
          int behind[3] = {x - kVelocity[i][0], y - kVelocity[i][1], z - kVelocity[i][2]};
          bool behind_fluid = true;
          for (int a = 0; a < 3; ++a) {
            const int n = config_.size[a];
            if (behind[a] >= 0 && behind[a] < n) continue;
            if (config_.faces[2 * a].kind != FaceKind::periodic) behind_fluid = false;
            behind[a] = (behind[a] + n) % n;
          }
          const std::size_t b = behind[0] + std::size_t(nx) * (behind[1] + std::size_t(ny) * behind[2]);
          behind_fluid = behind_fluid && solid_[b] < 0;
          if (config_.solids[std::size_t(solid)].wall == SolidWall::interpolated && behind_fluid) {
            const double q = q_[i * n_ + k];
            if (q < 0.5) {
              result = 2.0 * q * value + (1.0 - 2.0 * q) * f_[i * n_ + b];
            } else {
              result = (value + (2.0 * q - 1.0) * f_[opposite(i) * n_ + k]) / (2.0 * q);
            }
          }
          out[opposite(i) * n_ + k] = result;
        }
      }
  return out;
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
    for (int i = 0; i < 19; ++i) {
      const int o = opposite(i);
      const double fi = f[i * n_ + k], fo = f[o * n_ + k];
      const double f_sym = 0.5 * (fi + fo), f_anti = 0.5 * (fi - fo);
      const double eq_sym = 0.5 * (feq[i] + feq[o]), eq_anti = 0.5 * (feq[i] - feq[o]);
      const double s_sym = 0.5 * (source[i] + source[o]), s_anti = 0.5 * (source[i] - source[o]);
      post[i] = fi - omega_plus_ * (f_sym - eq_sym) - omega_minus_ * (f_anti - eq_anti) +
                (1.0 - 0.5 * omega_plus_) * s_sym + (1.0 - 0.5 * omega_minus_) * s_anti;
    }
    for (int i = 0; i < 19; ++i) f[i * n_ + k] = post[i];
  }
}

void ReferenceLbm::step() {
  std::vector<double> f = stream();
  collide(f);
  f_.swap(f);
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
