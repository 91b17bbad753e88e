// OutOfCoreSimulation<T>: the populations of one block in pinned host memory, advanced slab by slab on the device
// (solver/out_of_core_simulation.hpp for the scheme, solver/slab_plan.hpp for the slab sizes and the halo depth,
// solver/out_of_core.cpp for the budget and the plan).
#include "solver/out_of_core_simulation.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

#include "kernels/d3q19.hpp"
#include "kernels/field_launchers.hpp"
#include "kernels/halo_plane.hpp"
#include "kernels/launchers.hpp"
#include "kernels/scalar_launchers.hpp"
#include "kernels/solid_forces.hpp"
#include "kernels/storage.hpp"
#include "solver/device_buffer.hpp"
#include "solver/field_halo.hpp"
#include "solver/halo_exchange.hpp"
#include "solver/host_state.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/out_of_core.hpp"
#include "solver/outer_layer.hpp"
#include "solver/slab_plan.hpp"
#include "solver/thermal_field.hpp"
#include "solver/timing.hpp"

namespace eddy {

namespace {

/// The temperature of an out-of-core block where it lives between sweeps: T of every block cell in pinned host
/// memory (block layout, as ThermalField keeps it on the device), with the halo copies beyond the z ends like the
/// populations'. The read-outs, guards and checkpoints reach it as ThermalComponent, on the host.
template <class R>
class HostThermal final : public ThermalComponent {
 public:
  HostThermal(const CaseConfig& config, const Decomposition& decomposition, const BlockShape& shape, int halo,
              std::int64_t plane_cells, bool wall_below, bool wall_above, const CellFlag* flags)
      : p(config.thermal), decomposition_(decomposition), shape_(shape), flags_(flags) {
    const std::vector<R> t = initial_temperature<R>(config, decomposition, shape);
    host = PinnedBuffer<R>(t.size());
    std::memcpy(host.data(), t.data(), t.size() * sizeof(R));
    const std::size_t halo_values = std::size_t(halo) * std::size_t(plane_cells);
    if (!wall_below) below = PinnedBuffer<R>(halo_values);
    if (!wall_above) above = PinnedBuffer<R>(halo_values);
  }

  std::vector<double> interior() const override {
    const std::vector<R> t = interior_raw();
    return std::vector<double>(t.begin(), t.end());
  }
  void set_interior(const std::vector<double>& t) override { set_interior_raw(std::vector<R>(t.begin(), t.end())); }
  std::vector<unsigned char> interior_bytes() const override {
    const std::vector<R> t = interior_raw();
    std::vector<unsigned char> bytes(t.size() * sizeof(R));
    std::memcpy(bytes.data(), t.data(), bytes.size());
    return bytes;
  }
  void set_interior_bytes(const std::vector<unsigned char>& bytes) override {
    std::vector<R> t(std::size_t(shape_.interior_cells()));
    std::memcpy(t.data(), bytes.data(), std::min(bytes.size(), t.size() * sizeof(R)));
    set_interior_raw(t);
  }
  std::array<double, 6> face_inflow() const override {
    return wall_heat_inflow(host.data(), flags_, shape_, p, decomposition_);
  }
  ThermalDiagnostics diagnose() const override {
    return temperature_diagnostics(interior(), flags_, shape_, decomposition_);
  }

  ThermalParameters<R> p;
  PinnedBuffer<R> host;          // T of every block cell
  PinnedBuffer<R> below, above;  // halo planes beyond the block's z ends, [h * plane + ...]

 private:
  Decomposition decomposition_;
  BlockShape shape_;
  const CellFlag* flags_;  // the block's own flags (ghost planes included), host
  template <class Fn>
  void for_each_interior(Fn fn) const {
    std::int64_t k = 0;
    for (int z = 1; z <= shape_.n[2]; ++z)
      for (int y = 1; y <= shape_.n[1]; ++y)
        for (int x = 1; x <= shape_.n[0]; ++x) fn(k++, shape_.index(x, y, z));
  }
  std::vector<R> interior_raw() const {
    std::vector<R> out(std::size_t(shape_.interior_cells()));
    for_each_interior([&](std::int64_t k, std::int64_t cell) { out[std::size_t(k)] = host.data()[cell]; });
    return out;
  }
  void set_interior_raw(const std::vector<R>& t) {
    for_each_interior([&](std::int64_t k, std::int64_t cell) { host.data()[cell] = t[std::size_t(k)]; });
  }
};

template <class T>
class OutOfCoreSimulation final : public Simulation {
  using R = compute_t<T>;

