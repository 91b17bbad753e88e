// The open faces' adjoint plan (solver/open_adjoint.hpp).
#include "solver/open_adjoint.hpp"

#include <map>
#include <stdexcept>
#include <utility>

#include "kernels/d3q19.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/open_boundaries.hpp"

namespace eddy {

OpenAdjointHostPlan open_adjoint_plan(const CaseConfig& config, const Decomposition& decomposition,
                                      const std::vector<CellFlag>& flags) {
  OpenAdjointHostPlan plan;
  const std::int64_t n_cells = block_shape(decomposition).n_cells();
  struct Terms {
    std::vector<std::int64_t> linear;
    std::vector<std::pair<std::int64_t, int>> moments;  // (record, kind)
  };
  std::map<std::int64_t, Terms> by_slot;
  std::map<std::pair<std::int64_t, int>, std::size_t> record_of;  // (x, face)
  std::vector<std::vector<OutletAdjointLink>> record_links;
  for (const OpenLink& link : open_links(config, decomposition, flags)) {
    if (link.rule == kConvectiveRule) {
      throw std::logic_error("open_adjoint_plan: a convective outflow link (not differentiated)");
    }
    const std::int64_t nu = std::int64_t(link.dir) * n_cells + link.ghost;
    plan.nu_slots.push_back(nu);
    by_slot[std::int64_t(link.source_dir) * n_cells + link.source].linear.push_back(nu);
    if (link.rule != kPressureRule) continue;
    const auto key = std::make_pair(link.cell, link.face);
    auto found = record_of.find(key);
    if (found == record_of.end()) {
      found = record_of.emplace(key, plan.outlet_cells.size()).first;
      plan.outlet_cells.push_back(OutletAdjointCell{link.cell, link.next, 0, 0, link.value[0]});
      record_links.emplace_back();
    }
    record_links[found->second].push_back(OutletAdjointLink{nu, link.dir, 0});
  }
  for (std::size_t r = 0; r < plan.outlet_cells.size(); ++r) {
    OutletAdjointCell& c = plan.outlet_cells[r];
    c.first = std::int32_t(plan.outlet_links.size());
    c.count = std::int32_t(record_links[r].size());
    plan.outlet_links.insert(plan.outlet_links.end(), record_links[r].begin(), record_links[r].end());
    for (int k = 0; k < d3q19::Q; ++k) {
      by_slot[std::int64_t(k) * n_cells + c.cell].moments.emplace_back(std::int64_t(r), 1);
      if (c.next >= 0) by_slot[std::int64_t(k) * n_cells + c.next].moments.emplace_back(std::int64_t(r), 2);
    }
  }
  plan.term_start.push_back(0);
  for (const auto& [slot, terms] : by_slot) {
    plan.targets.push_back(slot);
    for (std::int64_t nu : terms.linear) plan.terms.push_back(OpenAdjointTerm{nu, 0, 0});
    for (const auto& [record, kind] : terms.moments) plan.terms.push_back(OpenAdjointTerm{record, kind, 0});
    plan.term_start.push_back(std::int64_t(plan.terms.size()));
  }
  return plan;
}

namespace {

template <class V>
DeviceBuffer<V> on_device(const std::vector<V>& host, std::size_t& bytes) {
  DeviceBuffer<V> b(host.size());
  if (!host.empty()) b.upload(host);
  bytes += host.size() * sizeof(V);
  return b;
}

}  // namespace

template <class T>
OpenFacesAdjoint<T>::OpenFacesAdjoint(const CaseConfig& config, const Decomposition& decomposition,
                                      const std::vector<CellFlag>& flags) {
  const OpenAdjointHostPlan host = open_adjoint_plan(config, decomposition, flags);
  outlet_cells_ = on_device(host.outlet_cells, bytes_);
  outlet_links_ = on_device(host.outlet_links, bytes_);
  targets_ = on_device(host.targets, bytes_);
  term_start_ = on_device(host.term_start, bytes_);
  nu_slots_ = on_device(host.nu_slots, bytes_);
  terms_ = on_device(host.terms, bytes_);
  records_ = DeviceBuffer<R>(18 * host.outlet_cells.size());
  bytes_ += records_.size() * sizeof(R);
  plan_.outlet_cells = outlet_cells_.data();
  plan_.n_outlet_cells = std::int64_t(host.outlet_cells.size());
  plan_.outlet_links = outlet_links_.data();
  plan_.targets = targets_.data();
  plan_.term_start = term_start_.data();
  plan_.terms = terms_.data();
  plan_.n_targets = std::int64_t(host.targets.size());
  plan_.nu_slots = nu_slots_.data();
  plan_.n_nu_slots = std::int64_t(host.nu_slots.size());
  plan_.records = records_.data();
}

template <class T>
void OpenFacesAdjoint<T>::apply(const PopulationView<T>& state, PopulationLayout layout, const BlockFields<R>& lambda,
                                const BlockFields<R>& force_bar, const BlockFields<R>& porosity_bar,
                                const FlagView& flags, const BlockShape& shape, const WallVelocities<R>& walls,
                                const R (&force)[3], const ForceFieldView<R>& field) {
  open_faces_adjoint<T>(plan_, state, layout, lambda, force_bar, porosity_bar, flags, shape, walls, force, field,
                        nullptr);
}

template class OpenFacesAdjoint<float>;
template class OpenFacesAdjoint<double>;
template class OpenFacesAdjoint<half_t>;

}  // namespace eddy
