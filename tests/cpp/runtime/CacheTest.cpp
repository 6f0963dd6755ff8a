#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/Cache.h"
#include "support/Env.h"

using namespace tilec;
using namespace tilec::runtime;
namespace fs = std::filesystem;

namespace {

class TempCacheDir {
public:
  TempCacheDir() {
    std::string tmpl = (fs::temp_directory_path() / "tilec-cache-test-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    path = mkdtemp(buf.data());
  }
  ~TempCacheDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

KernelBinary binary(const std::string &tag) {
  KernelBinary b;
  b.meta.name = "kernel_" + tag;
  b.meta.num_warps = 4;
  b.meta.shared = 1024;
  b.meta.arch = "sm_90a";
  b.meta.compiler = "test";
  b.meta.params = {{"x_ptr", ParamKind::Ptr}, {"n", ParamKind::I32}};
  b.ptx = "// ptx of " + tag + "\n";
  b.cubin = std::string("\x7f" "ELF", 4) + "cubin of " + tag + std::string(1, '\0') + "tail";
  return b;
}

// Every part of an entry comes from the same writer.
bool consistent(const KernelBinary &b) {
  std::string tag = b.meta.name.substr(7);
  return b.ptx == "// ptx of " + tag + "\n" &&
         b.cubin == std::string("\x7f" "ELF", 4) + "cubin of " + tag + std::string(1, '\0') + "tail";
}

std::string key_of(int i) { return CacheKey().add("test", std::to_string(i)).hex(); }

} // namespace

TEST(Cache, StoreThenLoadRoundTrips) {
  TempCacheDir dir;
  DiskCache cache(dir.path);
  std::string key = key_of(1);
  EXPECT_FALSE(cache.load(key));
  std::string err;
  ASSERT_TRUE(cache.store(key, binary("a"), &err)) << err;
  auto got = cache.load(key);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->meta, binary("a").meta);
  EXPECT_EQ(got->ptx, binary("a").ptx);
  EXPECT_EQ(got->cubin, binary("a").cubin); // binary-safe (embedded NUL)
  EXPECT_TRUE(fs::exists(cache.entry_dir(key) + "/kernel.ptx"));
  EXPECT_TRUE(fs::exists(cache.entry_dir(key) + "/kernel.cubin"));
  EXPECT_TRUE(fs::exists(cache.entry_dir(key) + "/kernel.json"));
  // a second store of the same key keeps the first entry and succeeds
  EXPECT_TRUE(cache.store(key, binary("b")));
  EXPECT_EQ(cache.load(key)->meta.name, "kernel_a");
  // no temporary directories are left behind
  for (const auto &e : fs::directory_iterator(fs::path(cache.entry_dir(key)).parent_path()))
    EXPECT_EQ(e.path().filename().string().rfind(".tmp", 0), std::string::npos) << e.path();
}

TEST(Cache, RejectsBadKeysAndDamagedEntries) {
  TempCacheDir dir;
  DiskCache cache(dir.path);
  std::string err;
  EXPECT_FALSE(cache.store("../../etc", binary("a"), &err));
  EXPECT_NE(err.find("invalid cache key"), std::string::npos);
  EXPECT_FALSE(cache.load("../../etc"));

  std::string key = key_of(2);
  ASSERT_TRUE(cache.store(key, binary("a")));
  { std::ofstream(cache.entry_dir(key) + "/kernel.json") << "{ not json"; }
  EXPECT_FALSE(cache.load(key)); // a damaged entry is a miss...
  EXPECT_TRUE(cache.store(key, binary("c")));
  ASSERT_TRUE(cache.load(key)); // ...and the next store replaces it
  EXPECT_EQ(cache.load(key)->meta.name, "kernel_c");
}

TEST(Cache, AlwaysCompileBypassesLookups) {
  TempCacheDir dir;
  DiskCache cache(dir.path);
  std::string key = key_of(3);
  ASSERT_TRUE(cache.store(key, binary("a")));
  setenv("TILEC_ALWAYS_COMPILE", "1", 1);
  EXPECT_FALSE(cache.load(key));
  unsetenv("TILEC_ALWAYS_COMPILE");
  EXPECT_TRUE(cache.load(key));
}

TEST(Cache, DefaultDirFollowsEnvironment) {
  setenv("TILEC_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(DiskCache::default_dir(), "/some/where");
  EXPECT_EQ(DiskCache().dir(), "/some/where");
  unsetenv("TILEC_CACHE_DIR");
  const char *home = std::getenv("HOME");
  if (home && !std::getenv("XDG_CACHE_HOME")) {
    EXPECT_EQ(DiskCache::default_dir(), std::string(home) + "/.cache/tilec");
  }
}

TEST(Cache, KeysAreStableAndSensitive) {
  std::string a = CacheKey().add("src", "def k(): pass").add("arch", "sm_90a").hex();
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a, CacheKey().add("src", "def k(): pass").add("arch", "sm_90a").hex());
  EXPECT_NE(a, CacheKey().add("src", "def k(): pass").add("arch", "sm_80").hex());
  EXPECT_NE(a, CacheKey().add("src", "def k():  pass").add("arch", "sm_90a").hex());
  // the same in another process (the fingerprint does not depend on the process)
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    std::string k = CacheKey().add("src", "def k(): pass").add("arch", "sm_90a").hex();
    ssize_t n = write(fds[1], k.data(), k.size());
    _exit(n == static_cast<ssize_t>(k.size()) ? 0 : 1);
  }
  close(fds[1]);
  char buf[64];
  ASSERT_EQ(read(fds[0], buf, 64), 64);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_EQ(std::string(buf, 64), a);
  EXPECT_NE(compiler_fingerprint().find("tilec-kernel-cache"), std::string::npos);
}