 public:
  OutOfCoreSimulation(const CaseConfig& config, const Decomposition& decomposition, const SlabRequest& request,
                      const SlabPlan& plan)
      : Simulation(config),
        decomposition_(decomposition),
        shape_(block_shape(decomposition)),
        relax_(relaxation<R>(config)),
        les_(smagorinsky<R>(config)),
        walls_(wall_velocities<R>(config)),
        request_(request),
        plan_(plan),
        plane_cells_(std::int64_t(shape_.pitch()) * (shape_.n[1] + 2)) {
    stats_.time_block = plan_.time_block;
    stats_.slabs = plan_.slabs();
    stats_.buffer_planes = plan_.buffer_planes;
    stats_.device_bytes = plan_.device_bytes;
    stats_.budget = request_.budget;
    stats_.work_factor = plan_.work_factor(request_);
    if (request_.time_block > 0 || request_.slabs > 0) {
      SlabRequest chosen = request_;
      chosen.time_block = chosen.slabs = 0;
      try {
        stats_.default_work_factor = plan_slabs(chosen).work_factor(chosen);
      } catch (const InputError&) {  // no plan of its own fits: nothing to suggest
      }
    }
    for (int axis = 0; axis < 2; ++axis) periodic_xy_[axis] = decomposition_.exchanges(axis);
    const int h = plan_.halo;
    host_ = PinnedBuffer<T>(std::size_t(d3q19::Q) * std::size_t(shape_.n_cells()));
    const std::size_t halo_values = std::size_t(d3q19::Q) * std::size_t(h) * std::size_t(plane_cells_);
    if (!request_.wall_below) below_ = PinnedBuffer<T>(halo_values);
    if (!request_.wall_above) above_ = PinnedBuffer<T>(halo_values);
    // Flags of host planes 1 - h .. nz + h: those of a block reaching h - 1 planes further each way, decided by the
    // global position like every block's (solver/lattice_setup.hpp), so halo planes get their true flags.
    Decomposition extended = decomposition_;
    extended.offset[2] -= h - 1;
    extended.local_size[2] += 2 * (h - 1);
    std::vector<CellFlag> flags;
    {
      const BlockSolids solids(config, extended, h - 1);  // counts over this rank's own planes only
      flags = build_flags(config, extended, solids);
      solid_summary_ = solids.summary();
      set_up_solid_labels(solids, h - 1);
    }
    flags_ = PinnedBuffer<CellFlag>(flags.size());
    std::memcpy(flags_.data(), flags.data(), flags.size());
    set_up_cut_links(config);
    const std::size_t buffer_bytes = std::size_t(plan_.buffer_planes) * request_.plane_bytes;
    for (auto& buffer : buffers_) buffer = DeviceBuffer<unsigned char>(buffer_bytes);
    if (plan_.slabs() > 1) carry_ = DeviceBuffer<T>(2 * halo_values);
    if (config.thermal.enabled) {
      thermal_ = std::make_unique<HostThermal<R>>(config, decomposition_, shape_, h, plane_cells_, request_.wall_below,
                                                  request_.wall_above, block_flags());
      if (plan_.slabs() > 1) carry_t_ = DeviceBuffer<R>(2 * std::size_t(h) * std::size_t(plane_cells_));
      // Scratch for the periodic x and y ghost planes of T and u: a low and a high plane of the largest slab.
      const BlockShape largest{{shape_.n[0], shape_.n[1], plan_.buffer_planes - 2}};
      const std::size_t plane = std::size_t(std::max(plane_cells(largest, 0), plane_cells(largest, 1)));
      for (auto& scratch : xy_planes_) scratch = DeviceBuffer<R>(2 * plane);
      attach(nullptr, thermal_.get());
    }
    for (int e = 0; e < 5 * plan_.slabs(); ++e) timing_.push_back(std::make_unique<backend::Event>(true));
    initialize();
  }

  void advance(std::int64_t steps) override {
    while (steps > 0) {
      const int k = int(std::min<std::int64_t>(plan_.time_block, steps));
      sweep(k);
      steps -= k;
    }
  }

  void synchronize() override { backend::synchronize(); }
  std::int64_t time_step() const override { return step_; }
  const Decomposition& decomposition() const override { return decomposition_; }

  std::vector<double> populations() override {
    return interior_populations(host_.data(), block_flags(), shape_, layout_, walls_);
  }
  void set_populations(const std::vector<double>& f) override {
    set_interior_populations(host_.data(), shape_, f);
    layout_ = PopulationLayout::swapped;  // post-collision populations, not yet streamed
  }

  RawState raw_populations() override {
    RawState state;
    state.step = step_;
    state.layout = int(layout_);
    state.populations = packed_interior_bytes(host_.data(), shape_);
    return state;
  }

  void restore_populations(const RawState& state) override {
    unpack_interior_bytes(state.populations, shape_, host_.data());
    layout_ = PopulationLayout(state.layout);
    step_ = state.step;
  }

  /// Host bytes per cell (the populations, and T, live there); the device holds only the slab buffers.
  std::size_t bytes_per_cell() const override {
    return d3q19::Q * sizeof(T) + sizeof(CellFlag) + (thermal_ ? sizeof(R) : 0);
  }
  std::size_t device_bytes() const override { return std::size_t(plan_.device_bytes); }

  bool out_of_core(OutOfCoreStats& stats) const override {
    stats = stats_;
    return true;
  }

  /// The in-core pass (kernels/solid_forces.hpp) over the same populations, read where they live between sweeps:
  /// host_ holds every interior slot as an in-core block stores it, so the sums are bitwise those of an in-core
  /// run. The pass reads host_ from the device: memory from the GPU runtime's pinned allocator is mapped into the
  /// device's address space under unified addressing (CUDA on 64-bit hosts; HIP's hipHostMalloc), one value per
  /// cut link; on cpu it is ordinary memory.
  std::vector<unsigned long long> local_solid_force_sums() override {
    std::vector<unsigned long long> zero(std::size_t(n_solids_) * kForceSums, 0ull);
    if (n_links_ == 0) return zero;
    backend::synchronize();    // every stream: the last sweep's downloads are in host_
    force_sums_.upload(zero);
    // Every link is half-way out of core (interpolated walls are refused there): no saved values.
    sum_cut_link_forces(PopulationView<T>{host_.data(), shape_.n_cells()}, links_.data(), n_links_, static_cast<const T*>(nullptr), 0,
                        force_sums_.data());
    return force_sums_.download();
  }

