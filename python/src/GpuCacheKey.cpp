// The disk cache key of a kernel: the compiler's fingerprint, every input of the front end
// (the kernel's FunctionSource and, recursively, the @jit functions and values its globals
// name, so any edit of a kernel or of a callee changes the key), the specialisation, the
// options, the target and the PTX compiler.
#include <cstring>
#include <set>

#include "Gpu.h"
#include "frontend/sema/Sema.h"
#include "runtime/Cache.h"
#include "runtime/PtxCompiler.h"

namespace tilec::python::gpu {

namespace {

void hash_value(KeyHasher &h, const sema::Val &v, std::set<const void *> &seen);

void hash_source(KeyHasher &h, const sema::FunctionSource &fs, std::set<const void *> &seen) {
  if (!seen.insert(&fs).second) {
    h.add("fn-again", fs.name);
    return;
  }
  h.add("fn", fs.name).add("file", fs.file).add("source", fs.source);
  h.add("first_line", fs.first_line).add("noinline", fs.noinline ? 1 : 0);
  h.add("entry", fs.entry_name);
  for (const auto &kv : fs.globals) {
    h.add("global", kv.first);
    hash_value(h, kv.second, seen);
  }
  for (const auto &kv : fs.unsupported_globals)
    h.add("unsupported", kv.first).add("what", kv.second);
  h.add("end-fn", fs.name);
}

void hash_value(KeyHasher &h, const sema::Val &v, std::set<const void *> &seen) {
  using K = sema::Val::Kind;
  h.add("kind", static_cast<int64_t>(v.kind));
  switch (v.kind) {
  case K::Function:
    if (v.fn)
      hash_source(h, *v.fn, seen);
    break;
  case K::TupleClass:
  case K::Tuple:
  case K::Method:
  case K::Slice:
    if (v.named) {
      h.add("named", v.named->name);
      for (const auto &f : v.named->fields)
        h.add("field", f);
      for (const auto &d : v.named->defaults)
        hash_value(h, d, seen);
    }
    h.add("elems", static_cast<int64_t>(v.elems.size()));
    for (const auto &e : v.elems)
      hash_value(h, e, seen);
    break;
  case K::DType:
    h.add("type", v.type.str());
    break;
  case K::Float: {
    int64_t bits;
    static_assert(sizeof bits == sizeof v.f);
    std::memcpy(&bits, &v.f, sizeof bits);
    h.add("f", bits);
    break;
  }
  default:
    h.add("b", v.b ? 1 : 0).add("i", v.i).add("str", v.str);
    break;
  }
}

} // namespace

std::string cache_key(const std::shared_ptr<sema::FunctionSource> &fs, const std::string &specs,
                      const std::string &options, const std::string &arch) {
  runtime::CacheKey key; // starts with the compiler fingerprint
  KeyHasher sources;
  std::set<const void *> seen;
  hash_source(sources, *fs, seen);
  key.add("sources", sources.hex());
  key.add("specs", specs).add("options", options).add("arch", arch);
  key.add("ptx-compiler", runtime::ptx_compiler_identity());
  return key.hex();
}

} // namespace tilec::python::gpu
