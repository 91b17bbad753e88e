#include "solver/bench_report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace eddy {
namespace {

using Kind = ReportValue::Kind;

/// A number: `value` in the JSON, `shown` (default: the value) through `format` in the text.
ReportValue number(const std::string& key, double value, const std::string& format) {
  ReportValue v;
  v.kind = Kind::number;
  v.key = key;
  v.format = format;
  v.number = v.shown = value;
  return v;
}
ReportValue number(const std::string& key, double value, const std::string& format, double shown) {
  ReportValue v = number(key, value, format);
  v.shown = shown;
  return v;
}
/// A figure of the text only (a ratio or a derived rate).
ReportValue shown(double value, const std::string& format) { return number("", value, format); }
/// Words of the text only.
ReportValue words(const std::string& text) {
  ReportValue v;
  v.kind = Kind::text;
  v.format = "%s";
  v.shown_text = text;
  return v;
}
ReportValue integer(const std::string& key, long long value, const std::string& format) {
  ReportValue v;
  v.kind = Kind::integer;
  v.key = key;
  v.format = format;
  v.integer = value;
  return v;
}
/// An integer in the JSON (bytes), shown in the text as the number `shown` (GiB).
ReportValue integer(const std::string& key, long long value, const std::string& format, double shown) {
  ReportValue v = integer(key, value, format);
  v.integer_shown_as_number = true;
  v.shown = shown;
  return v;
}
ReportValue text(const std::string& key, const std::string& value, const std::string& format) {
  ReportValue v;
  v.kind = Kind::text;
  v.key = key;
  v.format = format;
  v.text = v.shown_text = value;
  return v;
}
ReportValue flag(const std::string& key, bool value, const std::string& format, const std::string& shown_text) {
  ReportValue v;
  v.kind = Kind::flag;
  v.key = key;
  v.format = format;
  v.flag = value;
  v.shown_text = shown_text;
  return v;
}
ReportValue numbers(const std::string& key, const std::vector<double>& values) {
  ReportValue v;
  v.kind = Kind::numbers;
  v.key = key;
  v.numbers = values;
  return v;
}

std::string printed(const ReportValue& v) {
  char text[512];
  switch (v.kind) {
    case Kind::number:
      std::snprintf(text, sizeof text, v.format.c_str(), v.shown);
      break;
    case Kind::integer:
      if (v.integer_shown_as_number) {
        std::snprintf(text, sizeof text, v.format.c_str(), v.shown);
      } else {
        std::snprintf(text, sizeof text, v.format.c_str(), v.integer);
      }
      break;
    case Kind::flag:
    case Kind::text:
      std::snprintf(text, sizeof text, v.format.c_str(), v.shown_text.c_str());
      break;
    case Kind::numbers:
      return "";
  }
  return text;
}

/// The lines of the out-of-core plan, its host-device traffic and how busy the copy engines and kernels were.
void add_out_of_core_rows(const BenchResult& r, std::vector<ReportRow>& rows) {
  const OutOfCoreStats& t = r.out_of_core_stats;
  const double total = std::max(t.seconds_total, 1e-12);
  const double gib = 1073741824.0;
  rows.push_back({"out-of-core",
                  {integer("time_block", t.time_block, "time_block %lld, "), integer("slabs", t.slabs, "%lld slabs, "),
                   shown(t.buffer_planes, "2 device buffers of %.0f z-planes = "),
                   integer("device_buffer_bytes", t.device_bytes, "%.3f GiB", double(t.device_bytes) / gib),
                   integer("device_budget_bytes", t.budget, " (budget %.3f GiB); ", double(t.budget) / gib),
                   number("host_bytes", r.host_bytes, "host holds %.3f GiB", r.host_bytes / gib)}});
  rows.push_back({"host->device",
                  {shown(t.bytes_up / std::max(t.seconds_up, 1e-12) * 1e-9, "%.1f GB/s while copying, "),
                   shown(t.bytes_up / total * 1e-9, "%.1f GB/s averaged; "),
                   shown(100.0 * t.seconds_up / total, "copy engine busy %.0f%% of the time")}});
  rows.push_back({"device->host",
                  {shown(t.bytes_down / std::max(t.seconds_down, 1e-12) * 1e-9, "%.1f GB/s while copying, "),
                   shown(t.bytes_down / total * 1e-9, "%.1f GB/s averaged; "),
                   shown(100.0 * t.seconds_down / total, "copy engine busy %.0f%% of the time")}});
  const double cell_steps =
      double(r.grid[0]) * r.grid[1] * r.grid[2] * double(r.steps) * double(r.mlups.size()) / double(r.ranks);
  rows.push_back({"kernels",
                  {shown(100.0 * t.seconds_compute / total, "busy %.0f%% of the time; "),
                   shown((t.bytes_up + t.bytes_down) / cell_steps, "%.2f B/cell/step over the link (up + down)")}});
  rows.push_back({"", {number("bytes_up", t.bytes_up, ""), number("bytes_down", t.bytes_down, ""),
                       number("seconds_up", t.seconds_up, ""), number("seconds_down", t.seconds_down, ""),
                       number("seconds_compute", t.seconds_compute, ""), number("seconds_total", t.seconds_total, "")},
                  false});
  rows.push_back({"in-core",
                  {number("in_core_mlups", r.in_core_mlups, "%.1f MLUPS (same grid, same run): "),
                   shown(r.in_core_mlups > 0 ? 100.0 * r.mlups_mean / r.in_core_mlups : 0.0,
                         "out-of-core at %.1f%% of it")},
                  r.in_core_mlups > 0});
}

}  // namespace