 private:
  /// The host planes [lo, hi) a device buffer holds for one visit, and the block shape they form on the device.
  struct SlabGeometry {
    int lo = 0, hi = 0;
    BlockShape shape{};
  };
  SlabGeometry geometry(int slab, int depth) const {
    SlabGeometry g;
    plan_.device_range(slab, depth, request_, g.lo, g.hi);
    g.shape = BlockShape{{shape_.n[0], shape_.n[1], g.hi - g.lo - 2}};
    return g;
  }

  /// The block's cut links of the [[solid]] bodies (lattice_setup.hpp), from the flags of its own cells. Their
  /// BlockSolids is the block's own, not the extended one of the flags (collective; a mesh is voxelised again).
  void set_up_cut_links(const CaseConfig& config) {
    n_solids_ = int(config.solids.size());
    const std::vector<CellFlag> own(block_flags(), block_flags() + shape_.n_cells());
    const std::vector<CutLink> links = cut_links(config, decomposition_, own).links;
    n_links_ = std::int64_t(links.size());
    if (n_links_ == 0) return;
    links_ = DeviceBuffer<CutLink>(links.size());
    links_.upload(links);
    force_sums_ = DeviceBuffer<unsigned long long>(std::size_t(n_solids_) * kForceSums);
  }

  /// Device buffer b: the populations of a slab (stride of its own shape), then the flags at a fixed offset.
  PopulationView<T> device_view(int b, const SlabGeometry& g) const {
    return PopulationView<T>{reinterpret_cast<T*>(buffers_[b].data()), g.shape.n_cells()};
  }
  CellFlag* device_flags(int b) const {
    const std::size_t capacity = std::size_t(plan_.buffer_planes) * std::size_t(plane_cells_);
    return reinterpret_cast<CellFlag*>(buffers_[b].data() + d3q19::Q * capacity * sizeof(T));
  }
  /// Field j of [thermal] in device buffer b (kSlabThermalValues fields after the flags, each of the buffer's
  /// capacity, BlockShape::index order of the slab): 0 and 1 the two T buffers, 2 + d the velocity component d.
  R* thermal_field(int b, int j) const {
    const std::size_t capacity = std::size_t(plan_.buffer_planes) * std::size_t(plane_cells_);
    // The capacity is a multiple of the row pitch (8 cells): every field starts on an 8-byte boundary.
    unsigned char* base = buffers_[b].data() + capacity * (d3q19::Q * sizeof(T) + sizeof(CellFlag));
    return reinterpret_cast<R*>(base + std::size_t(j) * capacity * sizeof(R));
  }
  /// The buoyancy of the T in field `t` of a slab buffer (none without a buoyant [thermal]).
  ForceFieldView<R> buoyancy(const R* t) const {
    return thermal_ ? thermal_->p.with_buoyancy(ForceFieldView<R>{}, t) : ForceFieldView<R>{};
  }

  /// Flags of the block's own cells (ghost planes included), inside the extended flags.
  const CellFlag* block_flags() const { return flags_.data() + std::size_t(plan_.halo - 1) * plane_cells_; }

  /// Copies host planes [from, hi) of the state into device buffer b (halo planes beyond the block from the copies
  /// taken by refresh_halos) and the flags of all its planes [lo, hi); returns the bytes queued.
  double upload(const SlabGeometry& g, int from, int b, const backend::Stream& stream) {
    const int nz = shape_.n[2], h = plan_.halo;
    const std::size_t plane_bytes = std::size_t(plane_cells_) * sizeof(T);
    const PopulationView<T> dev = device_view(b, g);
    double bytes = 0.0;
    // Source segments: below the block, the block itself (ghost plane included on a wall side), above the block.
    const int own_lo = request_.wall_below ? 0 : 1, own_hi = request_.wall_above ? nz + 2 : nz + 1;
    struct Segment {
      int lo, hi;
      const T* base;  // population 0 of plane `first` of the source
      int first;      // host plane stored at base
      std::int64_t stride;
    };
    const std::int64_t halo_stride = std::int64_t(h) * plane_cells_;
    const Segment segments[3] = {{from, std::min(g.hi, own_lo), below_.data(), 1 - h, halo_stride},
                                 {std::max(from, own_lo), std::min(g.hi, own_hi), host_.data(), 0, shape_.n_cells()},
                                 {std::max(from, own_hi), g.hi, above_.data(), nz + 1, halo_stride}};
    for (const Segment& s : segments) {
      if (s.hi <= s.lo) continue;
      const std::size_t count = std::size_t(s.hi - s.lo) * plane_bytes;
      for (int i = 0; i < d3q19::Q; ++i) {
        backend::copy_to_device_async(dev.f + i * dev.n_cells + std::int64_t(s.lo - g.lo) * plane_cells_,
                                      s.base + i * s.stride + std::int64_t(s.lo - s.first) * plane_cells_, count,
                                      stream);
      }
      bytes += double(count) * d3q19::Q;
    }
    if (thermal_) {  // T of the same planes into the buffer's first T field, from the same three sources
      const R* t_base[3] = {thermal_->below.data(), thermal_->host.data(), thermal_->above.data()};
      for (int part = 0; part < 3; ++part) {
        const Segment& s = segments[part];
        if (s.hi <= s.lo) continue;
        const std::size_t count = std::size_t(s.hi - s.lo) * std::size_t(plane_cells_) * sizeof(R);
        backend::copy_to_device_async(thermal_field(b, 0) + std::int64_t(s.lo - g.lo) * plane_cells_,
                                      t_base[part] + std::int64_t(s.lo - s.first) * plane_cells_, count, stream);
        bytes += double(count);
      }
    }
    const std::size_t flag_bytes = std::size_t(g.hi - g.lo) * std::size_t(plane_cells_);
    backend::copy_to_device_async(device_flags(b), flags_.data() + std::int64_t(g.lo + h - 1) * plane_cells_,
                                  flag_bytes, stream);
    return bytes + double(flag_bytes);
  }

