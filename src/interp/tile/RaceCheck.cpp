#include "interp/tile/RaceCheck.h"

#include <cstdlib>
#include <new>
#include <type_traits>

namespace tilec::interp {

void RaceShadow::Free::operator()(Page *p) const { std::free(p); }

RaceShadow::Page &RaceShadow::page(uint64_t number) {
  if (number != last_number_) {
    std::unique_ptr<Page, Free> &p = pages_[number];
    if (!p) { // all-zero bytes are a valid Page: no program, op 0
      static_assert(std::is_trivially_copyable_v<Page>);
      p.reset(static_cast<Page *>(std::calloc(1, sizeof(Page))));
      if (!p)
        throw std::bad_alloc();
    }
    last_ = p.get();
    last_number_ = number;
  }
  return *last_;
}

uint32_t RaceShadow::op_index(const Node &n) {
  if (&n == last_op_)
    return last_op_id_;
  last_op_ = &n;
  auto [it, inserted] = op_ids_.try_emplace(&n, static_cast<uint32_t>(ops_.size()));
  if (inserted)
    ops_.push_back(&n);
  last_op_id_ = it->second;
  return it->second;
}

RaceShadow::Conflict RaceShadow::access(uint64_t addr, uint32_t bytes, bool write,
                                        uint32_t program, const Node &n) {
  uint32_t me = program + 1, op = op_index(n);
  Conflict c;
  auto report = [&](const Who &w, bool wrote) {
    if (!c.found) {
      c = {true, wrote, w.program - 1, ops_[w.op]};
    }
  };
  for (uint64_t a = addr; a < addr + bytes; ++a) {
    Byte &b = page(a >> kPageBits).bytes[static_cast<size_t>(a & (kPage - 1))];
    if (b.writer.program != 0 && b.writer.program != me)
      report(b.writer, true);
    if (write) {
      if (b.reader.program != 0 && b.reader.program != me)
        report(b.reader, false);
      else if (b.reader2.program != 0 && b.reader2.program != me)
        report(b.reader2, false);
      b.writer = {me, op};
    } else if (b.reader.program == 0) {
      b.reader = {me, op};
    } else if (b.reader.program != me && b.reader2.program == 0) {
      b.reader2 = {me, op};
    }
    if (c.found)
      return c;
  }
  return c;
}

} // namespace tilec::interp