std::vector<ReportRow> bench_report(const BenchResult& r, const BenchOptions& o) {
  std::vector<ReportRow> rows;
  // What was measured where (the text says it in the line printed before the run).
  rows.push_back({"",
                  {text("backend", r.backend, ""), text("device", r.device, ""), text("precision", r.precision, ""),
                   numbers("grid", {double(r.grid[0]), double(r.grid[1]), double(r.grid[2])}),
                   integer("ranks", r.ranks, "")},
                  false});
  rows.push_back({"",
                  {integer("steps_per_repetition", r.steps, "%lld steps x "),
                   shown(o.repetitions, "%.0f repetitions (after "), shown(double(o.warmup_steps), "%.0f warm-up steps)"),
                   numbers("mlups", r.mlups)}});
  rows.push_back({"MLUPS", {number("mlups_mean", r.mlups_mean, "%.1f"), number("mlups_sd", r.mlups_sd, " +- %.1f")}});
  // Each rank's device is compared with its own share of the traffic (the grids are split evenly up to one plane).
  const double per_rank_gbs = r.bandwidth_gbs / double(r.ranks);
  rows.push_back({"bandwidth",
                  {number("bytes_per_cell_step", r.bytes_per_cell_step, ""),
                   number("bandwidth_gbs", r.bandwidth_gbs, "%.1f GB/s effective"),
                   shown(r.bytes_per_cell_step, " (%.0f B/cell/step)"), shown(per_rank_gbs, ", %.1f GB/s per rank: "),
                   shown(100.0 * per_rank_gbs / r.copy_bandwidth_gbs, "%.1f%% of the device copy bandwidth "),
                   number("copy_bandwidth_gbs", r.copy_bandwidth_gbs, "%.1f GB/s")}});
  rows.push_back({"STREAM copy",
                  {number("stream_copy_gbs", r.stream_copy_gbs, "%.1f GB/s (parallel_for kernel; both copies over "),
                   number("copy_bytes", r.copy_bytes, "%.3g GB): ", r.copy_bytes * 1e-9),
                   shown(100.0 * per_rank_gbs / r.stream_copy_gbs, "kernel at %.1f%% of it"),
                   integer("block_size_x", r.block_size_x, ""), text("odd_step", r.odd_step, "")}});
  rows.push_back({"memory",
                  {number("memory_per_cell", r.memory_per_cell, "%.0f B/cell, "),
                   number("cells_per_gib", 1073741824.0 / r.memory_per_cell, "%.3g cells per GiB")}});
  rows.push_back({"transfers",
                  {number("transfer_bytes", r.transfer_bytes, "%.3f GB (population array, at most 1 GiB): ",
                          r.transfer_bytes * 1e-9),
                   number("upload_seconds", r.upload_seconds, "host->device %.4f s, "),
                   number("download_seconds", r.download_seconds, "device->host %.4f s")}});
  rows.push_back({"check",
                  {flag("state_finite", r.state_finite, "state %s, ", r.state_finite ? "finite" : "NOT FINITE"),
                   number("mass_drift", r.mass_drift, "mass drift %+.2e")}});
  rows.push_back({"particles",
                  {integer("particles", r.particles, "%lld inertial ("),
                   text("particle_forces", r.particle_forces, "%s), "),
                   number("particle_seconds_per_step", r.particle_seconds_per_step, "particle step %.3f ms: ",
                          r.particle_seconds_per_step * 1e3),
                   number("particles_per_second", r.particles_per_second,
                          "%.3g particles/s (0: below the timing noise); "),
                   number("lattice_only_mlups", r.lattice_only_mlups, "lattice alone %.1f MLUPS")},
                  o.particles > 0});
  rows.push_back(
      {"ghosts",
       {number("ghost_seconds_per_step", r.ghost_seconds_per_step, "exchange %.3f ms per step",
               r.ghost_seconds_per_step * 1e3),
        r.particle_seconds_per_step > 0
            ? shown(100.0 * r.ghost_seconds_per_step / r.particle_seconds_per_step, " (%.1f%% of the particle step)")
            : words(" (the particle step is below the timing noise)"),
        number("ghosts_per_step", r.ghosts_per_step,
               ", %.0f ghost particles per rank and step (the most of any rank), timed inside the run")},
       o.particles > 0 && r.ghosts_per_step > 0});
  const char* thermal_note = o.particles > 0                       ? " (particles included)"
                             : r.thermal_seconds_per_step == 0.0 ? " (below the timing noise)"
                                                                 : "";
  rows.push_back(
      {"thermal",
       {flag("thermal", r.thermal, "%s", "Pr 0.71, Ra 1e5: "),
        number("thermal_seconds_per_step", r.thermal_seconds_per_step, "thermal step %.3f ms",
               r.thermal_seconds_per_step * 1e3),
        words(thermal_note),
        // Out of core the run without T is out of core too: the fluid-only out-of-core rate.
        shown(r.lattice_only_mlups,
              r.out_of_core ? "; fluid only out of core %.1f MLUPS, " : "; lattice alone %.1f MLUPS, "),
        shown(r.mlups_mean, "with T %.1f MLUPS "), shown(100.0 * r.mlups_mean / r.lattice_only_mlups, "(%.0f%%)")},
       o.thermal});
  rows.push_back({"solid",
                  {text("solid", o.solid, "%s: "), integer("solid_cells", r.solid_cells, "%lld solid cells, "),
                   integer("cut_links", r.cut_links, "%lld cut links; "),
                   number("empty_mlups", r.empty_mlups, "empty cavity %.1f MLUPS (same grid, same run): "),
                   shown(r.empty_mlups > 0 ? 100.0 * r.mlups_mean / r.empty_mlups : 0.0, "body case at %.1f%% of it")},
                  o.solid != "none"});
  rows.push_back({"les",
                  {text("les", "smagorinsky", "%s: "),
                   number("plain_mlups", r.plain_mlups, "plain kernel %.1f MLUPS (same grid, same run): "),
                   shown(r.plain_mlups > 0 ? 100.0 * r.mlups_mean / r.plain_mlups : 0.0, "LES at %.1f%% of it")},
                  o.les});
  rows.push_back({"", {flag("out_of_core", r.out_of_core, "", "")}, false});
  if (r.out_of_core) add_out_of_core_rows(r, rows);
  rows.push_back({"stencils",
                  {shown(r.vorticity_plain_ms, "vorticity plain %.3f ms "),
                   shown(25.0 * r.stencil_cells / r.vorticity_plain_ms * 1e-6, "(%.1f GB/s at 25 B/cell), "),
                   shown(r.vorticity_tiled_ms, "tiled %.3f ms; "), shown(r.q_plain_ms, "Q-criterion plain %.3f ms "),
                   shown(17.0 * r.stencil_cells / r.q_plain_ms * 1e-6, "(%.1f GB/s at 17 B/cell), "),
                   shown(r.q_tiled_ms, "tiled %.3f ms (float, rank 0's block)")},
                  o.stencils});
  return rows;
}