  /// Copies host planes [lo, hi) between the carry (which holds them from plane lo on) and device buffer b.
  void carry(const SlabGeometry& g, int b, int lo, int hi, bool into_buffer, const backend::Stream& stream) {
    if (hi <= lo) return;
    const PopulationView<T> dev = device_view(b, g);
    const std::int64_t carried = 2 * std::int64_t(plan_.halo) * plane_cells_;
    const std::size_t count = std::size_t(hi - lo) * std::size_t(plane_cells_) * sizeof(T);
    for (int i = 0; i < d3q19::Q; ++i) {
      T* in_buffer = dev.f + i * dev.n_cells + std::int64_t(lo - g.lo) * plane_cells_;
      T* in_carry = carry_.data() + i * carried;
      backend::copy_on_device_async(into_buffer ? in_buffer : in_carry, into_buffer ? in_carry : in_buffer, count,
                                    stream);
    }
    if (thermal_) {  // T, still in the buffer's first T field (no step has run on either slab)
      R* in_buffer = thermal_field(b, 0) + std::int64_t(lo - g.lo) * plane_cells_;
      const std::size_t t_count = std::size_t(hi - lo) * std::size_t(plane_cells_) * sizeof(R);
      backend::copy_on_device_async(into_buffer ? in_buffer : carry_t_.data(),
                                    into_buffer ? carry_t_.data() : in_buffer, t_count, stream);
    }
  }

  /// Host planes a visit of `slab` writes back: its own, and next to a periodic or shared z side also the ghost
  /// plane, whose slots the last odd step filled with the populations leaving the block (read by populations()).
  void download_range(int slab, int& lo, int& hi) const {
    lo = plan_.first[slab];
    hi = plan_.first[slab + 1];
    if (slab == 0 && !request_.wall_below) lo = 0;
    if (slab == plan_.slabs() - 1 && !request_.wall_above) hi = shape_.n[2] + 2;
  }

  /// Copies host planes [lo, hi) back from device buffer b, and with [thermal] T of the slab's own planes from
  /// T field `t_field` (none when t_field < 0); returns the bytes queued.
  double download(const SlabGeometry& g, int slab, int b, int lo, int hi, int t_field, const backend::Stream& stream) {
    const PopulationView<T> dev = device_view(b, g);
    const std::size_t count = std::size_t(hi - lo) * std::size_t(plane_cells_) * sizeof(T);
    for (int i = 0; i < d3q19::Q; ++i) {
      backend::copy_to_host_async(host_.data() + i * shape_.n_cells() + std::int64_t(lo) * plane_cells_,
                                  dev.f + i * dev.n_cells + std::int64_t(lo - g.lo) * plane_cells_, count, stream);
    }
    double bytes = double(count) * d3q19::Q;
    if (thermal_ && t_field >= 0) {
      // Own planes only: T's ghost planes are never state (each sub-step fills them; walls have none to keep).
      const int own_lo = plan_.first[slab], own_hi = plan_.first[slab + 1];
      const std::size_t t_count = std::size_t(own_hi - own_lo) * std::size_t(plane_cells_) * sizeof(R);
      backend::copy_to_host_async(thermal_->host.data() + std::int64_t(own_lo) * plane_cells_,
                                  thermal_field(b, t_field) + std::int64_t(own_lo - g.lo) * plane_cells_, t_count,
                                  stream);
      bytes += double(t_count);
    }
    return bytes;
  }

  /// The periodic copies of the x and y axes on a device slab (z travels in the halo planes instead); the order of
  /// the in-core exchange: into the ghosts x then y, out of them y then x.
  void copy_periodic_xy(const PopulationView<T>& view, const FlagView& flags, const BlockShape& shape, bool into,
                        const backend::Stream& stream) {
    for (int pass = 0; pass < 2; ++pass) {
      const int axis = into ? pass : 1 - pass;
      if (periodic_xy_[axis]) copy_periodic_ghosts(view, flags, shape, axis, into, &stream);
    }
  }

