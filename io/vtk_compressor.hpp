// io/vtk_compressor.hpp: the file layout of every VTK XML file eddy writes through the VTK library (builds with
// EDDY_WITH_VTK only): appended raw (unencoded) binary data, UInt64 headers, and the compressor of [output]
// compression (io/vtk_compression.hpp).
#pragma once

#include <vtkXMLWriterBase.h>

#include "io/vtk_compression.hpp"

namespace eddy {

/// Sets `writer` to appended raw binary data with UInt64 headers (arrays over 4 GiB are valid) and to `compression`
/// at eddy's level (kVtkZlibLevel, kVtkLz4Level); none writes the raw values, so ParaView can memory-map them.
inline void set_appended_layout(vtkXMLWriterBase& writer, VtkCompression compression) {
  writer.SetDataModeToAppended();
  writer.EncodeAppendedDataOff();
  writer.SetHeaderTypeToUInt64();
  switch (compression) {
    case VtkCompression::zlib:
      writer.SetCompressorTypeToZLib();
      writer.SetCompressionLevel(kVtkZlibLevel);
      break;
    case VtkCompression::lz4:
      writer.SetCompressorTypeToLZ4();
      writer.SetCompressionLevel(kVtkLz4Level);
      break;
    default:
      writer.SetCompressorTypeToNone();
  }
}

}  // namespace eddy
