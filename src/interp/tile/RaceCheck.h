// The race half of the CPU executor's sanitizer (TILEC_SANITIZE=race; the address half, the
// bounds checks, is always on). Within one launch it reports two programs that write the
// same byte, or one that writes a byte another reads, with no atomic operation between them:
// on a GPU the programs run concurrently and such a kernel's result depends on their order.
// Atomics are exempt (they are the synchronisation). The launch then runs its programs on
// one thread, so the shadow needs no locks.
//
// Shadow memory: for each byte touched, the last program that stored it and up to two
// distinct programs that loaded it (two suffice: any reader other than a later writer is
// then known), each with the op that did it. Pages of 4 KiB of memory are shadowed as
// touched, in granules: a page starts with the granule of its first access (an aligned
// fp32 access: 4 bytes share one record) and is refined, records copied, when a smaller or
// misaligned access comes, so the checks stay exact per byte while an array accessed by
// whole elements costs a record per element.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tilec::interp {

struct Node;

class RaceShadow {
public:
  // A conflict found by an access: the other program's flat id and op, or none.
  struct Conflict {
    bool found = false;
    bool other_wrote = false; // the other access was a store (else a load)
    uint32_t program = 0;     // flat program id of the other access
    const Node *op = nullptr;
  };

  // Program `program` (flat id) reads or writes `bytes` bytes at `addr` by op `n`.
  Conflict access(uint64_t addr, uint32_t bytes, bool write, uint32_t program, const Node &n);
  // Program `program` performs an atomic with these semantics (relaxed ones order nothing).
  void atomic(uint32_t program, bool acquire, bool release);

private:
  static constexpr uint64_t kPageBits = 12;
  static constexpr uint64_t kPage = uint64_t{1} << kPageBits;
  struct Who {
    uint32_t program = 0; // flat program id + 1; 0: nobody
    uint16_t op = 0;      // index into ops_ (saturated: messages then name the last op)
    uint16_t epoch = 0;   // the program's release count when it made the access
  };
  // Whether `w`, another program's access, is ordered before the current program's.
  bool ordered(const Who &w) const;
  // Program `me` (id + 1) runs now; programs run one after another, so a new one starts
  // afresh. (This and page / op_index run per element: their common case is inline.)
  void enter(uint32_t me) {
    if (me != current_) {
      current_ = me;
      acquired_ = false;
      current_epoch_ = 0;
    }
  }
  struct Record { // one granule's accesses
    Who writer, reader, reader2;
  };
  struct Page {
    int shift = 0;               // log2 of the granule, 0..3
    std::vector<Record> records; // kPage >> shift of them
  };
  Page &page(uint64_t number) { return number == last_number_ ? *last_ : page_slow(number); }
  Page &page_slow(uint64_t number);
  static void refine(Page &p, int shift);
  uint32_t op_index(const Node &n) { return &n == last_op_ ? last_op_id_ : op_index_slow(n); }
  uint32_t op_index_slow(const Node &n);

  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
  uint64_t last_number_ = UINT64_MAX;
  Page *last_ = nullptr;
  std::vector<const Node *> ops_;
  std::unordered_map<const Node *, uint32_t> op_ids_;
  const Node *last_op_ = nullptr; // consecutive accesses come from one op
  uint32_t last_op_id_ = 0;
  std::unordered_map<uint32_t, uint16_t> releases_; // program + 1 -> release atomics so far
  uint32_t current_ = 0;                            // the program now running, + 1
  bool acquired_ = false;                           // it has performed an acquire atomic
  uint16_t current_epoch_ = 0;                      // its release count
};

} // namespace tilec::interp
