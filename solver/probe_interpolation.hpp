// solver/probe_interpolation.hpp: the trilinear interpolation of a [[output.probe]] point from the node centres
// around it (pure functions, host only; solver/probes.hpp samples the nodes).
//
// Node (i, j, k) sits at (i + 1/2, j + 1/2, k + 1/2) in global lattice coordinates (cells; the domain spans [0, n]
// per axis). A point p takes the 8 nodes i0 = floor(p - 1/2) and i0 + 1 per axis with the weights
//   w = prod_a (1 - t_a or t_a),   t_a = p_a - 1/2 - i0_a            (trilinear interpolation, e.g. Press et al.,
//                                                                     Numerical Recipes, 3rd ed., section 3.6)
// which is exact for fields linear in each coordinate (a + b x + c y + d z + e xy + ...) and, along one axis,
// errs by t (1 - t) f'' / 2 for a quadratic one. Nodes beyond a periodic face wrap around to the other side. Nodes
// outside the domain across another face, and (after sampling) solid nodes, are dropped, and the weights of the
// remaining fluid nodes renormalised to sum to 1: within half a cell of a wall or a solid the value is the
// interpolation along the wall of the first fluid nodes (no extrapolation into the wall, no wall value).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace eddy {

/// The nodes of a point with non-zero weight (at most 8, in the order z, y, x of the offsets), global 0-based node
/// coordinates inside the domain, and their trilinear weights (before any renormalisation; summing to 1 when no
/// node was dropped at a face).
struct ProbeStencil {
  std::array<std::array<int, 3>, 8> node{};
  std::array<double, 8> weight{};
  int count = 0;
  std::array<int, 3> cell{};  ///< the cell that holds the point (the one a point in a solid is refused by)
};

/// The stencil of point `p` (global lattice coordinates, each in [0, size[a]]) on a grid of `size` nodes whose
/// axes are `periodic` or not.
inline ProbeStencil probe_stencil(const std::array<double, 3>& p, const std::array<int, 3>& size,
                                  const std::array<bool, 3>& periodic) {
  ProbeStencil s;
  int lo[3];
  double t[3];
  for (int a = 0; a < 3; ++a) {
    const double q = p[a] - 0.5;
    lo[a] = int(std::floor(q));
    t[a] = q - double(lo[a]);
    s.cell[a] = std::min(int(std::floor(p[a])), size[a] - 1);
  }
  for (int dz = 0; dz < 2; ++dz)
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const int d[3] = {dx, dy, dz};
        double w = 1.0;
        std::array<int, 3> node{};
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
          w *= d[a] ? t[a] : 1.0 - t[a];
          int i = lo[a] + d[a];
          if (i < 0 || i >= size[a]) {
            if (!periodic[a]) inside = false;
            i = (i % size[a] + size[a]) % size[a];
          }
          node[a] = i;
        }
        if (!inside || w == 0.0) continue;
        s.node[std::size_t(s.count)] = node;
        s.weight[std::size_t(s.count)] = w;
        ++s.count;
      }
  return s;
}

/// sum_k w_k v_k / sum_k w_k over the nodes k of `s` that `use(k)` (fluid), in stencil order; `value(k)` is node k's
/// value. NaN when no node is used.
template <class Use, class Value>
double interpolate(const ProbeStencil& s, const Use& use, const Value& value) {
  double sum = 0.0, weights = 0.0;
  for (int k = 0; k < s.count; ++k) {
    if (!use(k)) continue;
    sum += s.weight[std::size_t(k)] * value(k);
    weights += s.weight[std::size_t(k)];
  }
  return weights > 0.0 ? sum / weights : std::nan("");
}

}  // namespace eddy
