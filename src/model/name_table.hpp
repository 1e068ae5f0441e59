// A string_view -> int hash table for the loaders' hot name lookups (ONNX's scope chain: one lookup per node
// input, one insert and one erase per defined value). Open addressing with linear probing and backward-shift
// deletion in one flat array: no allocation per entry, no tombstones, one cache line per probe in the common
// case — std::unordered_map spends most of a 10,000-If lint in its node allocations and pointer chasing.
// Keys are views: the bytes they point to must outlive the table (the loaders keep the parsed file).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace condlint {

class NameTable {
 public:
  explicit NameTable(size_t expected = 16) { rehash(capacity_for(expected)); }

  void reserve(size_t n) {
    if (capacity_for(n) > slots_.size()) rehash(capacity_for(n));
  }
  size_t size() const { return size_; }

  // The value stored for `key`, or -1.
  int find(std::string_view key) const {
    const uint64_t h = hash(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value < 0) return -1;
      if (s.hash == h && s.key == key) return s.value;
    }
  }

  // Inserts key -> value when absent. Returns the value now stored (the old one when present) and whether it
  // was inserted.
  std::pair<int, bool> emplace(std::string_view key, int value) {
    Slot& s = claim(key);
    if (s.value < 0) {
      s.value = value;
      return {value, true};
    }
    return {s.value, false};
  }

  // Inserts or overwrites. `value` must be >= 0.
  void assign(std::string_view key, int value) { claim(key).value = value; }

  void erase(std::string_view key) {
    const uint64_t h = hash(key);
    size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].value < 0) return;
      if (slots_[i].hash == h && slots_[i].key == key) break;
    }
    // Backward shift: pull later members of the probe run into the hole so that lookups need no tombstones.
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      Slot& s = slots_[j];
      if (s.value < 0) break;
      const size_t home = s.hash & mask_;
      // s may move to i when i lies cyclically in [home, j).
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = s;
        i = j;
      }
    }
    slots_[i].value = -1;
    --size_;
  }

  static uint64_t hash(std::string_view s) {
    // 8 bytes at a time, multiply-xorshift mixing; names are short, so the tail dominates.
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    const char* p = s.data();
    size_t n = s.size();
    while (n >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
      p += 8;
      n -= 8;
    }
    uint64_t w = 0;
    if (n) std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94D049BB133111EBull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
  }

 private:
  struct Slot {
    std::string_view key;
    uint64_t hash = 0;
    int value = -1;  // -1: empty
  };
  // The slot of `key`: its own when present, else a fresh one holding the key with value -1 (counted; the
  // caller sets the value at once).
  Slot& claim(std::string_view key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    const uint64_t h = hash(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.value < 0) {
        s.key = key;
        s.hash = h;
        ++size_;
        return s;
      }
      if (s.hash == h && s.key == key) return s;
    }
  }
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c * 3 < n * 4 + 4) c *= 2;
    return c;
  }
  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.value < 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].value >= 0) i = (i + 1) & mask_;
      slots_[i] = s;
      ++size_;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace condlint
