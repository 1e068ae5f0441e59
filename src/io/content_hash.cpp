#include "io/content_hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace condlint::io {

namespace {

constexpr uint64_t kK1 = 0xa0761d6478bd642full, kK2 = 0xe7037ed1a0b428dbull, kK3 = 0x8ebc6af09c88c6e3ull,
                   kK4 = 0x589965cc75374cc3ull;
uint64_t mum(uint64_t x, uint64_t y) {
  const __uint128_t r = static_cast<__uint128_t>(x) * y;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

uint64_t load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

void Hasher::block(const unsigned char* p) {
  const uint64_t w0 = load64(p), w1 = load64(p + 8);
  a_ = mum(a_ ^ w0 ^ kK1, w1 ^ kK2) + b_;
  b_ = mum(b_ ^ w1 ^ kK3, w0 ^ kK4) ^ a_;
}

void Hasher::update(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  length_ += n;
  if (tail_size_ > 0) {
    const size_t take = std::min(n, sizeof tail_ - tail_size_);
    std::memcpy(tail_ + tail_size_, p, take);
    tail_size_ += take;
    p += take;
    n -= take;
    if (tail_size_ < sizeof tail_) return;
    block(tail_);
    tail_size_ = 0;
  }
  for (; n >= 16; p += 16, n -= 16) block(p);
  std::memcpy(tail_, p, n);
  tail_size_ = n;
}

std::string Hasher::hex() const {
  unsigned char last[16] = {};
  std::memcpy(last, tail_, tail_size_);
  uint64_t a = a_, b = b_;
  a = mum(a ^ load64(last) ^ length_, kK2 ^ 0x9e3779b97f4a7c15ull) + b;
  b = mum(b ^ load64(last + 8) ^ kK1, a ^ length_ ^ kK3);
  a = mum(a ^ kK4, b ^ kK1);
  b = mum(b ^ kK2, a ^ kK3);
  std::string out(32, '0');  // a then b, 16 lower-case hex digits each
  for (int i = 15; i >= 0; --i, a >>= 4, b >>= 4) {
    out[static_cast<size_t>(i)] = "0123456789abcdef"[a & 0xf];
    out[static_cast<size_t>(16 + i)] = "0123456789abcdef"[b & 0xf];
  }
  return out;
}

std::string hash_bytes(std::string_view bytes) {
  Hasher h;
  h.update(bytes);
  return h.hex();
}

std::optional<std::string> hash_file(const std::string& path) {
  // Non-blocking and checked after opening: a FIFO (or one swapped in for the file) never stops the run.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  Hasher h;
  std::vector<char> buf(ok ? 1 << 20 : 0);
  while (ok) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    h.update(std::string_view(buf.data(), static_cast<size_t>(n)));
  }
  ::close(fd);
  if (!ok) return std::nullopt;
  return h.hex();
}

}  // namespace condlint::io
