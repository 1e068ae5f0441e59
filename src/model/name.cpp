#include "model/name.hpp"

#include <stdexcept>

namespace condlint {

void Name::assign(std::string_view s) {
  clear_small();
  if (s.size() <= kTag - 1) {
    if (!s.empty()) std::memcpy(b_, s.data(), s.size());
    b_[kTag] = static_cast<unsigned char>(s.size());
    return;
  }
  if (s.size() > UINT32_MAX) throw std::length_error("a name longer than 4 GiB");
  char* p = new char[s.size() + 1];
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  const auto n = static_cast<uint32_t>(s.size());
  std::memcpy(b_, &p, sizeof p);
  std::memcpy(b_ + sizeof p, &n, sizeof n);
  b_[kTag] = kLarge;
}

}  // namespace condlint
