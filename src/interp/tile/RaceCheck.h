// The race half of the CPU executor's sanitizer (TILEC_SANITIZE=race; the address half, the
// bounds checks, is always on). Within one launch it reports two programs that write the
// same byte, or one that writes a byte another reads, with no atomic operation between them:
// on a GPU the programs run concurrently and such a kernel's result depends on their order.
// Atomics are exempt (they are the synchronisation). The launch then runs its programs on
// one thread, so the shadow needs no locks.
//
// Shadow memory: for each byte touched, the last program that stored it and up to two
// distinct programs that loaded it (two suffice: any reader other than a later writer is
// then known), each with the op that did it. Pages of 4 KiB are allocated as touched.
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

private:
  static constexpr uint64_t kPageBits = 12;
  static constexpr uint64_t kPage = uint64_t{1} << kPageBits;
  struct Who {
    uint32_t program = 0; // flat program id + 1; 0: nobody
    uint32_t op = 0;      // index into ops_
  };
  struct Byte { // one byte's accesses, together: one cache line holds 2-3 bytes' worth
    Who writer, reader, reader2;
  };
  struct Page {
    std::array<Byte, kPage> bytes;
  };
  Page &page(uint64_t number);
  uint32_t op_index(const Node &n);

  struct Free {
    void operator()(Page *p) const;
  };
  // calloc'd: the system hands out zeroed memory without a separate clearing pass
  std::unordered_map<uint64_t, std::unique_ptr<Page, Free>> pages_;
  uint64_t last_number_ = UINT64_MAX;
  Page *last_ = nullptr;
  std::vector<const Node *> ops_;
  std::unordered_map<const Node *, uint32_t> op_ids_;
  const Node *last_op_ = nullptr; // consecutive accesses come from one op
  uint32_t last_op_id_ = 0;
};

} // namespace tilec::interp
