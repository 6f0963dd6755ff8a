#include "runtime/PtxCompiler.h"
#include "runtime/OccupancyCap.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "runtime/Driver.h"
#include "support/Env.h"
#include "support/Target.h"

extern char **environ;

namespace tilec::runtime {

namespace {

bool is_executable(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string getenv_str(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

std::optional<std::string> search_ptxas() {
  std::string path = getenv_str("PATH");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos)
      end = path.size();
    std::string dir = path.substr(start, end - start);
    if (!dir.empty() && is_executable(dir + "/ptxas"))
      return dir + "/ptxas";
    start = end + 1;
  }
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string home = getenv_str(var);
    if (!home.empty() && is_executable(home + "/bin/ptxas"))
      return home + "/bin/ptxas";
  }
  if (is_executable("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool write_file(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(out);
}

// A private directory under $TMPDIR (or /tmp), removed with its files on destruction.
class TempDir {
public:
  TempDir() {
    std::string base = getenv_str("TMPDIR");
    if (base.empty())
      base = "/tmp";
    std::string tmpl = base + "/tilec-ptxas-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      throw PtxasError("cannot create a temporary directory under " + base + ": " +
                       std::strerror(errno));
    path_ = buf.data();
  }
  ~TempDir() {
    for (const auto &f : files_)
      unlink((path_ + "/" + f).c_str());
    rmdir(path_.c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  std::string file(const std::string &name) {
    files_.push_back(name);
    return path_ + "/" + name;
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
  std::vector<std::string> files_;
};

// Runs argv[0] with stdout and stderr into `log_path`; returns the exit status (or -1 with
// `error` set when the process could not be started or ended by a signal).
int run_process(const std::vector<std::string> &argv, const std::string &log_path,
                std::string &error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char *> args;
  for (const auto &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      error = "waitpid failed: " + std::string(std::strerror(errno));
      return -1;
    }
  }
  if (WIFSIGNALED(status)) {
    error = argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

std::string safe_file_name(const std::string &kernel) {
  std::string s;
  for (char c : kernel)
    s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return s.empty() ? std::string("kernel") : s.substr(0, 64);
}

void replace_all(std::string &s, const std::string &from, const std::string &to) {
  if (from.empty())
    return;
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

std::string GpuTarget::arch() const {
  return "sm_" + std::to_string(cc()) + (cc() >= 90 ? "a" : "");
}

std::optional<GpuTarget> GpuTarget::parse(const std::string &text) {
  std::optional<TargetSpec> spec = tilec::parse_target(text); // the one set of rules
  if (!spec)
    return std::nullopt;
  GpuTarget t;
  t.major = spec->cc / 10;
  t.minor = spec->cc % 10;
  return t;
}

std::optional<std::string> find_ptxas() {
  static std::mutex mu;
  static std::string cached_for;
  static std::optional<std::string> cached;
  std::string explicit_path = env::get(env::Var::Ptxas);
  if (!explicit_path.empty()) {
    if (!is_executable(explicit_path))
      throw PtxasError("TILEC_PTXAS is set to '" + explicit_path +
                       "', which is not an executable file");
    return explicit_path;
  }
  std::string probe =
      getenv_str("PATH") + "|" + getenv_str("CUDA_HOME") + "|" + getenv_str("CUDA_PATH");
  std::lock_guard<std::mutex> lock(mu);
  if (cached_for != probe || cached_for.empty()) {
    cached = search_ptxas();
    cached_for = probe;
  }
  return cached;
}

std::string ptx_compiler_identity() {
  if (auto p = find_ptxas()) {
    struct stat st;
    if (stat(p->c_str(), &st) == 0)
      return "ptxas:" + *p + ":" + std::to_string(st.st_size) + ":" +
             std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    return "ptxas:" + *p;
  }
  return "driver-jit:" + std::to_string(driver_version());
}

Cubin compile_with_ptxas(const std::string &ptxas, const std::string &ptx, const GpuTarget &t,
                         const PtxOptions &opts, const std::string &kernel) {
  auto t0 = std::chrono::steady_clock::now();
  TempDir dir;
  std::string base = safe_file_name(kernel);
  std::string ptx_path = dir.file(base + ".ptx");
  std::string cubin_path = dir.file(base + ".cubin");
  std::string log_path = dir.file("ptxas.log");
  if (!write_file(ptx_path, ptx))
    throw PtxasError("cannot write " + ptx_path + ": " + std::strerror(errno));
  std::vector<std::string> argv = {ptxas, "-arch=" + t.arch(),
                                   "-O" + std::to_string(opts.opt_level)};
  if (opts.max_registers > 0)
    argv.push_back("--maxrregcount=" + std::to_string(opts.max_registers));
  if (opts.line_info)
    argv.push_back("-lineinfo");
  if (opts.threads > 0 || ptx.find("setmaxnreg.") != std::string::npos)
    argv.push_back("-v"); // registers and spills in the log: the occupancy cap, setmaxnreg
  argv.insert(argv.end(), {ptx_path, "-o", cubin_path});
  std::string error;
  int rc = run_process(argv, log_path, error);
  std::string log = read_file(log_path);
  replace_all(log, dir.path() + "/", ""); // "kernel.ptx, line 5" rather than a temp path
  if (rc != 0) {
    std::string msg = "ptxas failed to compile kernel '" + kernel + "' for " + t.arch();
    msg += rc < 0 ? ": " + error : " (exit status " + std::to_string(rc) + "):";
    if (!log.empty())
      msg += "\n" + log;
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    throw PtxasError(msg);
  }
  Cubin out;
  out.image = read_file(cubin_path);
  if (out.image.size() < 4 || out.image.compare(0, 4,
                                                "\x7f"
                                                "ELF") != 0)
    throw PtxasError("ptxas produced no cubin for kernel '" + kernel + "'");
  out.compiler = "ptxas " + ptxas;
  out.log = std::move(log);
  out.seconds = seconds_since(t0);
  return out;
}

Cubin compile_with_driver(const std::string &ptx, const PtxOptions &opts, const std::string &kernel,
                          int device) {
  auto t0 = std::chrono::steady_clock::now();
  const DriverApi &d = driver();
  DeviceContextScope scope(device);
  std::vector<char> error_log(1 << 14, '\0'), info_log(1 << 14, '\0');
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {
      error_log.data(), reinterpret_cast<void *>(error_log.size()), info_log.data(),
      reinterpret_cast<void *>(info_log.size()),
      reinterpret_cast<void *>(static_cast<uintptr_t>(opts.opt_level > 4 ? 4 : opts.opt_level))};
  CUlinkState link = nullptr;
  check(d.cuLinkCreate(5, options, values, &link), "cuLinkCreate", kernel);
  struct Destroy {
    const DriverApi &d;
    CUlinkState s;
    ~Destroy() { d.cuLinkDestroy(s); }
  } destroy{d, link};
  std::string name = safe_file_name(kernel) + ".ptx";
  CUresult r = d.cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()),
                               ptx.size() + 1, name.c_str(), 0, nullptr, nullptr);
  void *image = nullptr;
  size_t size = 0;
  if (r == CUDA_SUCCESS)
    r = d.cuLinkComplete(link, &image, &size);
  if (r != CUDA_SUCCESS) {
    std::string log(error_log.data());
    if (r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_INVALID_IMAGE || !log.empty())
      throw PtxasError("the CUDA driver's JIT failed to compile kernel '" + kernel +
                       "': " + describe_error(r) + (log.empty() ? "" : "\n" + log));
    throw_cuda_error(r, "cuLinkComplete", kernel);
  }
  Cubin out;
  out.image.assign(static_cast<const char *>(image), size); // owned by `link`: copy first
  out.compiler = "driver JIT (CUDA " + std::to_string(driver_version()) + ")";
  out.log = info_log.data();
  out.seconds = seconds_since(t0);
  return out;
}

Cubin compile_ptx(const std::string &ptx, const GpuTarget &t, const PtxOptions &opts,
                  const std::string &kernel, int device) {
  if (auto ptxas = find_ptxas()) {
    Cubin c = compile_with_ptxas(*ptxas, ptx, t, opts, kernel);
    if (!setmaxnreg_fits(ptx, log_registers(c.log))) { // OccupancyCap.h
      Cubin even = compile_with_ptxas(*ptxas, without_setmaxnreg(ptx), t, opts, kernel);
      even.compiler += " (setmaxnreg dropped: the registers at entry do not cover it)";
      even.seconds += c.seconds;
      return even;
    }
    if (opts.threads <= 0 || opts.max_registers > 0)
      return c;
    int k = occupancy_min_ctas(t, log_registers(c.log), opts.threads, opts.shared_bytes);
    std::string capped = k > 0 ? with_min_ctas(ptx, k) : "";
    if (capped.empty())
      return c;
    Cubin c2;
    try { // a speculative register budget: ptxas refuses one an instruction cannot fit in
      c2 = compile_with_ptxas(*ptxas, capped, t, opts, kernel); // (wgmma's accumulators)
    } catch (const PtxasError &) {
      return c;
    }
    int spill = log_spill_bytes(c2.log);
    if (spill < 0 || spill > kMaxSpillBytes)
      return c;
    c2.compiler += " .minnctapersm " + std::to_string(k);
    c2.seconds += c.seconds;
    return c2;
  }
  if (device < 0)
    throw PtxasError("no ptxas found (set TILEC_PTXAS, or put the CUDA toolkit's bin in PATH) "
                     "and no GPU given for the driver's JIT: cannot compile kernel '" +
                     kernel + "' to a cubin");
  // its log does not say the registers at entry: no setmaxnreg (OccupancyCap.h)
  return compile_with_driver(without_setmaxnreg(ptx), opts, kernel, device);
}

} // namespace tilec::runtime
