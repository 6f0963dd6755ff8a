// SHA-256 (FIPS 180-4), for cache keys: the on-disk kernel cache names entries by the
// hash of everything that determines the compiled code, so the hash must be strong.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tilec {

class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  Sha256 &update(const void *data, size_t size);
  Sha256 &update(std::string_view s) { return update(s.data(), s.size()); }
  // Finishes the hash; the object must not be updated or finished again.
  Digest finish();
  std::string finish_hex() { return to_hex(finish()); }

  static std::string to_hex(const Digest &d);

private:
  void compress(const uint8_t *block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
  bool finished_ = false;
};

std::string sha256_hex(std::string_view data);

// Hashes a sequence of named fields unambiguously: each field is written as its name, its
// length and its bytes, so ("ab", "c") and ("a", "bc") give different keys.
class KeyHasher {
public:
  KeyHasher &add(std::string_view name, std::string_view value);
  KeyHasher &add(std::string_view name, int64_t value);
  std::string hex() { return sha.finish_hex(); }

private:
  void field(std::string_view s);
  Sha256 sha;
};

} // namespace tilec
