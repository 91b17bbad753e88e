// PvdCollection: the ParaView .pvd file that lists a run's .vti snapshots by time. Plain text, no VTK needed.
//
// Format (VTK XML "Collection"):
//   <?xml version="1.0"?>
//   <VTKFile type="Collection" version="1.0" byte_order="LittleEndian" header_type="UInt64">
//     <Collection>
//       <DataSet timestep="0.5" group="" part="0" file="run_000100.vti"/>
//     </Collection>
//   </VTKFile>
// Entries are kept sorted by time, times printed with 17 significant digits (exact round trip, independent of
// the C locale), and the whole file is rewritten atomically after each add. A restarted run reads the entries
// back (resume), so its collection lists the earlier run's snapshots too. Static parts (set_static_parts) follow
// each snapshot with the same timestep and part="1", "2", ...:
//       <DataSet timestep="0.5" group="" part="1" file="run_solids.vtp"/>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/number_format.hpp"
#include "solver/errors.hpp"
#include "io/vtk_output.hpp"
#include "io/xml_text.hpp"

namespace eddy {

PvdCollection::PvdCollection(std::string path) : path_(std::move(path)) {}

namespace {

/// Collections larger than this are not read back (eddy writes about 100 bytes per snapshot).
constexpr std::uintmax_t kMaxResumeBytes = std::uintmax_t(256) << 20;

/// The value of attribute `name` (quoted with " or ') in the text of one XML start tag, entities decoded; throws
/// std::runtime_error when it is absent.
std::string attribute(const std::string& tag, const std::string& name) {
  for (std::size_t at = tag.find(name); at != std::string::npos; at = tag.find(name, at + 1)) {
    const bool starts_word = at > 0 && std::isspace(static_cast<unsigned char>(tag[at - 1]));
    std::size_t p = at + name.size();
    while (p < tag.size() && std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
    if (!starts_word || p >= tag.size() || tag[p] != '=') continue;
    ++p;
    while (p < tag.size() && std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
    if (p >= tag.size() || (tag[p] != '"' && tag[p] != '\'')) throw std::runtime_error("an unquoted " + name);
    const std::size_t end = tag.find(tag[p], p + 1);
    if (end == std::string::npos) throw std::runtime_error("an unterminated " + name);
    return xml_unescape(tag.substr(p + 1, end - p - 1));
  }
  throw std::runtime_error("a DataSet without " + name);
}

/// `text` without its XML comments; throws std::runtime_error for an unterminated one.
std::string without_comments(const std::string& text) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find("<!--"); at != std::string::npos; at = text.find("<!--", from)) {
    const std::size_t end = text.find("-->", at + 4);
    if (end == std::string::npos) throw std::runtime_error("an unterminated comment");
    out.append(text, from, at - from);
    from = end + 3;
  }
  out.append(text, from, std::string::npos);
  return out;
}

/// The (time, file) entries of part 0 (or without a part) of a collection's text, in file order.
std::vector<std::pair<double, std::string>> parse_collection(const std::string& raw) {
  const std::string text = without_comments(raw);
  if (text.find("<VTKFile") == std::string::npos || text.find("Collection") == std::string::npos) {
    throw std::runtime_error("not a VTK collection");
  }
  std::vector<std::pair<double, std::string>> entries;
  for (std::size_t at = text.find("<DataSet"); at != std::string::npos; at = text.find("<DataSet", at + 1)) {
    const std::size_t end = text.find('>', at);
    if (end == std::string::npos) throw std::runtime_error("an unterminated DataSet");
    const std::string tag = text.substr(at, end - at);
    const std::string time_text = attribute(tag, "timestep");
    double time = 0;
    const auto [stop, error] = std::from_chars(time_text.data(), time_text.data() + time_text.size(), time);
    if (error != std::errc() || stop != time_text.data() + time_text.size() || !std::isfinite(time)) {
      throw std::runtime_error("timestep \"" + time_text + "\" is not a finite number");
    }
    std::string part = "0";
    try {
      part = attribute(tag, "part");
    } catch (const std::runtime_error&) {  // no part: a collection of one part
    }
    if (part != "0") continue;  // a static part, listed again from this run's set_static_parts
    entries.emplace_back(time, attribute(tag, "file"));
  }
  return entries;
}

}  // namespace

std::size_t PvdCollection::resume(const ResumeRule& rule) {
  namespace fs = std::filesystem;
  const std::string target = replacement_target(path_);  // OutputError for a directory, FIFO or device
  std::error_code ec;
  if (!fs::exists(target, ec)) return 0;
  std::vector<std::pair<double, std::string>> earlier;
  try {
    const std::uintmax_t bytes = fs::file_size(target, ec);
    if (ec) throw std::runtime_error(ec.message());
    if (bytes > kMaxResumeBytes) throw std::runtime_error("larger than 256 MiB");
    std::ifstream in(target, std::ios::binary);
    if (!in) throw std::runtime_error("cannot be read");
    std::string text(std::size_t(bytes), '\0');
    in.read(text.data(), std::streamsize(bytes));
    text.resize(std::size_t(in.gcount()));
    earlier = parse_collection(text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path_ + ": " + e.what() + "; the earlier snapshots are not listed (the file is rewritten "
                             "at the next snapshot)");
  }
  const fs::path directory = fs::path(path_).parent_path();
  std::vector<std::pair<double, std::string>> kept;
  for (const auto& [time, file] : earlier) {
    const std::optional<double> new_time = rule(time, file);
    if (new_time && fs::exists(directory / file, ec)) kept.emplace_back(*new_time, file);
  }
  // Sorted by time; of equal times the later entry wins, as with add (a stable sort keeps file order).
  std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  entries_.clear();
  for (const auto& entry : kept) {
    if (!entries_.empty() && entries_.back().first == entry.first) {
      entries_.back().second = entry.second;
    } else {
      entries_.push_back(entry);
    }
  }
  write();
  return entries_.size();
}

void PvdCollection::add(double time, const std::string& file) {
  if (!std::isfinite(time)) throw std::invalid_argument("PvdCollection::add: time must be finite");
  auto it = entries_.begin();
  while (it != entries_.end() && it->first < time) ++it;
  if (it != entries_.end() && it->first == time) {
    it->second = file;  // the same time written again (a re-run or a final snapshot): replace
  } else {
    entries_.emplace(it, time, file);
  }
  write();
}

void PvdCollection::set_static_parts(std::vector<std::string> files) {
  static_parts_ = std::move(files);
  if (!entries_.empty()) write();
}

void PvdCollection::write() const {
  std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <Collection>\n";
  for (const auto& [time, file] : entries_) {
    text += "    <DataSet timestep=\"" + format_exact(time) + "\" group=\"\" part=\"0\" file=\"" + xml_escape(file) +
            "\"/>\n";
    for (std::size_t p = 0; p < static_parts_.size(); ++p) {
      text += "    <DataSet timestep=\"" + format_exact(time) + "\" group=\"\" part=\"" + std::to_string(p + 1) +
              "\" file=\"" + xml_escape(static_parts_[p]) + "\"/>\n";
    }
  }
  text += "  </Collection>\n</VTKFile>\n";
  write_file_atomically(path_, text);
}

}  // namespace eddy
