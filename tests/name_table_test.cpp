// NameTable (src/model/name_table.hpp) against std::unordered_map under random inserts, overwrites and erases,
// including erase runs that exercise the backward shift across the wrap-around of the slot array.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/name_table.hpp"

TEST(NameTable, MatchesUnorderedMapUnderRandomOperations) {
  std::vector<std::string> keys;
  for (int i = 0; i < 600; ++i)
    keys.push_back(i % 7 == 0 ? "a_rather_long_value_name_" + std::to_string(i) : "v" + std::to_string(i));
  keys.push_back("");
  std::mt19937 rng(7);
  condlint::NameTable t;
  std::unordered_map<std::string_view, int> ref;
  for (int step = 0; step < 200000; ++step) {
    const std::string_view k = keys[rng() % keys.size()];
    const int op = static_cast<int>(rng() % 4);
    const int v = static_cast<int>(rng() % 1000);
    if (op == 0) {
      auto [got, fresh] = t.emplace(k, v);
      auto [it, rfresh] = ref.emplace(k, v);
      ASSERT_EQ(fresh, rfresh);
      ASSERT_EQ(got, it->second);
    } else if (op == 1) {
      t.assign(k, v);
      ref[k] = v;
    } else if (op == 2) {
      t.erase(k);
      ref.erase(k);
    } else {
      auto it = ref.find(k);
      ASSERT_EQ(t.find(k), it == ref.end() ? -1 : it->second) << "key " << k << " at step " << step;
    }
    ASSERT_EQ(t.size(), ref.size());
  }
  for (const auto& k : keys) {
    auto it = ref.find(k);
    EXPECT_EQ(t.find(k), it == ref.end() ? -1 : it->second);
  }
}

TEST(NameTable, SmallTableWrapsAround) {
  // Few slots, many collisions: every key hashed into a 16-slot table, erased in insertion order.
  condlint::NameTable t(4);
  std::vector<std::string> keys;
  for (int i = 0; i < 11; ++i) keys.push_back("k" + std::to_string(i));
  for (int i = 0; i < 11; ++i) t.assign(keys[i], i);
  for (int i = 0; i < 11; ++i) {
    t.erase(keys[i]);
    for (int j = i + 1; j < 11; ++j) ASSERT_EQ(t.find(keys[j]), j);
    ASSERT_EQ(t.find(keys[i]), -1);
  }
  EXPECT_EQ(t.size(), 0u);
}