  /// The periodic x and y ghost planes of a cell field of a device slab (z travels in the halo planes), as the
  /// in-core field exchange fills them (solver/field_halo.hpp): x then y, each from the interior planes at the other
  /// side of the block.
  void fill_periodic_xy(R* field, const BlockShape& shape, int b, const backend::Stream& stream) {
    for (int axis = 0; axis < 2; ++axis) {
      if (!periodic_xy_[axis]) continue;
      const std::int64_t plane = plane_cells(shape, axis);
      R* low = xy_planes_[b].data();
      R* high = low + plane;
      pack_field_plane(field, shape, axis, 1, low, &stream);
      pack_field_plane(field, shape, axis, shape.n[axis], high, &stream);
      unpack_field_plane(field, shape, axis, 0, high, false, &stream);
      unpack_field_plane(field, shape, axis, shape.n[axis] + 1, low, false, &stream);
    }
  }

  /// One step of the temperature in device buffer b with the velocity the fused kernel just wrote: its periodic x
  /// and y ghosts filled, then per sub-step T's, and the explicit update over the slab's own planes widened by
  /// widths[j] planes (visit_widths; ThermalField::step in core). `t_field` (0 or 1) is the current T field, updated.
  void thermal_step(const SlabGeometry& g, int slab, int b, const std::vector<int>& widths, int& t_field,
                    const backend::Stream& stream) {
    const FlagView flags{device_flags(b)};
    R* const u[3] = {thermal_field(b, 2), thermal_field(b, 3), thermal_field(b, 4)};
    for (R* component : u) fill_periodic_xy(component, g.shape, b, stream);
    const R* const u_in[3] = {u[0], u[1], u[2]};
    const ThermalParameters<R>& p = thermal_->p;
    for (int sub = 0; sub < p.substeps; ++sub) {
      fill_periodic_xy(thermal_field(b, t_field), g.shape, b, stream);
      const Box box = own_planes(g, slab, widths[std::size_t(sub)]);
      advance_scalar(thermal_field(b, t_field), thermal_field(b, 1 - t_field), u_in, flags, g.shape, box, p.walls,
                     p.kappa, p.dt, &stream);
      t_field = 1 - t_field;
    }
  }

  /// The interior cells of the device block of `slab` on its own planes and `width` planes beyond on each side.
  Box own_planes(const SlabGeometry& g, int slab, int width) const {
    const int lo = std::max(1, plan_.first[slab] - g.lo - width);
    const int hi = std::min(g.shape.n[2] + 1, plan_.first[slab + 1] - g.lo + width);
    return Box{{1, 1, lo}, {g.shape.n[0] + 1, g.shape.n[1] + 1, std::max(lo, hi)}};
  }

  /// Advances slab `slab` in device buffer b `steps` steps from the state's time and layout, each step over the
  /// planes visit_widths asks for; returns the T field that holds the temperature after them (0 without [thermal]).
  int compute(const SlabGeometry& g, int slab, int b, int steps, const backend::Stream& stream) {
    const PopulationView<T> view = device_view(b, g);
    const FlagView flags{device_flags(b)};
    // Global z of device plane d: offset + lo + d - 1. Across a periodic z face the halo planes hold the far end's
    // cells (more than once around for a block thinner than the halo); their rounding keys must be those cells'
    // own, so the update is split where the global index wraps, each part shifted by whole turns of N.
    const int origin = decomposition_.offset[2] + g.lo, n_global = decomposition_.global_size[2];
    struct Part {
      int lo, hi, shift;
    };
    std::vector<Part> parts;
    const int m = g.shape.n[2];
    for (int d = 1; d <= m;) {
      const int global = origin + d - 1;
      if (!decomposition_.periodic[2]) {
        parts.push_back({d, m + 1, 0});
        break;
      }
      const int turn = global >= 0 ? global / n_global : -((-global + n_global - 1) / n_global);
      const int end = std::min(m + 1, (turn + 1) * n_global - origin + 1);  // first plane of the next turn
      parts.push_back({d, end, -turn * n_global});
      d = end;
    }
    PopulationLayout layout = layout_;
    const VisitWidths widths =
        visit_widths(steps, layout == PopulationLayout::swapped, thermal_ ? thermal_->p.substeps : 0);
    int t_field = 0;
    const VelocityOutView<R> velocity =
        thermal_ ? VelocityOutView<R>{{thermal_field(b, 2), thermal_field(b, 3), thermal_field(b, 4)}}
                 : VelocityOutView<R>{};
    for (int s = 0; s < steps; ++s) {
      if (layout == PopulationLayout::swapped) copy_periodic_xy(view, flags, g.shape, true, stream);
      const ForceFieldView<R> force = thermal_ ? buoyancy(thermal_field(b, t_field)) : ForceFieldView<R>{};
      const Box planes = own_planes(g, slab, widths.fused[std::size_t(s)]);
      for (const Part& p : parts) {
        const int lo = std::max(p.lo, planes.lo[2]), hi = std::min(p.hi, planes.hi[2]);
        if (hi <= lo) continue;
        const Box box{{1, 1, lo}, {shape_.n[0] + 1, shape_.n[1] + 1, hi}};
        const RoundingKey key{static_cast<std::uint32_t>(step_ + s),
                              {decomposition_.offset[0], decomposition_.offset[1], origin + p.shift}};
        stream_collide(view, layout, flags, g.shape, box, relax_, walls_, key, &stream, false, force, velocity,
                       {}, {}, les_);
      }
      if (layout == PopulationLayout::swapped) copy_periodic_xy(view, flags, g.shape, false, stream);
      layout = after_step(layout);
      if (thermal_) thermal_step(g, slab, b, widths.scalar[std::size_t(s)], t_field, stream);
    }
    return t_field;
  }

