// Stencil kernels on cell fields: vorticity, Q-criterion, strain-rate magnitude, divergence, gradient, Laplacian,
// each as a plain kernel (neighbours read from the field) and a tiled one (neighbours read from a tile staged in
// shared memory, kernels/stencil_tiles.hpp parallel_for_tiled). Formulas and sources: kernels/stencils.hpp; bytes per
// cell: kernels/stencil_launchers.hpp (vorticity 25 B float / 49 B double; Q, |S|, divergence and gradient 17 / 33 B;
// Laplacian 9 / 17 B, compulsory traffic).
#include "kernels/stencils.hpp"

#include "kernels/halo_plane.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/stencil_launchers.hpp"
#include "kernels/stencil_tiles.hpp"

namespace eddy {
namespace {

/// C components of a cell field with the block's flags and its outer layer (OuterLayerView): what both variants read.
template <class R, int C>
struct Field {
  const R* f[C];
  FlagView flags;
  BlockShape shape;
  OuterLayerView<R> outer;

  EDDY_HOST_DEVICE bool inside(int x, int y, int z) const {
    return x >= 0 && y >= 0 && z >= 0 && x <= shape.n[0] + 1 && y <= shape.n[1] + 1 && z <= shape.n[2] + 1;
  }
  /// The outer layer's face that holds (x, y, z), beyond the block: -1 elsewhere (an edge or corner of that layer,
  /// which no derivative along one axis from an interior cell reaches).
  EDDY_HOST_DEVICE int outer_face(int x, int y, int z) const {
    const int p[3] = {x, y, z};
    int face = -1;
    for (int a = 0; a < 3; ++a) {
      if (p[a] >= 0 && p[a] <= shape.n[a] + 1) continue;
      if (face >= 0 || (p[a] != -1 && p[a] != shape.n[a] + 2)) return -1;
      face = 2 * a + (p[a] > 0 ? 1 : 0);
    }
    return face;
  }
  /// Component c of the outer layer's cell (x, y, z) on `face` (outer_face).
  EDDY_HOST_DEVICE R outer_value(int face, int x, int y, int z, int c) const {
    const int axis = face / 2;
    return outer.face[face][c * plane_cells(shape, axis) + plane_slot(shape, axis, x, y, z)];
  }

  /// A cell inside the block (ghost layer included): the central differences and the tiles' staging.
  EDDY_HOST_DEVICE R load(int x, int y, int z, int c) const { return f[c][shape.index(x, y, z)]; }
  /// Any open cell, inside the block or in its outer layer: the one-sided differences' far reads.
  EDDY_HOST_DEVICE R read(int x, int y, int z, int c) const {
    return inside(x, y, z) ? load(x, y, z, c) : outer_value(outer_face(x, y, z), x, y, z, c);
  }
  /// Inside the block (ghost layer included) and fluid (neither solid nor an open face's ghost node, which holds no
  /// velocity: the stencils are one-sided there as at walls); beyond it, a fluid cell of the outer layer.
  EDDY_HOST_DEVICE bool open(int x, int y, int z) const {
    if (inside(x, y, z)) return is_fluid(flags.flag[shape.index(x, y, z)]);
    const int face = outer_face(x, y, z);
    if (face < 0 || outer.face[face] == nullptr) return false;
    const R v = outer_value(face, x, y, z, 0);
    return v == v;  // NaN marks a cell that is not fluid
  }
};

/// Accessor of kernels/stencils.hpp reading the field itself (plain variant). A cell with no solid neighbour (not
/// `near`) reads only its neighbours, inside the block: no outer-layer test on the common path.
template <class R, int C>
struct DirectAccessor {
  const Field<R, C>& field;
  bool near;
  EDDY_HOST_DEVICE R value(int c, int x, int y, int z) const {
    return near ? field.read(x, y, z, c) : field.load(x, y, z, c);
  }
  EDDY_HOST_DEVICE bool open(int x, int y, int z) const { return field.open(x, y, z); }
  EDDY_HOST_DEVICE bool near_solid() const { return near; }
};

/// Accessor reading the staged tile, and the field beyond it (tiled variant: one-sided stencils at walls).
template <class R, int C>
struct TileAccessor {
  const Field<R, C>& field;
  const TileView<R, C>& tile;
  bool near;
  EDDY_HOST_DEVICE R value(int c, int x, int y, int z) const {
    return tile.contains(x, y, z) ? tile(x, y, z, c) : field.read(x, y, z, c);
  }
  EDDY_HOST_DEVICE bool open(int x, int y, int z) const { return field.open(x, y, z); }
  EDDY_HOST_DEVICE bool near_solid() const { return near; }
};

// ---- per-cell operations: kIn input components, apply() on a fluid cell, zero() on a solid one ----------------------

template <class R>
struct Vorticity {
  static constexpr int kIn = 3;
  R* omega[3];
  template <class A>
  EDDY_HOST_DEVICE void apply(const A& a, int x, int y, int z, std::int64_t cell) const {
    R G[3][3] = {};  // the diagonal is not needed by the curl
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        if (i != j) G[i][j] = stencil::first_derivative<R>(a, i, x, y, z, j);
      }
    }
    R w[3];
    stencil::curl(G, w);
    for (int d = 0; d < 3; ++d) omega[d][cell] = w[d];
  }
  EDDY_HOST_DEVICE void zero(std::int64_t cell) const {
    for (int d = 0; d < 3; ++d) omega[d][cell] = R(0);
  }
};

