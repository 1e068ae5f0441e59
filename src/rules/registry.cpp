// The table of contents: every rule condlint has, in ID order, and the rules with a fixer (rules/fix.hpp). Adding a rule = one file in this
// folder + one line here + one page rules/<ID>.md. IDs are stable: never renumber or reuse one.
#include "rules/engine.hpp"
#include "rules/fix.hpp"

#define CONDLINT_RULES(X)                                                                                             \
  X(C001)                                                                                                             \
  X(C002)                                                                                                             \
  X(C003)                                                                                                             \
  X(C004)                                                                                                             \
  X(C005) X(C006) X(C007) X(C008) X(C009) X(C010) X(C011) X(C012) X(C013) X(C014) X(IR001) X(IR002) X(IR003) X(IR004) \
      X(IR005) X(IR006) X(IR007) X(IR008) X(IR009) X(IR010) X(IR011) X(IR012) X(IR013) X(IR014) X(IR015) X(IR016)     \
          X(IR017) X(IR018) X(IR019) X(IR020) X(IR021) X(ONNX001) X(ONNX002) X(ONNX003) X(ONNX004) X(ONNX005) X(ONNX006) X(ONNX007)     \
              X(ONNX008) X(ONNX009) X(ONNX010) X(ONNX011) X(ONNX012) X(ONNX013) X(ONNX014) X(ONNX015) X(ONNX016)      \
                  X(ONNX017) X(ONNX018) X(NN001) X(NN002) X(NN003) X(NN004) X(NN005) X(NN006) X(NN007) X(NN008)       \
                      X(NN009) X(NN010) X(NN011) X(NN012) X(NN013) X(NN014) X(NN015) X(NN016) X(NN017) X(NN018)       \
                          X(NN019) X(NN020) X(NN021) X(NN022) X(NN023) X(NN024) X(NN025) X(NN026) X(NN027) X(EX001)   \
                              X(EX002) X(EX003) X(EX004) X(ORT001) X(ORT002) X(OV001) X(OV002) X(OV003) X(TRT001) X(TRT002)    \
                                  X(FL001) X(TFL001) X(TFL002) X(TFL003) X(TFL004) X(TFL005) X(TFL006) X(TFL007) X(TFL008) X(TFL009) X(TFL010)

namespace condlint {

#define DECLARE(ID) const RuleDef& rule_##ID();
CONDLINT_RULES(DECLARE)
#undef DECLARE

const std::vector<const RuleDef*>& all_rules() {
#define LIST(ID) &rule_##ID(),
  static const std::vector<const RuleDef*> rules{CONDLINT_RULES(LIST)};
#undef LIST
  return rules;
}

// The rules whose files define a fixer (CONDLINT_FIX): one line here each.
#define CONDLINT_FIXERS(X) X(C002) X(C007) X(C010) X(C012) X(IR009) X(IR011) X(IR020) X(ONNX011)

#define DECLARE_FIX(ID) const FixerDef& fixer_##ID();
CONDLINT_FIXERS(DECLARE_FIX)
#undef DECLARE_FIX

const std::vector<const FixerDef*>& all_fixers() {
#define LIST_FIX(ID) &fixer_##ID(),
  static const std::vector<const FixerDef*> fixers{CONDLINT_FIXERS(LIST_FIX)};
#undef LIST_FIX
  return fixers;
}

const FixerDef* find_fixer(std::string_view rule) {
  for (const FixerDef* f : all_fixers())
    if (f->rule == rule) return f;
  return nullptr;
}

}  // namespace condlint
