#include "io/stderr_capture.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <sstream>

namespace eddy {

StderrCapture::StderrCapture() {
  std::fflush(stderr);
  capture_ = ::memfd_create("eddy-stderr-capture", MFD_CLOEXEC);
  if (capture_ < 0) return;
  saved_ = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (saved_ < 0 || ::dup2(capture_, 2) < 0) {
    if (saved_ >= 0) ::close(saved_);
    ::close(capture_);
    saved_ = capture_ = -1;
  }
}

StderrCapture::~StderrCapture() { replay_on_stderr(release()); }

std::string StderrCapture::release() {
  if (capture_ < 0) return "";
  std::fflush(stderr);
  ::dup2(saved_, 2);
  ::close(saved_);
  std::string text;
  char buffer[4096];
  for (off_t at = 0;;) {
    const ssize_t got = ::pread(capture_, buffer, sizeof buffer, at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(buffer, std::size_t(got));
    at += got;
  }
  ::close(capture_);
  saved_ = capture_ = -1;
  return text;
}

std::string first_library_error(const std::string& captured) {
  std::istringstream lines(captured);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("error") == std::string::npos) continue;
    const std::size_t colon = line.rfind(':');
    if (colon == std::string::npos || colon + 1 >= line.size()) continue;
    std::string error = line.substr(colon + 1);
    while (!error.empty() && (error.front() == ' ')) error.erase(0, 1);
    while (!error.empty() && (error.back() == ' ' || error.back() == '\r')) error.pop_back();
    if (!error.empty()) return error;
  }
  return "";
}

void replay_on_stderr(const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t wrote = ::write(2, text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return;
    done += std::size_t(wrote);
  }
}

}  // namespace eddy