template <class R>
struct QCriterion {
  static constexpr int kIn = 3;
  R* q;
  template <class A>
  EDDY_HOST_DEVICE void apply(const A& a, int x, int y, int z, std::int64_t cell) const {
    R G[3][3];
    stencil::velocity_gradient<R>(a, x, y, z, G);
    q[cell] = stencil::q_criterion(G);
  }
  EDDY_HOST_DEVICE void zero(std::int64_t cell) const { q[cell] = R(0); }
};

template <class R>
struct StrainRate {
  static constexpr int kIn = 3;
  R* s;
  template <class A>
  EDDY_HOST_DEVICE void apply(const A& a, int x, int y, int z, std::int64_t cell) const {
    R G[3][3];
    stencil::velocity_gradient<R>(a, x, y, z, G);
    s[cell] = stencil::strain_rate_magnitude(G);
  }
  EDDY_HOST_DEVICE void zero(std::int64_t cell) const { s[cell] = R(0); }
};

template <class R>
struct Divergence {
  static constexpr int kIn = 3;
  R* div;
  template <class A>
  EDDY_HOST_DEVICE void apply(const A& a, int x, int y, int z, std::int64_t cell) const {
    div[cell] = stencil::divergence<R>(a, x, y, z);
  }
  EDDY_HOST_DEVICE void zero(std::int64_t cell) const { div[cell] = R(0); }
};

template <class R>
struct Gradient {
  static constexpr int kIn = 1;
  R* g[3];
  template <class A>
  EDDY_HOST_DEVICE void apply(const A& a, int x, int y, int z, std::int64_t cell) const {
    R v[3];
    stencil::gradient<R>(a, 0, x, y, z, v);
    for (int d = 0; d < 3; ++d) g[d][cell] = v[d];
  }
  EDDY_HOST_DEVICE void zero(std::int64_t cell) const {
    for (int d = 0; d < 3; ++d) g[d][cell] = R(0);
  }
};

template <class R>
struct Laplacian {
  static constexpr int kIn = 1;
  R* lap;
  template <class A>
  EDDY_HOST_DEVICE void apply(const A& a, int x, int y, int z, std::int64_t cell) const {
    lap[cell] = stencil::laplacian<R>(a, 0, x, y, z);
  }
  EDDY_HOST_DEVICE void zero(std::int64_t cell) const { lap[cell] = R(0); }
};

// ---- the two variants ---------------------------------------------------------------------------------------------

template <class R, class Op>
struct PlainKernel {
  Field<R, Op::kIn> in;
  Op op;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = in.shape.index(x, y, z);
    const CellFlag own = in.flags.flag[cell];
    if (!is_fluid(own)) {
      op.zero(cell);
      return;
    }
    const DirectAccessor<R, Op::kIn> a{in, own != kFluid};
    op.apply(a, x, y, z, cell);
  }
};

template <class R, class Op>
struct TiledKernel {
  using Value = R;
  static constexpr int kComponents = Op::kIn;
  Field<R, Op::kIn> in;
  Op op;
  EDDY_HOST_DEVICE R load(int x, int y, int z, int c) const { return in.load(x, y, z, c); }
  EDDY_HOST_DEVICE void operator()(int x, int y, int z, const TileView<R, kComponents>& tile) const {
    const std::int64_t cell = in.shape.index(x, y, z);
    const CellFlag own = in.flags.flag[cell];
    if (!is_fluid(own)) {
      op.zero(cell);
      return;
    }
    const TileAccessor<R, kComponents> a{in, tile, own != kFluid};
    op.apply(a, x, y, z, cell);
  }
};

