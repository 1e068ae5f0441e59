// A short text that every node and port carries (its id, name and op type, a port's id): 16 bytes, against 32 for a
// std::string. Up to 14 bytes are kept in place, longer texts on the heap; either way NUL-terminated. A model has
// millions of them (bench/README.md, memory of the ONNX chain). It reads as a std::string_view, converts to a
// std::string where one is asked for, and compares and concatenates with either.
#pragma once

#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace condlint {

class Name {
 public:
  Name() noexcept { clear_small(); }
  Name(std::string_view s) { assign(s); }               // NOLINT: implicit on purpose (a drop-in for std::string)
  Name(const std::string& s) { assign(s); }             // NOLINT
  Name(const char* s) { assign(std::string_view(s)); }  // NOLINT
  Name(const Name& o) { assign(o.view()); }
  Name(Name&& o) noexcept {
    std::memcpy(b_, o.b_, sizeof b_);
    o.clear_small();
  }
  Name& operator=(const Name& o) {
    if (this != &o) {
      Name copy(o);
      swap(copy);
    }
    return *this;
  }
  Name& operator=(Name&& o) noexcept {
    if (this != &o) {
      release();
      std::memcpy(b_, o.b_, sizeof b_);
      o.clear_small();
    }
    return *this;
  }
  Name& operator=(std::string_view s) {
    Name copy(s);
    swap(copy);
    return *this;
  }
  Name& operator=(const std::string& s) { return *this = std::string_view(s); }
  Name& operator=(const char* s) { return *this = std::string_view(s); }
  ~Name() { release(); }

  void swap(Name& o) noexcept {
    unsigned char t[sizeof b_];
    std::memcpy(t, b_, sizeof b_);
    std::memcpy(b_, o.b_, sizeof b_);
    std::memcpy(o.b_, t, sizeof b_);
  }

  const char* data() const { return large() ? heap_ptr() : reinterpret_cast<const char*>(b_); }
  const char* c_str() const { return data(); }
  size_t size() const { return large() ? heap_size() : b_[kTag]; }
  bool empty() const { return size() == 0; }
  std::string_view view() const { return {data(), size()}; }
  std::string str() const { return std::string(view()); }
  operator std::string_view() const { return view(); }  // NOLINT: implicit on purpose
  operator std::string() const { return str(); }        // NOLINT: implicit on purpose
  const char* begin() const { return data(); }
  const char* end() const { return data() + size(); }
  void clear() { *this = Name(); }
  Name& operator+=(std::string_view s) { return *this = std::string(view()).append(s); }

  size_t find(std::string_view s, size_t pos = 0) const { return view().find(s, pos); }
  size_t find(char c, size_t pos = 0) const { return view().find(c, pos); }
  std::string substr(size_t pos, size_t n = std::string_view::npos) const { return std::string(view().substr(pos, n)); }
  bool starts_with(std::string_view s) const { return view().starts_with(s); }

  friend bool operator==(const Name& a, const Name& b) { return a.view() == b.view(); }
  friend bool operator==(const Name& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const Name& a, const std::string& b) { return a.view() == std::string_view(b); }
  friend bool operator==(const Name& a, const char* b) { return a.view() == std::string_view(b); }
  friend std::strong_ordering operator<=>(const Name& a, const Name& b) { return a.view() <=> b.view(); }
  friend std::strong_ordering operator<=>(const Name& a, std::string_view b) { return a.view() <=> b; }
  friend std::strong_ordering operator<=>(const Name& a, const std::string& b) {
    return a.view() <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const Name& a, const char* b) { return a.view() <=> std::string_view(b); }

  friend std::string operator+(const Name& a, std::string_view b) { return std::string(a.view()).append(b); }
  friend std::string operator+(const Name& a, const std::string& b) { return std::string(a.view()).append(b); }
  friend std::string operator+(const Name& a, const char* b) { return std::string(a.view()).append(b); }
  friend std::string operator+(const Name& a, char b) { return std::string(a.view()) + b; }
  friend std::string operator+(const Name& a, const Name& b) { return std::string(a.view()).append(b.view()); }
  friend std::string operator+(std::string_view a, const Name& b) { return std::string(a).append(b.view()); }
  friend std::string operator+(const std::string& a, const Name& b) { return std::string(a).append(b.view()); }
  friend std::string operator+(std::string&& a, const Name& b) { return std::move(a.append(b.view())); }
  friend std::string operator+(const char* a, const Name& b) { return std::string(a).append(b.view()); }
  friend std::string operator+(char a, const Name& b) { return std::string(1, a).append(b.view()); }
  friend std::ostream& operator<<(std::ostream& os, const Name& n) { return os << n.view(); }

 private:
  // b_[15] is the size of a text kept in place (0..14, NUL after it), or kLarge: then b_ holds a pointer to a
  // NUL-terminated heap copy and its 32-bit size.
  static constexpr size_t kTag = 15;
  static constexpr unsigned char kLarge = 0xff;
  bool large() const { return b_[kTag] == kLarge; }
  const char* heap_ptr() const {
    const char* p;
    std::memcpy(&p, b_, sizeof p);
    return p;
  }
  size_t heap_size() const {
    uint32_t n;
    std::memcpy(&n, b_ + sizeof(char*), sizeof n);
    return n;
  }
  void clear_small() { std::memset(b_, 0, sizeof b_); }
  void release() {
    if (large()) delete[] heap_ptr();
  }
  void assign(std::string_view s);  // on a Name that holds nothing (name.cpp)

  alignas(8) unsigned char b_[16];
};

}  // namespace condlint

template <>
struct std::hash<condlint::Name> {
  size_t operator()(const condlint::Name& n) const noexcept { return std::hash<std::string_view>()(n.view()); }
};
