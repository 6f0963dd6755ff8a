#include "support/Files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tilec {

bool read_regular_file(const std::string &path, std::string &out, std::string &error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec) {
    error = ec.message();
    return false;
  }
  if (fs::is_directory(st)) {
    error = "it is a directory";
    return false;
  }
  if (!fs::is_regular_file(st)) { // checked before opening: opening a FIFO blocks
    error = "it is not a regular file (a device, FIFO or socket)";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno);
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

} // namespace tilec
