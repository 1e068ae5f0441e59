// The generated table (onnx_schema_table.inc) and the lookups over it.
#include "model/onnx_schema_facts.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace condlint::schema_facts {

namespace {

#include "model/onnx_schema_table.inc"

std::string_view canonical(std::string_view domain) { return domain == "ai.onnx" ? std::string_view() : domain; }

}  // namespace

std::string_view onnx_version() { return kOnnxVersion; }

int ir_version() { return kIrVersion; }

int newest_opset(std::string_view domain) {
  domain = canonical(domain);
  for (const auto& d : kDomains)
    if (domain == d.domain) return d.last;
  return 0;
}

const OpFacts* select(std::string_view domain, std::string_view op, int64_t version) {
  domain = canonical(domain);
  // kOps is sorted by (domain, name, since_version): the last entry not above `version` among this op's.
  auto key = [](const OpFacts& o) { return std::make_tuple(std::string_view(o.domain), std::string_view(o.name)); };
  const auto want = std::make_tuple(domain, op);
  auto it = std::upper_bound(std::begin(kOps), std::end(kOps), std::make_tuple(domain, op, version),
                             [&](const auto& v, const OpFacts& o) {
                               return std::make_tuple(std::get<0>(v), std::get<1>(v), std::get<2>(v)) <
                                      std::make_tuple(std::string_view(o.domain), std::string_view(o.name),
                                                      static_cast<int64_t>(o.since_version));
                             });
  if (it == std::begin(kOps)) return nullptr;
  --it;
  return key(*it) == want ? &*it : nullptr;
}

const FormalFacts& input(const OpFacts& op, int k) { return kFormals[op.inputs.begin + k]; }
const FormalFacts& output(const OpFacts& op, int k) { return kFormals[op.outputs.begin + k]; }
const AttributeFacts& attribute(const OpFacts& op, int k) { return kAttributes[op.attributes.begin + k]; }
const ConstraintFacts& constraint(const OpFacts& op, int k) { return kConstraints[op.constraints.begin + k]; }
std::string_view allowed_types(const ConstraintFacts& c) { return kTypeLists[c.types]; }

}  // namespace condlint::schema_facts
