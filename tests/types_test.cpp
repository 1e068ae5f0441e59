#include <gtest/gtest.h>

#include "model/types.hpp"
#include "model/model.hpp"

using namespace condlint;

TEST(OvShape, ParsesEverySyntax) {
  auto s = parse_ov_shape("1,?,..200,120..");
  ASSERT_TRUE(s);
  ASSERT_EQ(s->dims.size(), 4u);
  EXPECT_TRUE(s->dims[0].is_static());
  EXPECT_TRUE(s->dims[1].is_dynamic());
  EXPECT_EQ(s->dims[2].lo, 0);
  EXPECT_EQ(s->dims[2].hi, 200);
  EXPECT_EQ(s->dims[3].lo, 120);
  EXPECT_LT(s->dims[3].hi, 0);
  EXPECT_EQ(s->str(), "[1,?,..200,120..]");
  auto dyn = parse_ov_shape("...");
  ASSERT_TRUE(dyn);
  EXPECT_FALSE(dyn->rank_known);
  auto scalar = parse_ov_shape("");
  ASSERT_TRUE(scalar);
  EXPECT_TRUE(scalar->rank_known);
  EXPECT_TRUE(scalar->dims.empty());
  EXPECT_TRUE(parse_ov_shape("-1,3")->dims[0].is_dynamic());
  EXPECT_EQ(parse_ov_shape("2..5")->dims[0].str(), "2..5");
}

TEST(OvShape, RejectsBadSyntax) {
  std::string why;
  EXPECT_FALSE(parse_ov_shape("1,...,2", &why));
  EXPECT_NE(why.find("dynamic rank"), std::string::npos);
  EXPECT_FALSE(parse_ov_shape("a,2"));
  EXPECT_FALSE(parse_ov_shape("5..2"));
  EXPECT_FALSE(parse_ov_shape("-2"));
  EXPECT_FALSE(parse_ov_shape("1,,2"));
}

TEST(OvElemType, AcceptsEveryOpenVinoSpelling) {
  EXPECT_EQ(parse_ov_elem_type("f32"), ElemType::F32);
  EXPECT_EQ(parse_ov_elem_type("FP32"), ElemType::F32);
  EXPECT_EQ(parse_ov_elem_type("boolean"), ElemType::Boolean);
  EXPECT_EQ(parse_ov_elem_type("BOOL"), ElemType::Boolean);
  EXPECT_EQ(parse_ov_elem_type("i64"), ElemType::I64);
  EXPECT_EQ(parse_ov_elem_type("I64"), ElemType::I64);
  EXPECT_EQ(parse_ov_elem_type("u1"), ElemType::U1);
  EXPECT_EQ(parse_ov_elem_type("BIN"), ElemType::U1);
  EXPECT_EQ(parse_ov_elem_type("dynamic"), ElemType::Dynamic);
  EXPECT_EQ(parse_ov_elem_type("undefined"), ElemType::Dynamic);
  EXPECT_EQ(parse_ov_elem_type("FP16"), ElemType::F16);
  EXPECT_EQ(parse_ov_elem_type("bf16"), ElemType::BF16);
  EXPECT_FALSE(parse_ov_elem_type("float"));
  EXPECT_FALSE(parse_ov_elem_type(""));
}

TEST(Shapes, CompatibilityAndMerge) {
  const Shape a = *parse_ov_shape("2,4"), b = *parse_ov_shape("2,?"), c = *parse_ov_shape("3,4");
  EXPECT_TRUE(compatible(a, b));
  EXPECT_FALSE(compatible(a, c));
  EXPECT_TRUE(compatible(a, Shape::unknown()));
  EXPECT_FALSE(compatible(a, *parse_ov_shape("2")));
  EXPECT_TRUE(compatible(*parse_ov_shape("1..10"), *parse_ov_shape("5")));
  EXPECT_FALSE(compatible(*parse_ov_shape("1..10"), *parse_ov_shape("20")));
  EXPECT_EQ(merge_branches(a, c).str(), "[?,4]");
  EXPECT_FALSE(merge_branches(a, *parse_ov_shape("2")).rank_known);
}

TEST(Shapes, ElementCountOverflowIsDetected) {
  const Shape big = *parse_ov_shape("4294967296,4294967296,16");
  EXPECT_FALSE(big.element_count());
  EXPECT_EQ(parse_ov_shape("2,3")->element_count(), 6u);
  EXPECT_EQ(parse_ov_shape("")->element_count(), 1u);
}

TEST(Attributes, SortedByNameAndTheLastValueOfANameWins) {
  Attributes a;
  a.set("shape", "1,2");
  a.set("element_type", "f32");
  a.set("zeta", "1");
  a.set("shape", "3");  // given twice: the last value, as a map assignment
  ASSERT_EQ(a.size(), 3u);
  std::vector<std::string> names;
  for (const auto& [k, v] : a) names.push_back(k);
  EXPECT_EQ(names, (std::vector<std::string>{"element_type", "shape", "zeta"}));
  ASSERT_NE(a.find("shape"), nullptr);
  EXPECT_EQ(*a.find("shape"), "3");
  EXPECT_EQ(a.find("shap"), nullptr);
  EXPECT_EQ(a.find("zz"), nullptr);
  EXPECT_EQ(Attributes().find("x"), nullptr);
}

TEST(ValueTypeTable, EqualTypesAndShapesShareOneCopy) {
  ValueTypeTable t;
  const auto f2 = t.get(TypeDesc::tensor(ElemType::F32), Shape::of({Dim::fixed(2)}));
  EXPECT_EQ(f2.get(), t.get(TypeDesc::tensor(ElemType::F32), Shape::of({Dim::fixed(2)})).get());
  EXPECT_NE(f2.get(), t.get(TypeDesc::tensor(ElemType::F32), Shape::of({Dim::fixed(3)})).get());
  EXPECT_NE(f2.get(), t.get(TypeDesc::tensor(ElemType::F64), Shape::of({Dim::fixed(2)})).get());
  EXPECT_NE(f2.get(), t.get(TypeDesc::tensor(ElemType::F32), Shape::unknown()).get());
  // Nested types compare all the way down.
  auto seq = [](ElemType e) {
    TypeDesc s;
    s.kind = TypeDesc::Kind::Sequence;
    s.inner = std::make_shared<const TypeDesc>(TypeDesc::tensor(e));
    return s;
  };
  const auto s32 = t.get(seq(ElemType::F32), Shape::unknown());
  EXPECT_EQ(s32.get(), t.get(seq(ElemType::F32), Shape::unknown()).get());
  EXPECT_NE(s32.get(), t.get(seq(ElemType::I32), Shape::unknown()).get());
  EXPECT_EQ(s32->type.str(), "sequence(f32)");
}

TEST(Port, StatesNothingUntilATypeIsSet) {
  Port p;
  EXPECT_EQ(p.type().kind, TypeDesc::Kind::Unknown);
  EXPECT_FALSE(p.shape().rank_known);
  ValueTypeTable t;
  p.set_type(t.get(TypeDesc::tensor(ElemType::I64), Shape::scalar()));
  EXPECT_EQ(p.type().str(), "i64");
  EXPECT_EQ(p.shape().str(), "[]");
}
