#include "runtime/Cache.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/Env.h"

namespace tilec::runtime {

namespace {

// Bump when the entry layout or the metadata format changes.
constexpr const char *kCacheFormat = "tilec-kernel-cache-1";

bool valid_key(const std::string &key) {
  if (key.size() < 16 || key.size() > 128)
    return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

std::optional<std::string> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return ss.str();
}

bool write_file(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return static_cast<bool>(out);
}

bool make_dirs(const std::string &path) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty())
      continue;
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

const char *kFiles[] = {"kernel.json", "kernel.ptx", "kernel.cubin"};

void remove_entry_dir(const std::string &dir) {
  for (const char *f : kFiles)
    unlink((dir + "/" + f).c_str());
  rmdir(dir.c_str());
}

// A name no other writer (thread or process) uses at the same time.
std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1)) + "-" +
         std::to_string(static_cast<uint64_t>(now) & 0xffffff);
}

} // namespace

std::string compiler_fingerprint() {
  static const std::string fp = [] {
    std::string s = kCacheFormat;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&compiler_fingerprint), &info) && info.dli_fname) {
      struct stat st;
      if (stat(info.dli_fname, &st) == 0)
        s += std::string(":") + info.dli_fname + ":" + std::to_string(st.st_size) + ":" +
             std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    }
    return s;
  }();
  return fp;
}

CacheKey::CacheKey() {
  h_.add("compiler", compiler_fingerprint());
  h_.add("codegen-env", env::codegen_settings()); // TILEC_WGMMA_DESC=wide compiles anew
}

DiskCache::DiskCache(std::string dir) : dir_(dir.empty() ? default_dir() : std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/')
    dir_.pop_back();
}

std::string DiskCache::default_dir() {
  std::string d = env::get(env::Var::CacheDir);
  if (!d.empty())
    return d;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tilec";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/tilec";
  return "/tmp/tilec-cache-" + std::to_string(getuid());
}

std::string DiskCache::entry_dir(const std::string &key) const {
  return dir_ + "/" + key.substr(0, 2) + "/" + key;
}

std::optional<KernelBinary> DiskCache::load(const std::string &key) const {
  if (!valid_key(key) || env::flag(env::Var::AlwaysCompile))
    return std::nullopt;
  std::string d = entry_dir(key);
  auto json = read_file(d + "/kernel.json");
  if (!json)
    return std::nullopt;
  auto ptx = read_file(d + "/kernel.ptx");
  auto cubin = read_file(d + "/kernel.cubin");
  if (!ptx || !cubin)
    return std::nullopt;
  KernelBinary bin;
  try {
    bin.meta = KernelMetadata::from_json(*json);
  } catch (const std::exception &) {
    return std::nullopt; // damaged: recompile (store() will not overwrite; see below)
  }
  bin.ptx = std::move(*ptx);
  bin.cubin = std::move(*cubin);
  return bin;
}

bool DiskCache::store(const std::string &key, const KernelBinary &bin, std::string *error) const {
  return store_entry(key, bin, error, /*may_replace=*/true);
}

bool DiskCache::store_entry(const std::string &key, const KernelBinary &bin, std::string *error,
                            bool may_replace) const {
  auto fail = [&](const std::string &what) {
    if (error)
      *error = what;
    return false;
  };
  if (!valid_key(key))
    return fail("invalid cache key '" + key + "'");
  std::string final_dir = entry_dir(key);
  std::string parent = final_dir.substr(0, final_dir.rfind('/'));
  if (!make_dirs(parent))
    return fail("cannot create " + parent + ": " + std::strerror(errno));
  std::string tmp = parent + "/.tmp-" + key.substr(0, 16) + "-" + unique_suffix();
  if (mkdir(tmp.c_str(), 0755) != 0)
    return fail("cannot create " + tmp + ": " + std::strerror(errno));
  if (!write_file(tmp + "/kernel.json", bin.meta.to_json()) ||
      !write_file(tmp + "/kernel.ptx", bin.ptx) ||
      !write_file(tmp + "/kernel.cubin", bin.cubin)) {
    int e = errno;
    remove_entry_dir(tmp);
    return fail("cannot write the cache entry " + tmp + ": " + std::strerror(e));
  }
  if (rename(tmp.c_str(), final_dir.c_str()) != 0) {
    int e = errno;
    remove_entry_dir(tmp);
    if (e == EEXIST || e == ENOTEMPTY) {
      // Another writer got there first. A damaged entry (unreadable metadata) is replaced
      // by moving it aside, which is atomic too; a sound one is kept.
      if (!may_replace || load(key) || env::flag(env::Var::AlwaysCompile))
        return true;
      std::string aside = parent + "/.stale-" + key.substr(0, 16) + "-" + unique_suffix();
      if (rename(final_dir.c_str(), aside.c_str()) == 0)
        remove_entry_dir(aside);
      return store_entry(key, bin, error, false);
    }
    return fail("cannot rename " + tmp + " to " + final_dir + ": " + std::strerror(e));
  }
  return true;
}

} // namespace tilec::runtime
