// Sponge (absorbing) layers in front of open faces: the cell's relaxation time grows towards the face, so sound
// waves, the start-up's pressure wave and the non-hydrodynamic modes are damped before they reach the open face's
// rule, and the rule itself runs at a relaxation time where it is stable.
//
//   tau0(x) = tau0 + max over the layers f of  (tau_f - tau0) (1 - d_f(x) / L_f)^2      where d_f(x) < L_f
//
// d_f: the distance of the cell's centre from face f in cells, d = g + 1/2 from a _min face and N - g - 1/2 from a
// _max face (g the global cell index along the face's axis, N the domain's cells along it); L_f the layer's thickness
// in cells; tau_f the relaxation time at the face. The viscosity nu = c_s^2 (tau - 1/2) thus rises smoothly (its
// gradient vanishes where the layer starts) from the run's nu0 to c_s^2 (tau_f - 1/2). Quadratic ramp of the
// absorbing layer: Israeli & Orszag (1981), J. Comput. Phys. 41, 115; viscous absorbing layers for the lattice
// Boltzmann method: Xu & Sagaut (2013), J. Comput. Phys. 245, 14. Where layers overlap (edges, corners) the larger
// excess holds, not their sum. The cell's tau0(x) replaces tau0 in the collision (with LES, as the molecular part
// under the eddy viscosity: kernels/smagorinsky.hpp); with TRT the antisymmetric rate follows from the magic
// parameter as with LES.
// Cost: at most six compare-and-square terms per cell from its coordinates; no memory traffic.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"

namespace eddy {

/// The sponge layers of a rank's block, lattice units. A face with thickness 0 has no layer; all 0: none.
template <class R>
struct SpongeLayers {
  int offset[3] = {0, 0, 0};      ///< global index of the block's first interior cell (block cell 1) per axis
  int size[3] = {0, 0, 0};        ///< the domain's interior cells per axis (N)
  R inverse_thickness[6] = {};    ///< 1 / L_f (kFaceNames order: x_min, x_max, y_min, y_max, z_min, z_max); 0: none
  R tau_excess[6] = {};           ///< tau_f - tau0 (> 0 where a layer is)
  /// Whether any face has a layer (set with the layers): one uniform test in the kernel with local rates, so a run
  /// with LES and no layer does not evaluate the six faces per cell.
  bool any = false;

  EDDY_HOST_DEVICE bool present() const { return any; }

  /// tau0(x) - tau0 of block cell (x, y, z) (ghost layer at 0, interior 1..n): 0 outside every layer (header).
  EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE R tau_excess_at(int x, int y, int z) const {
    const int local[3] = {x, y, z};
    R excess = R(0);
EDDY_UNROLL
    for (int face = 0; face < 6; ++face) {
      if (!(inverse_thickness[face] > R(0))) continue;
      const int axis = face / 2;
      const int g = local[axis] - 1 + offset[axis];
      const R distance = face % 2 == 0 ? R(g) + R(0.5) : R(size[axis] - g) - R(0.5);
      const R ramp = R(1) - distance * inverse_thickness[face];
      if (ramp > R(0)) {
        const R term = tau_excess[face] * ramp * ramp;
        excess = term > excess ? term : excess;
      }
    }
    return excess;
  }
};

}  // namespace eddy