// The variables that change the emitted code (Env.def's codegen column) are part of every
// key, at their default when unset; the others are not.
TEST(Cache, KeysFollowCodegenVariables) {
  auto key = [] { return CacheKey().add("src", "def k(): pass").hex(); };
  unsetenv("TILEC_WGMMA_DESC");
  unsetenv("TILEC_TIME");
  std::string base = key();
  setenv("TILEC_WGMMA_DESC", "wide", 1);
  std::string wide = key();
  setenv("TILEC_WGMMA_DESC", "auto", 1); // the default, spelled out
  std::string spelled = key();
  unsetenv("TILEC_WGMMA_DESC");
  setenv("TILEC_TIME", "1", 1); // prints timings, compiles the same code
  std::string timed = key();
  unsetenv("TILEC_TIME");
  EXPECT_NE(base, wide);
  EXPECT_EQ(base, spelled);
  EXPECT_EQ(base, timed);
  EXPECT_NE(env::codegen_settings().find("TILEC_WGMMA_DESC=auto;"), std::string::npos);
  EXPECT_EQ(env::codegen_settings().find("TILEC_TIME"), std::string::npos);
}

// Several processes store the same keys (with different contents) while others read them:
// every read sees a whole entry from a single writer, and every key ends up readable.
TEST(Cache, ConcurrentProcessesWriteAtomically) {
  TempCacheDir dir;
  const int kKeys = 60, kWriters = 4, kReaders = 2;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      DiskCache cache(dir.path);
      bool ok = true;
      for (int i = 0; i < kKeys; ++i) {
        int k = (w % 2) ? kKeys - 1 - i : i; // writers meet in both directions
        ok &= cache.store(key_of(100 + k), binary("w" + std::to_string(w)));
      }
      _exit(ok ? 0 : 1);
    }
    pids.push_back(pid);
  }
  for (int r = 0; r < kReaders; ++r) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      DiskCache cache(dir.path);
      for (int rep = 0; rep < 20; ++rep)
        for (int k = 0; k < kKeys; ++k)
          if (auto b = cache.load(key_of(100 + k)); b && !consistent(*b))
            _exit(2);
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child exit " << status;
  }
  DiskCache cache(dir.path);
  for (int k = 0; k < kKeys; ++k) {
    auto b = cache.load(key_of(100 + k));
    ASSERT_TRUE(b) << k;
    EXPECT_TRUE(consistent(*b));
  }
  // nothing temporary is left in the shard directories
  for (const auto &shard : fs::directory_iterator(dir.path))
    for (const auto &e : fs::directory_iterator(shard.path()))
      EXPECT_NE(e.path().filename().string()[0], '.') << e.path();
}
