// tilec's public C++ API: compile a Triton-language kernel (a @triton.jit function in a
// .py file or in source text) to PTX and a cubin, load it into a CUDA context and launch
// it, with no Python. Link tilec::tilec (find_package(tilec)); the CUDA driver is opened
// at run time (dlopen of libcuda.so.1), so neither cuda.h nor libcuda is needed to build.
//
//   tilec::CompileOptions o;
//   o.kernel = "add_kernel";
//   o.signature = "*fp32:16,*fp32:16,*fp32:16,i32,1024"; // one entry per parameter
//   tilec::CompiledKernel ck = tilec::compile_file("kernels.py", o);
//   tilec::Kernel k = tilec::Kernel::load(ck);            // the current CUDA context
//   k.launch({tilec::cdiv(n, 1024)}, stream, {tilec::Arg::ptr(x), tilec::Arg::ptr(y),
//                                             tilec::Arg::ptr(out), tilec::Arg(n)});
//
// A parameter given as "tensordesc<fp16[64, 64]>" (a host tensor descriptor) takes a
// tilec::TensorDesc: {tilec::TensorDesc(a, {M, K}, {K, 1}), ...}.
//
// CUDA handles cross this API as void*: a CUcontext or CUstream converts to it implicitly.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tilec {

// --- Errors --------------------------------------------------------------------------------

// Every error tilec throws.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The kernel does not compile. what() is the diagnostic Python's tilec.CompilationError
// shows: "file:line:col: error: message", the source line and a caret (preceded by what
// static_print wrote), or ptxas's own message.
class CompilationError : public Error {
public:
  using Error::Error;
};

// A bad request: a malformed signature, a constexpr without a value, an unknown target,
// launch arguments of the wrong number or kind, or values breaking the signature's hints.
class InvalidArgument : public Error {
public:
  using Error::Error;
};

// The CUDA driver failed (or is missing: code() -1). what() names the call and the kernel.
class CudaError : public Error {
public:
  CudaError(int code, const std::string &what) : Error(what), code_(code) {}
  int code() const { return code_; } // the CUresult
private:
  int code_;
};

// The kernel needs more threads or shared memory per block than the device offers.
class OutOfResources : public Error {
public:
  using Error::Error;
};

// --- Compiling -----------------------------------------------------------------------------

// One kernel parameter of a typed signature (the same as one entry of the string form).
struct ParamType {
  enum class Kind { Pointer, Scalar, Constexpr, TensorDesc };
  Kind kind = Kind::Scalar;
  // pointee, scalar or descriptor element dtype: "fp32", "fp16", "bf16", "i32", "i64", "u32", "i1"
  std::string dtype;
  // a pointer 16-byte aligned / an integer multiple of 16 / a descriptor's shape entries
  // and strides (but the last) multiples of 16 (the kernel then accesses 16 bytes at once)
  bool divisible_by_16 = false;
  bool equal_to_1 = false;          // an integer always 1 (specialised away)
  std::string value;                // Constexpr: "1024", "1.5", "True", "fp16", ...
  std::vector<int64_t> block_shape; // TensorDesc: the block each load / store moves
  bool nan_padding = false;         // TensorDesc: out-of-bounds loads read NaN, not zero

  static ParamType pointer(std::string elem, bool aligned_16 = false);
  static ParamType scalar(std::string dtype, bool divisible_by_16 = false);
  static ParamType constant(int64_t v);
  static ParamType constant(double v);
  static ParamType constant_text(std::string text); // a value as the string form spells it
  // A host tensor descriptor parameter (launched with a TensorDesc argument).
  static ParamType tensor_desc(std::string elem, std::vector<int64_t> block_shape,
                               bool nan_padding = false, bool divisible_by_16 = false);
  // the signature entry: "*fp32:16", "i32", "1024", "tensordesc<fp16[64,64]>:16"
  std::string str() const;
};

struct CompileOptions {
  std::string kernel; // the @jit function
  // One entry per kernel parameter, in order, as Triton's compile.py takes them:
  // "*fp32:16" (pointer, 16-byte aligned), "i32", "i32:16" (divisible by 16), "i32:1"
  // (equal to 1), "fp32", "i1", "tensordesc<fp16[64, 64]>" (a host tensor descriptor with
  // that block shape; "tensordesc<fp32[16, 16], nan>" pads with NaN; ":16" after it: its
  // shape entries and strides but the last are multiples of 16), or a value for a
  // constexpr parameter ("1024").
  std::string signature;
  std::vector<ParamType> params; // the typed form; used instead of `signature` when set
  int num_warps = 4;
  int num_stages = 3;
  std::string arch = "sm_90a"; // target: sm_80, sm_89, sm_90, sm_90a, ...
  bool debug = false;          // device_assert active
  bool build_cubin = true;     // run ptxas when found; else the driver JIT-compiles the PTX
};

// One .param of the compiled kernel, in order.
struct ParamInfo {
  std::string name; // the @jit parameter it carries; a descriptor's parts are named
                    // "d.base", "d.shape.<i>", "d.stride.<i>" (all strides but the last)
  std::string kind; // "ptr", "i32", "i64", "fp32", ...
};

