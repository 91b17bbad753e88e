// Shared helpers for eddy's tests: device availability, cases built in code, error norms.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/backend.hpp"
#include "solver/errors.hpp"

namespace eddy::test {

/// Skips the current test with a clear message when this build targets a GPU and none is visible.
#define EDDY_REQUIRE_DEVICE()                                                                              \
  do {                                                                                                     \
    if (::eddy::backend::device_count() == 0)                                                              \
      GTEST_SKIP() << "SKIPPED: no GPU visible to this " << ::eddy::backend::name()                        \
                   << " build; run on a machine with a GPU (or use the cpu backend) to execute this test"; \
  } while (0)

/// A case with every face a no-slip wall, tau given; callers adjust faces and then call finalize_case.
inline CaseConfig box_case(int nx, int ny, int nz, double tau) {
  CaseConfig c;
  c.name = "test";
  c.size = {nx, ny, nz};
  for (auto& f : c.faces) f.kind = FaceKind::wall;
  c.tau = tau;
  c.steps = 1;
  c.write_vtk = false;
  return c;
}

inline void make_periodic(CaseConfig& c, int axis) {
  c.faces[2 * axis].kind = FaceKind::periodic;
  c.faces[2 * axis + 1].kind = FaceKind::periodic;
}

/// A sphere named "ball" with halfway bounce-back walls (centre and radius in cells).
inline SolidConfig halfway_ball(std::array<double, 3> center, double radius) {
  SolidConfig ball;
  ball.name = "ball";
  ball.shape = SolidShape::sphere;
  ball.center = center;
  ball.radius = radius;
  ball.wall = SolidWall::halfway;
  return ball;
}

/// A periodic nx x ny x nz box holding a 3D Taylor-Green vortex of amplitude U (lattice units) in double, finalized.
inline CaseConfig periodic_taylor_green_3d(int nx, int ny, int nz, double tau, double amplitude) {
  CaseConfig c = box_case(nx, ny, nz, tau);
  for (int a = 0; a < 3; ++a) make_periodic(c, a);
  c.velocity = amplitude;
  c.initial = {InitialKind::taylor_green_3d, amplitude};
  c.precision = Precision::float64;
  finalize_case(c);
  return c;
}

/// max |a - b| / max |b|.
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

/// The InputError message of parsing the case text `text` read as `origin`, "" when it parses.
inline std::string case_error(const std::string& text, const std::string& origin) {
  try {
    parse_case(text, origin);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Expects parsing `text` as `origin` to fail with a message that starts "<origin>: " and holds `fragment`.
#define EDDY_EXPECT_CASE_ERROR(origin, text, fragment)                                                  \
  do {                                                                                                  \
    const std::string m_ = ::eddy::test::case_error(text, origin);                                      \
    EXPECT_EQ(m_.rfind(std::string(origin) + ": ", 0), 0u) << m_;                                       \
    EXPECT_NE(m_.find(fragment), std::string::npos) << "\"" << m_ << "\" lacks \"" << fragment << "\""; \
  } while (0)

/// Path of a file in tests/data.
inline std::string data_file(const std::string& name) { return std::string(EDDY_TEST_DATA_DIR) + "/" + name; }

}  // namespace eddy::test
