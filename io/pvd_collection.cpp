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
// the C locale), and the whole file is rewritten atomically after each add.
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "io/atomic_file.hpp"
#include "io/number_format.hpp"
#include "io/output_error.hpp"
#include "io/vtk_output.hpp"
#include "io/xml_text.hpp"

namespace eddy {

PvdCollection::PvdCollection(std::string path) : path_(std::move(path)) {}

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