// A compiled kernel: PTX, cubin and launch metadata. Cheap to copy (shared, immutable).
class CompiledKernel {
public:
  const std::string &name() const; // the PTX entry
  const std::string &ptx() const;
  const std::string &cubin() const; // empty when no ptxas was found
  const std::string &arch() const;  // "sm_90a"
  int num_warps() const;
  int num_stages() const;
  int shared_bytes() const; // dynamic shared memory per block
  const std::vector<ParamInfo> &params() const;
  // The run-time arguments a launch takes, in order: the parameters that are not
  // constexpr (an "i32:1" parameter included: it must be passed as 1).
  const std::vector<std::string> &arg_names() const;

  struct Impl;
  explicit CompiledKernel(std::shared_ptr<const Impl> impl);
  const Impl &impl() const { return *impl_; }

private:
  std::shared_ptr<const Impl> impl_;
};

// Compiles `options.kernel` from a .py file (read with tilec's own front end: imports of
// triton/tilec, other @jit functions and constant globals of the file are resolved).
CompiledKernel compile_file(const std::string &path, const CompileOptions &options);
// The same from source text; `filename` names it in diagnostics.
CompiledKernel compile_source(const std::string &source, const std::string &filename,
                              const CompileOptions &options);

// --- Launching -----------------------------------------------------------------------------

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

inline uint32_t cdiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// A tensor descriptor argument (Triton's host TensorDescriptor) for a parameter whose
// signature entry is "tensordesc<...>": a tensor in device memory given by its base address
// and its shape and strides in elements. The element dtype, block shape and padding are the
// compiled kernel's. A launch checks what Triton's TensorDescriptor checks: the rank is the
// block shape's, the base is 16-byte aligned, every shape entry is in [1, 2**31) (the kernel
// takes int32 shapes), the last stride is 1 and the others are whole multiples of 16 bytes.
struct TensorDesc {
  static constexpr int kMaxRank = 5;
  uint64_t base = 0;
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};

  TensorDesc() = default;
  // Throws InvalidArgument unless shape and strides have the same length, 1 to kMaxRank.
  TensorDesc(uint64_t base, const std::vector<int64_t> &shape, const std::vector<int64_t> &strides);
  TensorDesc(const void *base, const std::vector<int64_t> &shape,
             const std::vector<int64_t> &strides)
      : TensorDesc(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base)), shape, strides) {}
  // A dense row-major tensor: each stride the product of the later dimensions.
  static TensorDesc row_major(uint64_t base, const std::vector<int64_t> &shape);
};

// A typed launch argument. Pointers are device addresses (CUdeviceptr) made with ptr();
// integers and floats keep their C++ type, which must be the parameter's kind of number;
// a tensor descriptor parameter takes a TensorDesc.
class Arg {
public:
  enum class Kind { Pointer, Int, Float, Bool, TensorDesc };
  static Arg ptr(uint64_t device_address) { return Arg(Kind::Pointer, int64_t(device_address), 0); }
  static Arg ptr(const void *device_address) {
    return ptr(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(device_address)));
  }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Arg(T v) : Arg(Kind::Int, static_cast<int64_t>(v), 0) {}
  Arg(float v) : Arg(Kind::Float, 0, v) {}
  Arg(double v) : Arg(Kind::Float, 0, v) {}
  Arg(bool v) : Arg(Kind::Bool, v ? 1 : 0, 0) {}
  Arg(const TensorDesc &d) : Arg(Kind::TensorDesc, 0, 0) { desc_ = d; }
  Kind kind() const { return kind_; }
  int64_t int_value() const { return i_; }
  double float_value() const { return f_; }
  const TensorDesc &desc() const { return desc_; } // Kind::TensorDesc

private:
  Arg(Kind k, int64_t i, double f) : kind_(k), i_(i), f_(f) {}
  Kind kind_;
  int64_t i_;
  double f_;
  TensorDesc desc_; // inline (no allocation): launches stay cheap to set up
};

// A compiled kernel loaded into one CUDA context.
class Kernel {
public:
  // Loads `k` into `cu_context` (a CUcontext); nullptr: the calling thread's current
  // context, else device 0's primary context (made current, as the CUDA runtime does).
  static Kernel load(const CompiledKernel &k, void *cu_context = nullptr);

  // Launches over `grid` on `cu_stream` (a CUstream; nullptr: the default stream) with
  // one argument per run-time parameter (CompiledKernel::arg_names()). Throws
  // InvalidArgument for a wrong count or kind, a value out of range, one breaking a
  // hint (a pointer not 16-byte aligned where the signature says :16) or a tensor
  // descriptor breaking Triton's rules (TensorDesc).
  void launch(Grid grid, void *cu_stream, const std::vector<Arg> &args) const;
  void launch(Grid grid, void *cu_stream, std::initializer_list<Arg> args) const {
    launch(grid, cu_stream, std::vector<Arg>(args));
  }

  const CompiledKernel &compiled() const;
  void *context() const; // the CUcontext it is loaded in
  int num_regs() const;  // registers per thread, as the driver reports

  struct Impl;

private:
  explicit Kernel(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// Whether the CUDA driver and a device are usable; `why` says why not. Never throws.
bool driver_available(std::string *why = nullptr);

// The compute capability of device `device` as a target name ("sm_90a" on an H100).
std::string device_arch(int device = 0);

} // namespace tilec
