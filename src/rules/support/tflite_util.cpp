#include "rules/support/tflite_util.hpp"

namespace condlint::tflr {

const TfliteData* raw_data(const Model& m) { return m.format == Format::TFLITE ? m.tflite.get() : nullptr; }

const TfliteData* data(const Model& m) {
  const TfliteData* d = raw_data(m);
  return d && d->valid() ? d : nullptr;
}

std::string op_label(const TfliteData& d, size_t g, size_t k) {
  const TflOperator& op = d.subgraphs[g].ops[k];
  const std::string name = op.op == tfl::kCustom && !op.custom.empty() ? op.custom : tfl::op_name(op.op);
  return name + " operator " + std::to_string(k) + " of " + d.subgraph_label(g);
}

SourceLocation op_loc(const TfliteData& d, size_t g, size_t k) {
  SourceLocation l;
  l.offset = d.subgraphs[g].ops[k].offset;
  l.graph = static_cast<int>(g);
  l.node_index = static_cast<int>(k);
  return l;
}

SourceLocation subgraph_loc(const TfliteData& d, size_t g) {
  SourceLocation l;
  l.offset = d.subgraphs[g].offset;
  l.graph = static_cast<int>(g);
  return l;
}

SourceLocation tensor_loc(const TfliteData& d, size_t g, int32_t t) {
  SourceLocation l = subgraph_loc(d, g);
  if (const TflTensor* x = d.tensor(g, t)) l.offset = x->offset;
  return l;
}

bool written_by_op(const TfliteData& d, size_t g, int32_t t) {
  if (g >= d.subgraphs.size()) return false;
  for (const TflOperator& op : d.subgraphs[g].ops)
    for (int32_t o : op.outputs)
      if (o == t) return true;
  return false;
}

std::vector<Recursion> recursions(const TfliteData& d) {
  std::vector<Recursion> out;
  const size_t n = d.subgraphs.size();
  // Depth-first with an explicit stack (a file may chain thousands of subgraphs): a reference to a subgraph on the
  // current path closes a cycle. The main subgraph is never a target (TFL002 reports a reference to it).
  enum : char { kNew, kOnPath, kDone };
  std::vector<char> state(n, kNew);
  struct Frame {
    size_t g, k, ref;
  };
  for (size_t root = 0; root < n; ++root) {
    if (state[root] != kNew) continue;
    std::vector<Frame> stack{{root, 0, 0}};
    state[root] = kOnPath;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& ops = d.subgraphs[f.g].ops;
      if (f.k >= ops.size()) {
        state[f.g] = kDone;
        stack.pop_back();
        continue;
      }
      if (f.ref >= ops[f.k].refs.size()) {
        ++f.k;
        f.ref = 0;
        continue;
      }
      const size_t ref = f.ref++;
      const int32_t target = ops[f.k].refs[ref].second;
      if (target <= 0 || static_cast<size_t>(target) >= n) continue;
      const size_t t = static_cast<size_t>(target);
      if (state[t] == kOnPath) {
        Recursion r{f.g, f.k, ref, {}};
        bool in = false;
        for (const Frame& s : stack) {
          in |= s.g == t;
          if (in) r.cycle.push_back(s.g);
        }
        out.push_back(std::move(r));
      } else if (state[t] == kNew) {
        state[t] = kOnPath;
        stack.push_back({t, 0, 0});
      }
    }
  }
  return out;
}

bool references_sound(const TfliteData& d) {
  for (const TflSubgraph& sg : d.subgraphs)
    for (const TflOperator& op : sg.ops) {
      if ((op.op == tfl::kIf || op.op == tfl::kWhile || op.op == tfl::kCallOnce) && !op.has_refs) return false;
      for (const auto& ref : op.refs)
        if (!runnable_subgraph(d, ref.second)) return false;
    }
  return recursions(d).empty();
}

bool runnable_subgraph(const TfliteData& d, int32_t index) {
  return index > 0 && static_cast<size_t>(index) < d.subgraphs.size();
}

}  // namespace condlint::tflr
