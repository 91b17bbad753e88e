// Holds what a library prints on stderr during a call that eddy reports itself: Open MPI's ompio prints one line
// per failed write ("mca_fbtl_posix_pwritev: error in (p)write(v):No space left on device", 6 to 17 of them for a
// checkpoint on a full disk) and then returns success, so eddy's one-line error came after a dozen of them.
#pragma once

#include <string>

namespace eddy {

/// While alive, the process's stderr (file descriptor 2) goes to an anonymous in-memory file instead.
/// `release()` restores stderr and returns what was captured; the destructor restores it and replays the capture
/// to stderr, so that nothing is lost when the caller does not release (an exception). Where stderr cannot be
/// redirected (no descriptor left), nothing is captured and stderr is left alone. Not for nested use.
class StderrCapture {
 public:
  StderrCapture();
  ~StderrCapture();
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  /// Restores stderr and returns everything written to it since construction (empty after the first call).
  std::string release();

 private:
  int saved_ = -1;    // the original stderr, duplicated
  int capture_ = -1;  // the in-memory file that stands in for it
};

/// The system error of the first line of `captured` that says "error" and ends in one after a colon
/// ("mca_fbtl_posix_pwritev: error in (p)write(v):No space left on device" gives "No space left on device"), or ""
/// when no line does.
std::string first_library_error(const std::string& captured);

/// Writes `text` to stderr as it is (used to pass on what a capture held when the call succeeded).
void replay_on_stderr(const std::string& text);

}  // namespace eddy
