// A content hash of bytes and files: what the result cache keys entries by and what the loaders compute of the
// exact bytes they read (so an entry vouches for the bytes that were judged, never for the file read again later).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace condlint::io {

// A 128-bit content hash (not cryptographic: it tells changed bytes from unchanged ones).
class Hasher {
 public:
  void update(std::string_view bytes);
  std::string hex() const;  // 32 hex digits

 private:
  uint64_t a_ = 0x243f6a8885a308d3ull, b_ = 0x13198a2e03707344ull, length_ = 0;
  unsigned char tail_[16] = {};
  size_t tail_size_ = 0;
  void block(const unsigned char* p);
};

std::string hash_bytes(std::string_view bytes);
// The hash of a regular file's bytes, read in pieces; nullopt when it is not a readable regular file.
std::optional<std::string> hash_file(const std::string& path);

}  // namespace condlint::io
