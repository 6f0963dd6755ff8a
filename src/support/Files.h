// Reading the user's files: only regular files, so that a directory, a device such as
// /dev/zero or a FIFO named on the command line is an error instead of a hang or an
// endless read.
#pragma once

#include <string>

namespace tilec {

// The whole content of the regular file `path` into `out`; false with `error` saying why
// ("it is a directory", "it is not a regular file (a device, FIFO or socket)", or the
// system's reason) otherwise.
bool read_regular_file(const std::string &path, std::string &out, std::string &error);

} // namespace tilec