  /// Advances the whole block `steps` (<= time_block) steps: every slab once, two buffers in flight. The planes a
  /// slab shares with the previous one (its lower halo and its first k + 1 own planes, 2 (k + 1) in all) come from
  /// the carry, copied from the previous slab's buffer before any step; the rest from the host. Each host plane is
  /// thus uploaded once per sweep and read before it is written back, and no copy waits for another slab's copy in
  /// the other direction. A slab's own planes go back to the host as soon as it is done.
  void sweep(int steps) {
    const auto start = Clock::now();
    refresh_halos();
    const int n = plan_.slabs(), h = plan_.halo;
    auto event = [&](int slab, int point) -> backend::Event& { return *timing_[5 * slab + point]; };
    for (int j = 0; j < n; ++j) {
      const int b = j % kSlabBuffers;
      const backend::Stream& stream = streams_[b];
      const SlabGeometry g = geometry(j, h);
      const int shared = j == 0 ? g.lo : geometry(j - 1, h).hi;  // planes [g.lo, shared) come from the carry
      event(j, 0).record(stream);
      stats_.bytes_up += upload(g, shared, b, stream);
      if (j > 0) {
        carried_.wait(stream);
        carry(g, b, g.lo, shared, true, stream);
      }
      event(j, 1).record(stream);
      if (j + 1 < n) {
        carry(g, b, geometry(j + 1, h).lo, g.hi, false, stream);
        carried_.record(stream);
      }
      const int t_field = compute(g, j, b, steps, stream);
      event(j, 2).record(stream);
      event(j, 3).record(stream);
      int lo = 0, hi = 0;
      download_range(j, lo, hi);
      stats_.bytes_down += download(g, j, b, lo, hi, t_field, stream);
      event(j, 4).record(stream);
    }
    for (const backend::Stream& s : streams_) s.synchronize();
    for (int j = 0; j < n; ++j) {
      stats_.seconds_up += backend::Event::seconds_between(event(j, 0), event(j, 1));
      stats_.seconds_compute += backend::Event::seconds_between(event(j, 1), event(j, 2));
      stats_.seconds_down += backend::Event::seconds_between(event(j, 3), event(j, 4));
    }
    step_ += steps;
    if (steps % 2 == 1) layout_ = after_step(layout_);
    ++stats_.sweeps;
    stats_.seconds_total += seconds_since(start);
  }

  /// Fills the halo copies beyond the block's z ends from the state now: across a periodic face from this block's
  /// far end, otherwise from the z-neighbour ranks (collective along z). A wall side has none.
  void refresh_halos() {
    if (request_.wall_below && request_.wall_above) return;
    exchange_z_halo(decomposition_, shape_, plane_cells_, plan_.halo, host_.data(), below_.data(), above_.data());
    if (thermal_) {
      exchange_z_halo(decomposition_, shape_, plane_cells_, plan_.halo, thermal_->host.data(), thermal_->below.data(),
                      thermal_->above.data(), 1);
    }
  }

  /// Loads `slab` with `depth` halo planes into device buffer 0 for a read-out of the current state (on stream 0),
  /// the periodic x and y ghosts filled as the in-core exchange would before reading neighbours.
  SlabGeometry load_for_readout(int slab, int depth) {
    const SlabGeometry g = geometry(slab, depth);
    upload(g, g.lo, 0, streams_[0]);
    if (layout_ == PopulationLayout::swapped) {
      copy_periodic_xy(device_view(0, g), FlagView{device_flags(0)}, g.shape, true, streams_[0]);
    }
    return g;
  }

  /// Computes rho and u of the current time slab by slab on device buffer 1 (from the slab with 1 halo plane in
  /// buffer 0). Collective along z (the halos are refreshed first).
  void for_each_moment_slab(const std::function<void(const MomentSlab&)>& fn) override {
    refresh_halos();
    const std::int64_t plane = std::int64_t(shape_.n[0]) * shape_.n[1];
    const R force[3] = {relax_.force[0], relax_.force[1], relax_.force[2]};
    std::vector<R> part;
    for (int j = 0; j < plan_.slabs(); ++j) {
      const SlabGeometry g = load_for_readout(j, 1);
      const PopulationView<T> view = device_view(0, g);
      const FlagView flags{device_flags(0)};
      const std::int64_t slab = plane * plan_.planes(j);
      R* base = reinterpret_cast<R*>(buffers_[1].data());  // the other buffer holds the moments
      const MomentView<R> out{base, {base + slab, base + 2 * slab, base + 3 * slab}};
      compute_moments(view, layout_, flags, g.shape, force, walls_, out, plan_.first[j] - g.lo,
                      plan_.first[j + 1] - g.lo, &streams_[0],
                      thermal_ ? buoyancy(thermal_field(0, 0)) : ForceFieldView<R>{});
      part.resize(std::size_t(4 * slab));
      backend::copy_to_host_async(part.data(), base, part.size() * sizeof(R), streams_[0]);
      streams_[0].synchronize();
      fn(MomentSlab{part.data(), slab, plane * (plan_.first[j] - 1), slab});
    }
  }

