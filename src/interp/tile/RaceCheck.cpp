#include "interp/tile/RaceCheck.h"

#include <algorithm>
#include <bit>

namespace tilec::interp {

RaceShadow::Page &RaceShadow::page_slow(uint64_t number) {
  std::unique_ptr<Page> &p = pages_[number];
  if (!p)
    p = std::make_unique<Page>(); // no records yet: the first access sets the granule
  last_ = p.get();
  last_number_ = number;
  return *last_;
}

// Splits every record of `p` into granules of 1 << shift bytes (each part keeps the whole
// record's history: the accesses covered all of its bytes).
void RaceShadow::refine(Page &p, int shift) {
  int ratio = 1 << (p.shift - shift);
  std::vector<Record> finer(p.records.size() * static_cast<size_t>(ratio));
  for (size_t i = 0; i < finer.size(); ++i)
    finer[i] = p.records[i / static_cast<size_t>(ratio)];
  p.records = std::move(finer);
  p.shift = shift;
}

void RaceShadow::atomic(uint32_t program, bool acquire, bool release) {
  uint32_t me = program + 1;
  enter(me);
  acquired_ = acquired_ || acquire;
  if (release && current_epoch_ < UINT16_MAX)
    releases_[me] = ++current_epoch_;
}

bool RaceShadow::ordered(const Who &w) const {
  if (!acquired_)
    return false;
  auto it = releases_.find(w.program);
  return it != releases_.end() && it->second > w.epoch; // released after the access
}

uint32_t RaceShadow::op_index_slow(const Node &n) {
  last_op_ = &n;
  auto [it, inserted] = op_ids_.try_emplace(&n, static_cast<uint32_t>(ops_.size()));
  if (inserted)
    ops_.push_back(&n);
  last_op_id_ = it->second;
  return it->second;
}

RaceShadow::Conflict RaceShadow::access(uint64_t addr, uint32_t bytes, bool write, uint32_t program,
                                        const Node &n) {
  uint32_t me = program + 1;
  uint16_t op = static_cast<uint16_t>(std::min<uint32_t>(op_index(n), UINT16_MAX));
  enter(me);
  Page &p = page(addr >> kPageBits);
  uint64_t off = addr & (kPage - 1);
  // The largest granule (up to 8 bytes) this access covers whole: its alignment and size.
  int fit = std::min(3, std::countr_zero(off | bytes | 8));
  if (p.records.empty()) {
    p.shift = fit;
    p.records.resize(kPage >> fit);
  } else if (fit < p.shift) {
    refine(p, fit);
  }
  Conflict c;
  auto report = [&](const Who &w, bool wrote) {
    if (!c.found)
      c = {true, wrote, w.program - 1, ops_[w.op]};
  };
  size_t first = off >> p.shift, last = (off + bytes - 1) >> p.shift;
  for (size_t i = first; i <= last; ++i) {
    Record &r = p.records[i];
    auto other = [&](const Who &w) { return w.program != 0 && w.program != me && !ordered(w); };
    if (other(r.writer))
      report(r.writer, true);
    Who who{me, op, current_epoch_};
    if (write) {
      if (other(r.reader))
        report(r.reader, false);
      else if (other(r.reader2))
        report(r.reader2, false);
      r.writer = who;
    } else if (r.reader.program == 0 || r.reader.program == me) {
      r.reader = who;
    } else if (r.reader2.program == 0 || r.reader2.program == me) {
      r.reader2 = who;
    }
    if (c.found)
      return c;
  }
  return c;
}

} // namespace tilec::interp
