// io/vtk_compression.hpp: the compression of the VTK XML files eddy writes through the VTK library ([output]
// compression): the volume snapshots (.vti, and the pieces a .pvti joins), the solids' surfaces and the particles
// (.vtp). Plain C++ (no VTK): CaseConfig holds the choice; io/vtk_compressor.hpp applies it to a VTK writer.
#pragma once

#include <string_view>

namespace eddy {

/// How the appended binary data of a VTK XML file is stored. Every choice is a VTK compressor that ParaView and
/// VTK's readers decompress on their own (the file's header names it: compressor="vtkZLibDataCompressor" or
/// "vtkLZ4DataCompressor"); the data stay appended raw binary with UInt64 block headers, cut into VTK's blocks of
/// 32 KiB that are compressed one by one.
///  - none: raw values (the default; the files are those of eddy before the key existed, byte for byte).
///  - zlib: deflate at level 1 (kVtkZlibLevel), the fastest level: snapshots are written while the run waits, and the
///    higher levels saved little more (docs/performance.md, 2026-12-05).
///  - lz4:  LZ4 at its own default speed (acceleration 1, VTK's compression level 9, kVtkLz4Level): larger files than
///    zlib, compressed and read back about as fast as raw data.
enum class VtkCompression { none, zlib, lz4 };

/// VTK's compression levels (vtkXMLWriterBase::SetCompressionLevel, 1..9) eddy uses; see VtkCompression.
inline constexpr int kVtkZlibLevel = 1;
inline constexpr int kVtkLz4Level = 9;  // vtkLZ4DataCompressor: acceleration = 10 - level

/// "none", "zlib", "lz4": the case-file names.
constexpr std::string_view vtk_compression_name(VtkCompression compression) {
  switch (compression) {
    case VtkCompression::zlib:
      return "zlib";
    case VtkCompression::lz4:
      return "lz4";
    default:
      return "none";
  }
}

}  // namespace eddy
