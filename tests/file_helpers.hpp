// File helpers for tests: a per-test temporary directory and whole-file reads and writes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace eddy::test {

namespace fs = std::filesystem;

/// A fresh directory under the system temp directory, named after the running test and the process, removed
/// with everything in it at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "eddy_test_") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name =
        prefix + info->test_suite_name() + "_" + info->name() + "_" + std::to_string(::getpid());
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterised test names contain '/'
    }
    path_ = fs::temp_directory_path() / name;
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

/// True if any entry of `dir` has ".tmp." in its name (a leftover temporary file).
inline bool has_temporary_files(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) return true;
  }
  return false;
}

}  // namespace eddy::test