  /// Slab by slab: the velocity of the slab and one plane beyond it (from its populations with 2 halo planes) is
  /// computed in the other buffer, with the planes two beyond (readout_z_planes) and the periodic x and y ghosts and
  /// outer layers, as the stencils of the in-core run need. Collective along z (the halos are refreshed first).
  void for_each_velocity_slab(const std::function<void(const VelocitySlab&)>& fn) override {
    refresh_halos();
    Decomposition xy = decomposition_;  // x and y ghosts as in core; z comes with the halo planes
    xy.neighbour[2] = {kNoNeighbour, kNoNeighbour};
    const backend::Stream& stream = streams_[0];
    const std::vector<std::vector<R>> beyond = readout_z_planes();
    for (int j = 0; j < plan_.slabs(); ++j) {
      const SlabGeometry g = load_for_readout(j, 2);
      const FlagView flags{device_flags(0)};
      const std::size_t cells = std::size_t(g.shape.n_cells());
      R* base = reinterpret_cast<R*>(buffers_[1].data());  // 6 fields of R fit where 19 populations and a flag do
      R* const u[3] = {base, base + cells, base + 2 * cells};
      slab_velocity(g, u, stream);
      // Device planes 0 and n + 1 are the host planes two beyond the own ones unless clamped at a wall.
      const int device_plane[2] = {0, g.shape.n[2] + 1}, host_plane[2] = {plan_.first[j] - 2, plan_.first[j + 1] + 1};
      for (int side = 0; side < 2; ++side) {
        const std::vector<R>& plane = beyond[std::size_t(2 * j + side)];
        if (plane.empty() || g.lo + device_plane[side] != host_plane[side]) continue;
        for (int a = 0; a < 3; ++a) {
          backend::copy_to_device_async(u[a] + std::int64_t(device_plane[side]) * plane_cells_,
                                        plane.data() + std::int64_t(a) * plane_cells_,
                                        std::size_t(plane_cells_) * sizeof(R), stream);
        }
      }
      FieldHalo<R> halo(xy, g.shape);
      for (R* component : u) halo.fill_ghosts(component, &stream);
      OuterLayer<R> outer(xy, g.shape);
      outer.fill(u, flags, &stream);
      VelocitySlab slab;
      for (int a = 0; a < 3; ++a) {
        slab.u[a] = u[a];
        slab.scratch[a] = base + (3 + a) * cells;
      }
      const OuterLayerView<R> faces = outer.view();
      for (int face = 0; face < 6; ++face) slab.outer[face] = faces.face[face];
      slab.flags = flags;
      slab.shape = g.shape;
      slab.lo = plan_.first[j] - g.lo;
      slab.hi = plan_.first[j + 1] - g.lo;
      slab.first_plane = plan_.first[j];
      slab.stream = &stream;
      fn(slab);
    }
  }

  /// The velocity of the cells of slab geometry `g` (populations in device buffer 0) into the cell fields u.
  void slab_velocity(const SlabGeometry& g, R* const (&u)[3], const backend::Stream& stream) {
    const R force[3] = {relax_.force[0], relax_.force[1], relax_.force[2]};
    const ForceFieldView<R> cell_force = thermal_ ? buoyancy(thermal_field(0, 0)) : ForceFieldView<R>{};
    compute_velocity_field(device_view(0, g), layout_, FlagView{device_flags(0)}, g.shape, force, cell_force, walls_, u,
                           &stream);
  }

  /// u (3 components of one whole plane, plane_cells_ values each) at host plane p, from the populations of planes
  /// p - 1 .. p + 1 (uploaded into buffer 0; u computed in buffer 1). p in 0 .. nz + 1 (0 and nz + 1 not on a wall).
  std::vector<R> velocity_plane(int p) {
    const backend::Stream& stream = streams_[0];
    const SlabGeometry g{p - 1, p + 2, BlockShape{{shape_.n[0], shape_.n[1], 1}}};
    upload(g, g.lo, 0, stream);
    if (layout_ == PopulationLayout::swapped) {
      copy_periodic_xy(device_view(0, g), FlagView{device_flags(0)}, g.shape, true, stream);
    }
    R* base = reinterpret_cast<R*>(buffers_[1].data());
    const std::size_t cells = std::size_t(g.shape.n_cells());
    R* const u[3] = {base, base + cells, base + 2 * cells};
    slab_velocity(g, u, stream);
    std::vector<R> plane(3 * std::size_t(plane_cells_));
    for (int a = 0; a < 3; ++a) {
      backend::copy_to_host_async(plane.data() + std::int64_t(a) * plane_cells_, u[a] + plane_cells_,
                                  std::size_t(plane_cells_) * sizeof(R), stream);
    }
    stream.synchronize();
    return plane;
  }

