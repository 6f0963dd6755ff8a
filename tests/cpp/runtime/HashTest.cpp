#include <gtest/gtest.h>

#include <string>

#include "support/Hash.h"

using namespace tilec;

TEST(Sha256, StandardVectors) {
  // FIPS 180-4 examples.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  // 55, 56, 63 and 64 bytes straddle the one/two padding-block boundary.
  EXPECT_EQ(sha256_hex(std::string(55, 'x')),
            Sha256().update(std::string(50, 'x')).update(std::string(5, 'x')).finish_hex());
  EXPECT_NE(sha256_hex(std::string(56, 'x')), sha256_hex(std::string(55, 'x')));
  EXPECT_EQ(sha256_hex(std::string(64, 'x')),
            Sha256().update(std::string(63, 'x')).update("x").finish_hex());
}

TEST(Sha256, IncrementalEqualsOneShot) {
  std::string data;
  for (int rep = 0; rep < 5; ++rep)
    for (int i = 0; i < 256; ++i)
      data += static_cast<char>(i);
  const char *expected = "d414b085826eb06778483ba35564dc849e643359f69ed9747878ba6e54985bed";
  EXPECT_EQ(sha256_hex(data), expected);
  for (size_t chunk : {1u, 3u, 63u, 64u, 65u, 200u}) {
    Sha256 h;
    for (size_t i = 0; i < data.size(); i += chunk)
      h.update(std::string_view(data).substr(i, chunk));
    EXPECT_EQ(h.finish_hex(), expected) << "chunk " << chunk;
  }
}

TEST(KeyHasher, StableAndUnambiguous) {
  // The layout (8-byte little-endian length, then the bytes, for name and value) is fixed:
  // keys must not change between builds or the disk cache silently empties.
  EXPECT_EQ(KeyHasher().add("name", "add_kernel").add("arch", "sm_90a").hex(),
            "1bd5ce58cef41adc54aced5a24e4f5e5ed4052e7a19cb74a140b36f01b1875bf");
  EXPECT_NE(KeyHasher().add("a", "bc").hex(), KeyHasher().add("ab", "c").hex());
  EXPECT_NE(KeyHasher().add("x", "1").add("y", "2").hex(),
            KeyHasher().add("y", "2").add("x", "1").hex());
  EXPECT_EQ(KeyHasher().add("n", 42).hex(), KeyHasher().add("n", "42").hex());
}
