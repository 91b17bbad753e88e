#include "io/file_kind.hpp"

#include <cerrno>
#include <system_error>

namespace eddy {
namespace {

namespace fs = std::filesystem;

/// The phrase for a path whose followed status could not be taken or does not exist (`ec` from fs::status), when
/// the path itself (not followed) has status `own`.
std::string unreachable(const std::string& path, const fs::file_status& own, const std::error_code& ec) {
  if (ec.value() == ELOOP) return "is a loop of symbolic links";
  if (fs::is_symlink(own)) {
    std::error_code ignored;
    const fs::path target = fs::read_symlink(path, ignored);
    return "is a symbolic link to '" + target.string() + "', which does not exist";
  }
  if (ec && ec != std::errc::no_such_file_or_directory) return "cannot be reached: " + ec.message();
  return "not found";
}

}  // namespace

std::string file_kind(fs::file_type type) {
  switch (type) {
    case fs::file_type::regular:
      return "a regular file";
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::symlink:
      return "a symbolic link";
    default:
      return "not a regular file";
  }
}

std::string not_a_regular_file(const std::string& path) {
  std::error_code own_ec, ec;
  const fs::file_status own = fs::symlink_status(path, own_ec);
  const fs::file_status followed = fs::status(path, ec);
  if (ec || followed.type() == fs::file_type::not_found) return unreachable(path, own, ec);
  if (fs::is_regular_file(followed)) return "";
  return "is " + file_kind(followed.type()) + ", not a regular file";
}

std::string not_a_directory(const std::string& path) {
  std::error_code own_ec, ec;
  const fs::file_status own = fs::symlink_status(path, own_ec);
  if (own.type() == fs::file_type::not_found) return "";  // to be created
  const fs::file_status followed = fs::status(path, ec);
  if (ec || followed.type() == fs::file_type::not_found) return unreachable(path, own, ec);
  if (fs::is_directory(followed)) return "";
  return "is " + file_kind(followed.type()) + ", not a directory";
}

}  // namespace eddy