  /// For the derived read-outs: u at the host planes two beyond each slab's own, first[j] - 2 ([2 j]) and
  /// first[j + 1] + 1 ([2 j + 1]), where the slab's buffer ends (its velocity there would need populations one plane
  /// further). Inside the block and its halo from the populations (velocity_plane); at planes -1 and nz + 2 from the
  /// neighbour's planes nz - 1 and 2 (MPI), or this block's own across a periodic face; empty beyond a wall.
  /// Collective along z.
  std::vector<std::vector<R>> readout_z_planes() {
    const int nz = shape_.n[2];
    const auto& neighbour = decomposition_.neighbour[2];
    std::vector<R> outer[2];  // host planes -1 and nz + 2
    if (decomposition_.serial() || decomposition_.dims[2] == 1) {
      const auto image = [nz](int p) { return ((p - 1) % nz + nz) % nz + 1; };
      if (neighbour[0] != kNoNeighbour) outer[0] = velocity_plane(image(-1));
      if (neighbour[1] != kNoNeighbour) outer[1] = velocity_plane(image(nz + 2));
    } else {
      // Down goes plane 2 (the lower neighbour's nz + 2), up plane nz - 1 (the upper one's -1); blocks out of core
      // along z hold at least the halo's 2 planes (SlabPlan).
      std::vector<R> send[2];
      for (int side = 0; side < 2; ++side) {
        if (neighbour[side] == kNoNeighbour) continue;
        send[side] = velocity_plane(side == 0 ? std::min(2, nz) : std::max(nz - 1, 1));
        outer[side].resize(send[side].size());
      }
      exchange_with_neighbours(decomposition_, 2, {send[0].data(), send[1].data()}, {outer[0].data(), outer[1].data()},
                               int(3 * plane_cells_), std::is_same_v<R, double> ? MPI_DOUBLE : MPI_FLOAT);
    }
    std::vector<std::vector<R>> planes(2 * std::size_t(plan_.slabs()));
    for (int j = 0; j < plan_.slabs(); ++j) {
      const int host_plane[2] = {plan_.first[j] - 2, plan_.first[j + 1] + 1};
      for (int side = 0; side < 2; ++side) {
        const int p = host_plane[side];
        std::vector<R>& plane = planes[std::size_t(2 * j + side)];
        if (p == -1 || p == nz + 2) {
          plane = outer[p == -1 ? 0 : 1];
        } else if (p >= 1 && p <= nz) {
          plane = velocity_plane(p);
        } else if (neighbour[p == 0 ? 0 : 1] != kNoNeighbour) {  // the ghost plane 0 or nz + 1: a halo plane
          plane = velocity_plane(p);
        }
      }
    }
    return planes;
  }

  /// Sets every cell, ghost planes included, to the initial populations (f_eq + f_neq, initialize_populations),
  /// slab by slab on the device.
  void initialize() {
    InitialField init = initial_field(config_, decomposition_);
    const int base_offset = init.offset[2];
    for (int j = 0; j < plan_.slabs(); ++j) {
      const SlabGeometry g = geometry(j, 1);
      init.offset[2] = base_offset + g.lo;  // device plane d sits at host plane lo + d
      initialize_populations(device_view(0, g), g.shape, init);
      backend::synchronize();  // the launch is on the default stream
      const int lo = j == 0 ? 0 : plan_.first[j];
      const int hi = j == plan_.slabs() - 1 ? shape_.n[2] + 2 : plan_.first[j + 1];
      download(g, j, 0, lo, hi, -1, streams_[0]);  // not T: the host holds its initial field already
      streams_[0].synchronize();
    }
  }

  Decomposition decomposition_;
  BlockShape shape_;
  Relaxation<R> relax_;
  Smagorinsky<R> les_;
  WallVelocities<R> walls_;
  SlabRequest request_;
  SlabPlan plan_;
  std::int64_t plane_cells_;  // cells of one z-plane: row pitch times (ny + 2)
  bool periodic_xy_[2] = {false, false};
  PinnedBuffer<T> host_;           // the state: f_i - w_i of every block cell, as an in-core run stores it
  PinnedBuffer<T> below_, above_;  // halo planes beyond the block's z ends, [i * h * plane + ...]
  PinnedBuffer<CellFlag> flags_;   // flags of host planes 1 - h .. nz + h
  DeviceBuffer<unsigned char> buffers_[kSlabBuffers];
  DeviceBuffer<T> carry_;  // planes shared by consecutive slabs, handed over on the device, [i * 2 h * plane + ...]
  backend::Stream streams_[kSlabBuffers];
  backend::Event carried_;  // the carry holds the planes the next slab needs
  std::vector<std::unique_ptr<backend::Event>>
      timing_;  // per slab: upload begins, ends, compute ends, download begins, ends
  OutOfCoreStats stats_;
  DeviceBuffer<CutLink> links_;                  // cut links of the [[solid]] bodies (set_up_cut_links)
  DeviceBuffer<unsigned long long> force_sums_;  // their fixed-point sums, kForceSums per solid
  std::int64_t n_links_ = 0;
  int n_solids_ = 0;
  std::unique_ptr<HostThermal<R>> thermal_;  // [thermal]: T on the host (none without)
  DeviceBuffer<R> carry_t_;                  // T of the planes the carry hands over, [2 h * plane]
  DeviceBuffer<R> xy_planes_[kSlabBuffers];  // per buffer: a low and a high plane for the periodic x and y ghosts
  PopulationLayout layout_ = PopulationLayout::own;
  std::int64_t step_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_out_of_core_simulation(const CaseConfig& config, const Decomposition& decomposition,
                                                        const SlabRequest& request, const SlabPlan& plan) {
  switch (config.precision) {
    case Precision::float64:
      return std::make_unique<OutOfCoreSimulation<double>>(config, decomposition, request, plan);
    case Precision::float16:
      return std::make_unique<OutOfCoreSimulation<half_t>>(config, decomposition, request, plan);
    case Precision::float32:
      break;
  }
  return std::make_unique<OutOfCoreSimulation<float>>(config, decomposition, request, plan);
}

}  // namespace eddy
