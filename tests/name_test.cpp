// Name, the 16-byte text of node ids, names, op types and port ids (model/name.hpp), and the sizes of the Node and
// the Port it keeps small (bench/README.md: a model may have millions of them).
#include "model/name.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>

#include "model/model.hpp"

using condlint::Name;

TEST(Name, KeepsEveryLengthAndEndsWithANul) {
  for (size_t n : {0u, 1u, 13u, 14u, 15u, 16u, 100u, 5000u}) {
    std::string s(n, 'a');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    const Name x(s);
    EXPECT_EQ(x.size(), n);
    EXPECT_EQ(x.view(), s);
    EXPECT_EQ(x.str(), s);
    EXPECT_EQ(x.c_str()[n], '\0');
    EXPECT_EQ(x.empty(), n == 0);
  }
  const std::string with_nul("a\0b", 3);  // a protobuf string may hold one
  EXPECT_EQ(Name(with_nul).view(), std::string_view(with_nul));
}

TEST(Name, CopiesMovesAndAssignsInPlaceAndOnTheHeap) {
  const std::string long_text(40, 'x');
  Name a("short"), b(long_text);
  Name c = a, d = b;
  EXPECT_EQ(c, "short");
  EXPECT_EQ(d, long_text);
  Name e = std::move(d);
  EXPECT_EQ(e, long_text);
  EXPECT_TRUE(d.empty());  // NOLINT: a moved-from Name is empty
  c = e;
  EXPECT_EQ(c, long_text);
  const Name& same = c;
  c = same;  // self-assignment
  EXPECT_EQ(c, long_text);
  c = std::string_view(c).substr(1, 3);  // from its own bytes
  EXPECT_EQ(c, "xxx");
  e = "now short";
  EXPECT_EQ(e, "now short");
  e += std::string(20, 'y');
  EXPECT_EQ(e.size(), 29u);
  std::swap(a, b);
  EXPECT_EQ(a, long_text);
  EXPECT_EQ(b, "short");
  b.clear();
  EXPECT_TRUE(b.empty());
}

TEST(Name, ComparesAndConcatenatesAsAString) {
  const Name n("Add");
  const std::string s = "Add";
  EXPECT_TRUE(n == "Add" && "Add" == n && n == s && s == n && n == std::string_view("Add") && n == Name("Add"));
  EXPECT_TRUE(n != "If" && n < "B" && Name("A") < n && n > std::string("A"));
  EXPECT_EQ(n + "_1", "Add_1");
  EXPECT_EQ("op " + n, "op Add");
  EXPECT_EQ(s + n, "AddAdd");
  EXPECT_EQ(n + '#', "Add#");
  EXPECT_EQ(n + n, "AddAdd");
  std::string t = n;  // converts where a std::string is asked for
  t += n;
  EXPECT_EQ(t, "AddAdd");
  EXPECT_EQ(n.find('d'), 1u);
  EXPECT_EQ(n.substr(1), "dd");
  EXPECT_TRUE(n.starts_with("Ad"));
  std::map<std::string, int> by_text{{"Add", 1}};
  EXPECT_EQ(by_text.count(n), 1u);
  EXPECT_EQ(std::hash<Name>()(n), std::hash<std::string_view>()("Add"));
  std::set<Name> sorted{"b", "a", Name(std::string(30, 'c'))};
  EXPECT_EQ(sorted.begin()->view(), "a");
  std::unordered_set<Name> names{"x", "x", "y"};
  EXPECT_EQ(names.size(), 2u);
}

TEST(Name, NodesAndPortsKeepTheirSize) {
  // What the memory figures of bench/README.md rest on: a Node of 176 bytes, a Port of 48.
  EXPECT_EQ(sizeof(Name), 16u);
  EXPECT_EQ(sizeof(condlint::Port), 48u);
  EXPECT_EQ(sizeof(condlint::Node), 176u);
  condlint::Node node;
  EXPECT_TRUE(node.attrs.empty() && node.bodies.empty());
  node.bodies.emplace_back("then", 1);
  condlint::Node copy = node;  // a deep copy of the rare lists
  copy.bodies[0].second = 2;
  EXPECT_EQ(node.bodies[0].second, 1);
  node.attrs.set("b", "2");
  node.attrs.set("a", "1");
  ASSERT_NE(node.attrs.find("a"), nullptr);
  EXPECT_EQ(*node.attrs.find("a"), "1");
  EXPECT_EQ(node.attrs.begin()->first, "a");
}
