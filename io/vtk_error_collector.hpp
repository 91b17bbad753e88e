// Error reporting for eddy's writers that go through the VTK library (builds with EDDY_WITH_VTK only): collects the
// ErrorEvents a VTK object raises instead of printing them, and spells out a writer's error code, so that a failed
// write becomes one OutputError naming the file and VTK's own reason.
#pragma once

#include <vtkCommand.h>
#include <vtkErrorCode.h>

#include <cstring>
#include <string>

namespace eddy::vtk_errors {

/// Collects the messages of ErrorEvents raised by a VTK object instead of printing them to the output window.
/// Attach with object->AddObserver(vtkCommand::ErrorEvent, collector).
class ErrorCollector : public vtkCommand {
 public:
  static ErrorCollector* New() { return new ErrorCollector; }
  void Execute(vtkObject* /*caller*/, unsigned long /*event_id*/, void* call_data) override {
    if (!message_.empty()) message_ += "; ";
    message_ += call_data != nullptr ? essence(static_cast<const char*>(call_data)) : "unknown VTK error";
  }
  bool has_error() const { return !message_.empty(); }
  const std::string& message() const { return message_; }

 private:
  /// The last line of a vtkErrorMacro text ("ERROR: In <file>, line <n>\n<class> (<address>): <what>\n\n")
  /// without the class prefix: just <what>.
  static std::string essence(std::string text) {
    const std::size_t end = text.find_last_not_of(" \t\r\n");
    text.resize(end == std::string::npos ? 0 : end + 1);
    const std::size_t newline = text.rfind('\n');
    if (newline != std::string::npos) text.erase(0, newline + 1);
    const std::size_t prefix = text.find("): ");
    if (prefix != std::string::npos) text.erase(0, prefix + 3);
    return text;
  }
  std::string message_;
};

/// Text for a writer's error code: system errors (< FirstVTKErrorCode) are errno values. Spelled out here because
/// vtkErrorCode::GetStringFromErrorCode lives in vtkCommonMisc, a module eddy does not link directly.
inline std::string describe_error_code(unsigned long code) {
  if (code < vtkErrorCode::FirstVTKErrorCode) return std::strerror(static_cast<int>(code));
  switch (code) {
    case vtkErrorCode::FileNotFoundError:
      return "file not found";
    case vtkErrorCode::CannotOpenFileError:
      return "cannot open file";
    case vtkErrorCode::NoFileNameError:
      return "no file name";
    case vtkErrorCode::OutOfDiskSpaceError:
      return "out of disk space";
    default:
      return "VTK error code " + std::to_string(code);
  }
}

}  // namespace eddy::vtk_errors
