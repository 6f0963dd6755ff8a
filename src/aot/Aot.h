// Ahead-of-time compilation shared by `tilec compile` and the public C++ API (src/api):
// a signature in the style of Triton's compile.py (one entry per kernel parameter, a
// constexpr parameter taking its value), bound to the kernel and compiled to PTX and,
// when ptxas is found, a cubin.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aot/Signature.h"
#include "frontend/sema/Sema.h"
#include "pipeline/GpuPipeline.h"

namespace tilec::aot {

// One kernel parameter bound to its signature entry.
struct AotParam {
  std::string name;
  std::string entry;  // the signature entry as given, spaces removed ("*fp32:16", "1024")
  sema::ArgSpec spec; // Constexpr for a value entry
  bool is_constexpr() const { return spec.kind == sema::ArgSpec::Kind::Constexpr; }
};

struct AotRequest {
  std::string path;                // the .py file (names the source in diagnostics)
  std::optional<std::string> text; // its content, when the caller already has it
  std::string kernel;              // the @jit function
  std::string signature;           // "*fp32:16,*fp32:16,*fp32:16,i32,1024"
  int num_warps = 4;
  int num_stages = 3;
  std::string arch = "sm_90a";
  bool debug = false;
  bool build_cubin = true; // run ptxas when one is found
};

struct AotKernel {
  std::vector<AotParam> params; // every kernel parameter, in order
  pipeline::CompiledGpuKernel gpu;
  std::string cubin;    // empty when no ptxas was found (or build_cubin is off)
  std::string compiler; // what built the cubin
};

// Splits a signature into its entries (top-level commas; spaces removed). UsageError on
// an empty entry.
std::vector<std::string> split_signature(const std::string &sig);

// Binds one entry per parameter: `*T[:16]` a pointer, `T[:16|:1]` a scalar, anything
// else a constexpr value (as parse_constexpr_value reads it). A parameter annotated
// tl.constexpr must take a value. UsageError names the problem.
std::vector<AotParam> bind_full_signature(const std::string &kernel,
                                          const std::vector<KernelParam> &params,
                                          const std::vector<std::string> &entries);

// "sm_90a" -> (90, true), by the rules of support/Target.h; UsageError for anything else.
std::pair<int, bool> parse_target(const std::string &arch);

// Resolves and compiles the kernel (sources registered in `sm`, so a CompileError renders
// against it). UsageError for bad arguments, CompileError (PtxasError included) for the
// kernel's own errors.
AotKernel aot_compile(const AotRequest &req, SourceManager &sm);

// A signature's C types and hints: for each run-time parameter (not constexpr), what a
// launch function takes ("unsigned long long" for pointers, "int32_t", "float",
// "tilec_tensordesc_2d", ...). Empty for a dtype with no C spelling.
std::string c_type_of(const sema::ArgSpec &spec);

// --- Tensor descriptor parameters (AotDesc.cpp) ------------------------------------------
// A `tensordesc<T[B0, ..]>` parameter is several .params (Sema's descriptor_parameter): its
// base, its shape as int32s and every stride but the last as an int64, named `d.base`,
// `d.shape.<i>`, `d.stride.<i>`. Launchers take the descriptor whole and check what Triton's
// host TensorDescriptor checks before packing the parts.

// Where the value of one .param comes from: a run-time parameter whole, or a part of one
// that is a tensor descriptor.
struct ParamSource {
  enum class Part { Whole, Base, Shape, Stride };
  std::string param; // the kernel parameter
  Part part = Part::Whole;
  int dim = 0; // Shape, Stride
};
// "x" -> (x, Whole); "d.base" -> (d, Base); "d.shape.1" -> (d, Shape, 1); "d.stride.0".
ParamSource param_source(const std::string &param_name);

// The first way a descriptor (base, shape and strides in elements) breaks what parameter
// `spec` (ArgSpec::Kind::TensorDesc) needs, as a phrase ("the base 0x1004 is not 16-byte
// aligned"); empty when it fits. The rules: the block shape's rank, a 16-byte aligned base,
// shape entries in [1, 2**31) (the kernel takes int32s), the last stride 1, the others whole
// multiples of 16 bytes; and the spec's divisibility facts, when it has any.
std::string tensor_desc_problem(const sema::ArgSpec &spec, uint64_t base,
                                const std::vector<int64_t> &shape,
                                const std::vector<int64_t> &strides);

// The C struct a launch function takes for a descriptor of rank `rank`: "tilec_tensordesc_2d".
std::string c_desc_type(size_t rank);
// For the header: the TILEC_AOT_ERROR_DESC_* codes and a (guarded) struct per rank the
// run-time parameters use; empty when they have no descriptor.
std::string c_desc_declarations(const std::vector<AotParam> &params);
// For a launch function: C statements returning TILEC_AOT_ERROR_DESC_* for a descriptor
// argument that breaks the rules of tensor_desc_problem.
std::string c_desc_checks(const std::vector<AotParam> &params);
// The C condition of a descriptor's divisibility hint (`tensordesc<..>:16`: "d.shape[0] %
// 16 == 0 && ..."); empty without one. Its alignment is a rule, not a hint.
std::string c_desc_hint(const AotParam &p);
// For <name>_error_string: the messages of those codes (`kernel` names the kernel).
std::string c_desc_error_cases(const std::vector<AotParam> &params, const std::string &kernel);
// The C expression of a .param's value: "x", "d.base", "d.shape[1]", "d.strides[0]".
std::string c_param_value(const ParamSource &src);

// Translates a grid ("cdiv(n, 1024), 1, 1": up to 3 expressions over the integer
// parameters and tensor descriptors' shapes (d.shape[0]), with + - * / // % cdiv min max;
// missing dimensions are 1) to C int64_t
// expressions; constexpr integers are inlined. UsageError naming the problem otherwise.
std::array<std::string, 3> grid_to_c(const std::string &grid, const std::vector<AotParam> &params);

// The two files `tilec compile` writes, and the metadata line `tilec link` reads back.
struct AotSources {
  std::string header;
  std::string source;
};
// `name` is the C name of the launch function (load_<name>, unload_<name>, <name>);
// `header_file` is how the source includes the header. <name>_grid(stream, gx, gy, gz,
// args...) is always written; <name>(stream, args...) when `grid` is not empty.
AotSources emit_aot(const AotKernel &k, const std::string &name, const std::string &header_file,
                    const std::string &signature, const std::string &grid);

// The C parameter list of a launch function ("struct CUstream_st *stream, unsigned long
// long x_ptr, int32_t n"): the stream, the grid when `explicit_grid` (int64_t grid_x,
// grid_y, grid_z), then the run-time parameters.
std::string c_parameter_list(const std::vector<AotParam> &params, bool explicit_grid);
// The C condition under which arguments fit the parameters' hints ("1" when none).
std::string c_hint_condition(const std::vector<AotParam> &params);
// Text as the body of a C string literal.
std::string c_string_body(const std::string &text);

} // namespace tilec::aot
