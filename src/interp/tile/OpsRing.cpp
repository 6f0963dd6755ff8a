// The shared-memory ring ops (Ops.def; made by layout/PipelineLoops on the GPU path). A
// ring buffer is the local_alloc's own slot (S stages of [d0, d1], row-major: the
// interpreter ignores the physical placement); copies happen at issue, so commit and wait
// have nothing to do.
#include <cstring>

#include "interp/tile/Runtime.h"

namespace tilec::interp {

using ir::OpKind;

namespace {

// The stage operand's [d0, d1] block of the buffer in slot n.in[0].
uint8_t *stage_ptr(Exec &ex, const Node &n, int64_t &stage_elems) {
  const SlotInfo &buf = ex.slot(n.in[0]);
  const ir::Shape &s = buf.type->shape;
  stage_elems = s[1] * s[2];
  int64_t stage = read_int_scalar(ex, n.in[1]);
  if (stage < 0 || stage >= s[0])
    ex.fail(n, "ring stage " + std::to_string(stage) + " out of range [0, " + std::to_string(s[0]) +
                   ")");
  return ex.ptr<uint8_t>(n.in[0]) + stage * stage_elems * buf.elem_bytes;
}

void async_copy(Exec &ex, const Node &n) {
  int64_t count = 0;
  uint8_t *dst = stage_ptr(ex, n, count);
  uint64_t eb = static_cast<uint64_t>(ex.slot(n.in[0]).elem_bytes);
  const uint64_t *p = ex.ptr<uint64_t>(n.in[2]);
  const uint8_t *mask = n.in.size() > 3 ? ex.ptr<uint8_t>(n.in[3]) : nullptr;
  const BufferRange *cur = nullptr;
  for (int64_t i = 0; i < count; ++i) {
    uint8_t *d = dst + static_cast<uint64_t>(i) * eb;
    if (mask && !mask[i]) { // zero fill; the pointer is never read
      std::memset(d, 0, eb);
      if (ex.log)
        ex.log_masked(p[i], eb, AccessEvent::Load);
      continue;
    }
    uint64_t a = p[i];
    if (!cur || !cur->contains(a, eb) || (a & (eb - 1)))
      cur = &ex.check_access(n, a, eb, n.in[2], i, "async copy from");
    if (ex.race)
      ex.race_access(n, *cur, a, static_cast<uint32_t>(eb), false, n.in[2], i);
    if (ex.log)
      ex.log_access(*cur, a, AccessEvent::Load);
    std::memcpy(d, reinterpret_cast<const void *>(a), eb);
  }
}

void local_load(Exec &ex, const Node &n) {
  int64_t count = 0;
  const uint8_t *src = stage_ptr(ex, n, count);
  uint8_t *dst = ex.ptr<uint8_t>(n.out[0]);
  size_t eb = static_cast<size_t>(ex.slot(n.out[0]).elem_bytes);
  if (!n.op->int_attr("trans", 0)) {
    std::memcpy(dst, src, static_cast<size_t>(count) * eb);
    return;
  }
  const ir::Shape &s = ex.slot(n.in[0]).type->shape; // stage [d0, d1] -> result [d1, d0]
  for (int64_t i = 0; i < s[1]; ++i)
    for (int64_t j = 0; j < s[2]; ++j)
      std::memcpy(dst + static_cast<size_t>(j * s[1] + i) * eb,
                  src + static_cast<size_t>(i * s[2] + j) * eb, eb);
}

} // namespace

void exec_ring(Exec &ex, const Node &n) {
  switch (n.kind) {
  case OpKind::LocalAlloc:
    std::memset(ex.ptr<uint8_t>(n.out[0]), 0, ex.slot(n.out[0]).bytes());
    return;
  case OpKind::AsyncCopy:
    return async_copy(ex, n);
  case OpKind::AsyncCommit:
  case OpKind::AsyncWait:
    return;
  case OpKind::LocalLoad:
    return local_load(ex, n);
  default:
    throw_internal(__FILE__, __LINE__, "not a ring op");
  }
}

} // namespace tilec::interp
