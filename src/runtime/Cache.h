// The on-disk kernel cache (DESIGN.md section 3). An entry is a directory named by its key
// (a SHA-256 of everything that determines the compiled code) holding kernel.ptx,
// kernel.cubin and kernel.json (the metadata):
//
//   $TILEC_CACHE_DIR/<key[0:2]>/<key>/{kernel.ptx, kernel.cubin, kernel.json}
//
// A writer fills a private temporary directory and renames it into place in one step, so
// readers see a whole entry or none, and concurrent writers of one key race harmlessly
// (the first rename wins; the others discard their copy). The cache is best-effort: an
// I/O failure never fails a compilation, it only costs the next process a recompile.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/KernelBinary.h"
#include "support/Hash.h"

namespace tilec::runtime {

// The fingerprint of this build of tilec, part of every key: the version plus the size
// and modification time of the binary holding this code, so a rebuilt compiler never
// reuses what an older one compiled.
std::string compiler_fingerprint();

// A cache key: hashes named fields (the compiler fingerprint and the values of the
// environment variables that change the emitted code, Env.def's codegen column, first),
// see KeyHasher.
class CacheKey {
public:
  CacheKey();
  CacheKey &add(std::string_view name, std::string_view value) {
    h_.add(name, value);
    return *this;
  }
  std::string hex() { return h_.hex(); }

private:
  KeyHasher h_;
};

class DiskCache {
public:
  // `dir` empty: TILEC_CACHE_DIR, else ~/.cache/tilec (XDG_CACHE_HOME when set).
  explicit DiskCache(std::string dir = "");
  static std::string default_dir();
  const std::string &dir() const { return dir_; }

  // The entry for `key`, or nullopt (missing, unreadable or damaged entries are misses;
  // with TILEC_ALWAYS_COMPILE=1 every lookup misses).
  std::optional<KernelBinary> load(const std::string &key) const;
  // Stores `bin` under `key` atomically. Returns false (with `error`) when it could not;
  // an existing entry is kept (it was built from the same inputs).
  bool store(const std::string &key, const KernelBinary &bin, std::string *error = nullptr) const;
  // The entry's directory (whether or not it exists).
  std::string entry_dir(const std::string &key) const;

private:
  bool store_entry(const std::string &key, const KernelBinary &bin, std::string *error,
                   bool may_replace) const;
  std::string dir_;
};

} // namespace tilec::runtime
