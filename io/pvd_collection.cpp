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
// back (resume), so its collection lists the earlier run's snapshots too.
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/number_format.hpp"
#include "io/output_error.hpp"
#include "io/vtk_output.hpp"
#include "io/xml_text.hpp"

namespace eddy {

PvdCollection::PvdCollection(std::string path) : path_(std::move(path)) {}

void PvdCollection::add_entry(double time, const std::string& file) {
  auto it = entries_.begin();
  while (it != entries_.end() && it->first < time) ++it;
  if (it != entries_.end() && it->first == time) {
    it->second = file;  // the same time written again (a re-run or a final snapshot): replace
  } else {
    entries_.emplace(it, time, file);
  }
}

namespace {

/// The value of attribute `name` in the XML element text `element`, entities decoded; throws when absent.
std::string attribute(const std::string& element, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t begin = element.find(key);
  if (begin == std::string::npos) throw std::runtime_error("a DataSet without " + name);
  const std::size_t from = begin + key.size(), end = element.find('"', from);
  if (end == std::string::npos) throw std::runtime_error("an unterminated " + name);
  return xml_unescape(element.substr(from, end - from));
}

}  // namespace

std::size_t PvdCollection::resume(double up_to) {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return 0;
  std::ostringstream text_stream;
  text_stream << in.rdbuf();
  const std::string text = text_stream.str();
  std::vector<std::pair<double, std::string>> kept;
  try {
    if (text.find("<VTKFile type=\"Collection\"") == std::string::npos) throw std::runtime_error("not a VTK collection");
    for (std::size_t at = text.find("<DataSet"); at != std::string::npos; at = text.find("<DataSet", at + 1)) {
      const std::size_t end = text.find("/>", at);
      if (end == std::string::npos) throw std::runtime_error("an unterminated DataSet");
      const std::string element = text.substr(at, end - at);
      const std::string time_text = attribute(element, "timestep");
      double time = 0;
      const auto [stop, error] = std::from_chars(time_text.data(), time_text.data() + time_text.size(), time);
      if (error != std::errc() || stop != time_text.data() + time_text.size() || !std::isfinite(time)) {
        throw std::runtime_error("timestep \"" + time_text + "\" is not a number");
      }
      if (time <= up_to) kept.emplace_back(time, attribute(element, "file"));
    }
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path_ + ": " + e.what() + "; the earlier snapshots are not listed (the file is rewritten "
                             "at the next snapshot)");
  }
  entries_.clear();
  for (const auto& [time, file] : kept) add_entry(time, file);
  write();
  return entries_.size();
}

void PvdCollection::add(double time, const std::string& file) {
  if (!std::isfinite(time)) throw std::invalid_argument("PvdCollection::add: time must be finite");
  add_entry(time, file);
  write();
}

void PvdCollection::write() const {
  std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      "  <Collection>\n";
  for (const auto& [time, file] : entries_) {
    text += "    <DataSet timestep=\"" + format_exact(time) + "\" group=\"\" part=\"0\" file=\"" + xml_escape(file) +
            "\"/>\n";
  }
  text += "  </Collection>\n</VTKFile>\n";
  write_file_atomically(path_, text);
}

}  // namespace eddy