std::string report_text(const std::vector<ReportRow>& rows) {
  std::string out;
  for (const ReportRow& row : rows) {
    if (!row.in_text) continue;
    std::string line = "  ";
    if (!row.label.empty()) line += row.label + std::string(std::max<std::size_t>(15, row.label.size() + 1) - row.label.size(), ' ');
    for (const ReportValue& v : row.values) {
      if (!v.format.empty()) line += printed(v);
    }
    out += line + "\n";
  }
  return out;
}

std::string report_json(const std::vector<ReportRow>& rows) {
  std::ostringstream s;
  s.precision(10);
  s << "{";
  const char* separator = "\n";
  for (const ReportRow& row : rows) {
    for (const ReportValue& v : row.values) {
      if (v.key.empty()) continue;
      s << separator << "  \"" << v.key << "\": ";
      separator = ",\n";
      switch (v.kind) {
        case Kind::number:
          s << v.number;
          break;
        case Kind::integer:
          s << v.integer;
          break;
        case Kind::flag:
          s << (v.flag ? "true" : "false");
          break;
        case Kind::text:
          s << "\"" << v.text << "\"";
          break;
        case Kind::numbers:
          s << "[";
          for (std::size_t i = 0; i < v.numbers.size(); ++i) s << (i ? ", " : "") << v.numbers[i];
          s << "]";
          break;
      }
    }
  }
  s << "\n}\n";
  return s.str();
}

}  // namespace eddy
