// device_print and device_assert.
//
// device_print writes Triton's GPU format, one line per element, row-major:
//   pid (<x>, <y>, <z>) idx (<i0>, <i1>, ...)<prefix>[(operand <k>) ]<value>
// each index right-aligned to ceil(log10(dim)) characters; a scalar prints "idx ()";
// with no operands the line is "pid (x, y, z)<prefix>". Floats print as %f, integers as
// %i / %u (%lli / %llu for 64 bits), pointers as 0x<hex>, and with `hex` every value
// prints its bits as 0x followed by (bits / 4) hex digits.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"
#include "support/PrintPrefix.h"

namespace tilec::interp {

namespace {

void append_value(std::string &out, int32_t slot, Exec &ex, int64_t i, bool hex) {
  const SlotInfo &s = ex.slot(slot);
  char buf[64];
  if (hex || s.type->is_ptr()) {
    uint64_t bits = 0;
    const uint8_t *p =
        ex.ptr<uint8_t>(slot) + static_cast<size_t>(i) * static_cast<size_t>(s.elem_bytes);
    std::memcpy(&bits, p, static_cast<size_t>(s.elem_bytes)); // little-endian host
    if (s.type->is_ptr())
      std::snprintf(buf, sizeof buf, "0x%" PRIx64, bits);
    else
      std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, ir::bits(s.type->elem) / 4, bits);
    out += buf;
    return;
  }
  dispatch_dtype(s.key, [&](auto d) {
    using D = decltype(d);
    auto v = D::ld(ex.ptr<typename D::S>(slot)[i]);
    if constexpr (D::is_float)
      std::snprintf(buf, sizeof buf, "%f", static_cast<double>(v));
    else if constexpr (D::is_signed)
      std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<int64_t>(v));
    else
      std::snprintf(buf, sizeof buf, "%" PRIu64, static_cast<uint64_t>(v));
  });
  out += buf;
}

} // namespace

void exec_print(Exec &ex, const Node &n) {
  if (!ex.out)
    return;
  std::string &out = *ex.out;
  std::string prefix = munge_print_prefix(n.op->str_attr("prefix"), !n.in.empty());
  bool hex = n.op->int_attr("hex", 0) != 0;
  char pid[96];
  std::snprintf(pid, sizeof pid, "pid (%" PRId64 ", %" PRId64 ", %" PRId64 ")", ex.pid[0],
                ex.pid[1], ex.pid[2]);
  if (n.in.empty()) {
    out += pid;
    out += prefix;
    out += '\n';
    return;
  }
  for (size_t k = 0; k < n.in.size(); ++k) {
    int32_t s = n.in[k];
    const std::vector<int64_t> &shape = ex.slot(s).type->shape;
    std::vector<int> widths;
    for (int64_t d : shape)
      widths.push_back(d > 0 ? static_cast<int>(std::ceil(std::log10(static_cast<double>(d)))) : 0);
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t i = 0; i < ex.slot(s).numel; ++i) {
      out += pid;
      out += " idx (";
      for (size_t d = 0; d < idx.size(); ++d) {
        char b[32];
        std::snprintf(b, sizeof b, "%s%*" PRId64, d ? ", " : "", widths[d], idx[d]);
        out += b;
      }
      out += ")";
      out += prefix;
      if (n.in.size() > 1)
        out += "(operand " + std::to_string(k) + ") ";
      append_value(out, s, ex, i, hex);
      out += '\n';
      for (size_t d = idx.size(); d-- > 0;) { // next row-major index
        if (++idx[d] < shape[d])
          break;
        idx[d] = 0;
      }
    }
  }
}

void exec_assert(Exec &ex, const Node &n) {
  int32_t s = n.in[0];
  dispatch_dtype(ex.slot(s).key, [&](auto d) {
    using D = decltype(d);
    const auto *c = ex.ptr<typename D::S>(s);
    for (int64_t i = 0; i < ex.slot(s).numel; ++i)
      if (D::ld(c[i]) == 0)
        ex.fail(n,
                "device assertion failed: " + n.op->str_attr("message") + ex.element_suffix(s, i));
  });
}

} // namespace tilec::interp