template <class R, class Op>
void launch(const Field<R, Op::kIn>& in, const Op& op, StencilVariant variant, const char* name,
            const backend::Stream* stream) {
  if (variant == StencilVariant::tiled) {
    parallel_for_tiled(in.shape.interior(), TiledKernel<R, Op>{in, op}, name, stream);
  } else {
    parallel_for(in.shape.interior(), PlainKernel<R, Op>{in, op}, name, stream);
  }
}

}  // namespace

template <class R>
void vorticity(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* const (&omega)[3],
               StencilVariant variant, const backend::Stream* stream, const OuterLayerView<R>& outer) {
  launch(Field<R, 3>{{u[0], u[1], u[2]}, flags, shape, outer}, Vorticity<R>{{omega[0], omega[1], omega[2]}}, variant,
         variant == StencilVariant::tiled ? "vorticity (tiled)" : "vorticity", stream);
}

template <class R>
void q_criterion(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* q, StencilVariant variant,
                 const backend::Stream* stream, const OuterLayerView<R>& outer) {
  launch(Field<R, 3>{{u[0], u[1], u[2]}, flags, shape, outer}, QCriterion<R>{q}, variant,
         variant == StencilVariant::tiled ? "q_criterion (tiled)" : "q_criterion", stream);
}

template <class R>
void strain_rate_magnitude(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* s,
                           StencilVariant variant, const backend::Stream* stream, const OuterLayerView<R>& outer) {
  launch(Field<R, 3>{{u[0], u[1], u[2]}, flags, shape, outer}, StrainRate<R>{s}, variant,
         variant == StencilVariant::tiled ? "strain_rate_magnitude (tiled)" : "strain_rate_magnitude", stream);
}

template <class R>
void divergence(const R* const (&u)[3], const FlagView& flags, const BlockShape& shape, R* div, StencilVariant variant,
                const backend::Stream* stream) {
  launch(Field<R, 3>{{u[0], u[1], u[2]}, flags, shape}, Divergence<R>{div}, variant,
         variant == StencilVariant::tiled ? "divergence (tiled)" : "divergence", stream);
}

template <class R>
void gradient(const R* f, const FlagView& flags, const BlockShape& shape, R* const (&g)[3], StencilVariant variant,
              const backend::Stream* stream) {
  launch(Field<R, 1>{{f}, flags, shape}, Gradient<R>{{g[0], g[1], g[2]}}, variant,
         variant == StencilVariant::tiled ? "gradient (tiled)" : "gradient", stream);
}

template <class R>
void laplacian(const R* f, const FlagView& flags, const BlockShape& shape, R* lap, StencilVariant variant,
               const backend::Stream* stream) {
  launch(Field<R, 1>{{f}, flags, shape}, Laplacian<R>{lap}, variant,
         variant == StencilVariant::tiled ? "laplacian (tiled)" : "laplacian", stream);
}

#define EDDY_INSTANTIATE(R)                                                                                            \
  template void vorticity<R>(const R* const(&)[3], const FlagView&, const BlockShape&, R* const(&)[3], StencilVariant, \
                             const backend::Stream*, const OuterLayerView<R>&);                                        \
  template void q_criterion<R>(const R* const(&)[3], const FlagView&, const BlockShape&, R*, StencilVariant,           \
                               const backend::Stream*, const OuterLayerView<R>&);                                      \
  template void strain_rate_magnitude<R>(const R* const(&)[3], const FlagView&, const BlockShape&, R*, StencilVariant, \
                                         const backend::Stream*, const OuterLayerView<R>&);                            \
  template void divergence<R>(const R* const(&)[3], const FlagView&, const BlockShape&, R*, StencilVariant,            \
                              const backend::Stream*);                                                                 \
  template void gradient<R>(const R*, const FlagView&, const BlockShape&, R* const(&)[3], StencilVariant,              \
                            const backend::Stream*);                                                                   \
  template void laplacian<R>(const R*, const FlagView&, const BlockShape&, R*, StencilVariant, const backend::Stream*);
EDDY_INSTANTIATE(float)
EDDY_INSTANTIATE(double)
#undef EDDY_INSTANTIATE

}  // namespace eddy
