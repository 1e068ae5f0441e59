// ONNX loader, the Conditional view: per If, its condition (traced by loaders/onnx_condition), outputs and branch
// outputs for the generic rules, and the branch types handed to the follower of the nodes after it
// (loaders/onnx_branch_consumers).
#include "loaders/onnx_builder.hpp"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>

namespace condlint::onnx_build {

CondValue OnnxBuilder::cond_value(const std::string& nm, const OnnxBranchFollow::World* world) const {
  CondValue cv;
  const int id = lookup(nm);
  if (id < 0) return cv;
  const Value& v = values_[id];
  cv.kind = v.src == Value::Input         ? CondValue::Kind::GraphInput
            : v.src == Value::Initializer ? CondValue::Kind::Initializer
                                          : CondValue::Kind::NodeOutput;
  if (v.src == Value::NodeOutput) {
    cv.producer = &gi_[v.graph].proto->node(v.node);
    if (const int f = functions_ ? functions_->callee(*cv.producer) : -1; f >= 0) cv.callee = &functions_->function(f);
  }
  cv.data = v.data;
  if (world) cv.shape = world->tp ? onnx_shape(*world->tp) : Shape::unknown();
  else if (!v.tainted) cv.shape = v.shape();
  return cv;
}

void OnnxBuilder::build_view(size_t index) {
  const IfInfo& ii = ifs_[index];
  if (view_built_.size() <= index) view_built_.resize(index + 1);
  const Node& node = model_->graphs[ii.graph].nodes[ii.node];
  ConditionalView view;
  view.graph = ii.graph;
  view.node = ii.node;
  view.name = "If " + qname(node.name);
  view.loc = node.loc;
  if (ii.has_cond_name && ii.cond_value >= 0) {
    const Value& v = values_[ii.cond_value];
    std::string label = v.src == Value::Input ? "graph input " + qname(v.name)
                        : v.src == Value::Initializer
                            ? "initializer " + qname(v.name)
                            : "output " + qname(v.name) + " of " + node_label(v.graph, v.node);
    view.has_condition = true;
    view.condition = desc_of(ii.cond_value, label);
    view.condition.loc = node.loc;
  }
  const onnx::NodeProto& np = gi_[ii.graph].proto->node(ii.node);
  for (int j = 0; j < np.output_size(); ++j) {
    ValueDesc d;
    d.present = true;
    d.label = "If output " + std::to_string(j) + " " + qname(np.output(j));
    d.loc = node.loc;
    if (const onnx::TypeProto* t = np.output(j).empty() ? nullptr : declared_type(ii.graph, np.output(j))) {
      d.type = onnx_type_desc(*t);
      d.shape = onnx_shape(*t);
    }
    view.outputs.push_back(std::move(d));
  }
  for (int b = 0; b < 2; ++b) {
    BranchView& br = view.branch[b];
    br.name = b == 0 ? "then" : "else";
    br.graph = ii.branch[b];
    if (br.graph < 0) continue;
    const GraphInfo& info = gi_[br.graph];
    const auto& outs = info.proto->output();
    for (int k = 0; k < outs.size(); ++k) {
      OutputBinding ob;
      ob.output_index = k;
      ob.loc = loc(br.graph);
      const onnx::TypeProto* tp = nullptr;
      const bool disputed = info.output_values[k] >= 0 && values_[info.output_values[k]].tainted;
      if (disputed) tp = nullptr;  // already reported where it starts (ONNX007, ONNX008, ONNX018)
      else tp = branch_output_type(br.graph, k, nullptr);  // what the declaration and inference give together
      ob.value.present = true;
      ob.value.label = (b == 0 ? "then_branch output " : "else_branch output ") + qname(outs[k].name());
      ob.value.loc = loc(br.graph);
      if (tp) {
        ob.value.type = onnx_type_desc(*tp);
        ob.value.shape = onnx_shape(*tp);
        data_->branch_output_types.push_back({static_cast<int>(index), b, k, onnx_type_string(*tp)});
      }
      br.outputs.push_back(std::move(ob));
    }
  }
  view.provenance = ii.provenance;
  if (model_->conditionals.size() <= index) model_->conditionals.resize(index + 1);
  model_->conditionals[index] = std::move(view);
  view_built_[index] = 1;
}

ValueDesc OnnxBuilder::desc_of(int value_id, const std::string& label) const {
  ValueDesc d;
  d.label = label;
  if (value_id < 0) return d;
  const Value& v = values_[value_id];
  d.present = true;
  // A type that rests on a reported problem is not compared again by the generic rules (one root cause, one finding).
  if (!v.tainted) {
    d.type = v.type();
    d.shape = v.shape();
  }
  d.loc = loc(v.graph, v.src == Value::NodeOutput ? v.node : -1);
  return d;
}

void OnnxBuilder::build_views() {
  const Judge if_judge = onnx_opset_ > 0 ? judge_at("If", "", onnx_opset_) : Judge{};
  if (if_judge.kind == Judge::Facts && if_judge.facts->outputs.count > 0) {
    const std::string_view param = schema_facts::output(*if_judge.facts, 0).type_str;
    for (int c = 0; c < if_judge.facts->constraints.count; ++c) {
      const auto& tc = schema_facts::constraint(*if_judge.facts, c);
      if (param != tc.name) continue;
      const std::string_view all = schema_facts::allowed_types(tc);
      for (size_t at = 0; at <= all.size();) {
        const size_t end = std::min(all.find(';', at), all.size());
        data_->if_allowed_types.emplace(all.substr(at, end - at));
        at = end + 1;
      }
    }
  }
  const onnx::OpSchema* schema = onnx_opset_ > 0 && if_judge.kind == Judge::Linked
                                     ? onnx::OpSchemaRegistry::Schema("If", static_cast<int>(onnx_opset_), "")
                                     : nullptr;
  if (schema && !schema->outputs().empty()) {
    const std::string& param = schema->outputs()[0].GetTypeStr();
    for (const auto& c : schema->typeConstraintParams())
      if (c.type_param_str == param)
        data_->if_allowed_types.insert(c.allowed_type_strs.begin(), c.allowed_type_strs.end());
  }
  // An If the walk never finished (none today) gets its view here; the views are in the order the Ifs were read.
  view_built_.resize(ifs_.size());
  for (size_t i = 0; i < ifs_.size(); ++i)
    if (!view_built_[i]) build_view(i);
  std::stable_sort(
      data_->branch_output_types.begin(), data_->branch_output_types.end(),
      [](const OnnxBranchOutputType& x, const OnnxBranchOutputType& y) { return x.conditional < y.conditional; });
}

void OnnxBuilder::follow_branches(int g, int n, const onnx::NodeProto& np, bool settled) {
  using Follow = OnnxBranchFollow;
  if (const auto at = if_at_.find(int64_t(g) << 32 | n); at != if_at_.end()) {
    const IfInfo& ii = ifs_[at->second];
    if (ii.branch[0] < 0 || ii.branch[1] < 0) return;
    std::vector<std::array<Follow::BranchOutput, 2>> outs(static_cast<size_t>(np.output_size()));
    for (int k = 0; k < np.output_size(); ++k)
      for (int b = 0; b < 2; ++b) {
        Follow::BranchOutput& o = outs[static_cast<size_t>(k)][static_cast<size_t>(b)];
        bool t = false;
        const onnx::TypeProto* tp = branch_output_type(ii.branch[b], k, &t);
        o.tp = t || !tp || onnx_type_depth(*tp) > kMaxInferTypeDepth ? nullptr : tp;
        const auto& ov = gi_[ii.branch[b]].output_values;
        if (k < static_cast<int>(ov.size()) && ov[k] >= 0 && values_[ov[k]].src == Value::NodeOutput) {
          o.graph = values_[ov[k]].graph;
          o.node = values_[ov[k]].node;
          o.output = values_[ov[k]].output;
        }
      }
    const int live = ii.provenance.decided == 1 ? 0 : ii.provenance.decided == 0 ? 1 : -1;
    // A condition that reads values whose types differ between earlier branches (a rank guard on an earlier guard's
    // output) is traced again under each case of those branches: a case may decide it.
    std::vector<Follow::CaseLive> cases;
    bool opaque = false;
    if (follow_->active() && live < 0 && ii.has_cond_name && ii.cond_value >= 0) {
      auto as_traced = [this](const std::string& nm, const Follow::World* w) { return cond_value(nm, w); };
      std::vector<std::string> names;
      std::vector<const std::vector<Follow::World>*> lists;
      (void)trace_condition(np.input(0), [&](const std::string& nm) {
        const int id = lookup(nm);
        if (id >= 0 && values_[id].src == Value::NodeOutput)
          if (const auto* f = follow_->facts_at(values_[id].graph, values_[id].node, values_[id].output)) {
            names.push_back(nm);
            lists.push_back(f);
          }
        return as_traced(nm, nullptr);
      });
      std::vector<std::pair<std::vector<Follow::Pick>, std::vector<int>>> found;
      if (!lists.empty() && !follow_->cases_of(lists, found)) opaque = true;
      for (size_t c = 0; !lists.empty() && !opaque && c < found.size(); ++c) {
        const ConditionProvenance p = trace_condition(np.input(0), [&](const std::string& nm) {
          for (size_t j = 0; j < names.size(); ++j)
            if (names[j] == nm) return as_traced(nm, &(*lists[j])[static_cast<size_t>(found[c].second[j])]);
          return as_traced(nm, nullptr);
        });
        cases.push_back({found[c].first, p.decided == 1 ? 0 : p.decided == 0 ? 1 : -1});
      }
    }
    // The data sources the condition reads, in the If's scope: the main graph's inputs; a subgraph's or a
    // function's input, an undefined name or one defined twice is not traced (it may be any source).
    auto reads = [this, g, n]() {
      auto node_leaf = [this](int gg, int nn) {
        const Node& node = model_->graphs[gg].nodes[nn];
        if (!node.bodies.empty()) return ReadLeaf::unknown();  // its subgraphs may read any visible value
        if (node.op == "Constant" && node.version.str() == "ai.onnx") return ReadLeaf::constant();
        return ReadLeaf::through();
      };
      auto input_leaf = [this](int gg, int nn, int i) {
        const Node& node = model_->graphs[gg].nodes[nn];
        // An input the node does not have (an If written without its condition: ONNX003) may be any value.
        if (i < 0 || static_cast<size_t>(i) >= node.inputs.size()) return ReadLeaf::unknown();
        const std::string name = node.inputs[static_cast<size_t>(i)].id.str();
        if (name.empty()) return ReadLeaf::constant();  // an omitted optional input
        const int id = lookup(name);
        if (id < 0 || values_[id].hides >= 0) return ReadLeaf::unknown();
        const Value& v = values_[id];
        if (v.src == Value::Initializer) return ReadLeaf::constant();
        if (v.src == Value::Input && v.graph == 0) return ReadLeaf::source(qname(name));
        return ReadLeaf::unknown();
      };
      return condition_reads(*model_, g, n, 0, node_leaf, input_leaf);
    };
    follow_->if_finished(at->second, g, n, live, ii.provenance.traced ? ii.provenance.text : std::string(), outs, cases,
                         opaque, reads);
    return;
  }
  if (!follow_->active() || !model_->graphs[g].nodes[n].bodies.empty()) return;
  std::vector<Follow::Input> inputs(static_cast<size_t>(np.input_size()));
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) continue;
    const int id = input_id(g, n, np, i);
    if (id < 0) return;  // an undefined name: ONNX009's
    const Value& v = values_[id];
    Follow::Input& in = inputs[static_cast<size_t>(i)];
    if (v.src == Value::NodeOutput) {
      in.graph = v.graph;
      in.node = v.node;
      in.output = v.output;
    }
    in.tp = v.tainted ? nullptr : v.tp;
    in.data = v.data;
  }
  const std::string domain = np.domain() == "ai.onnx" ? std::string() : np.domain();
  const auto op = data_->opsets.find(domain);
  follow_->node_finished(g, n, np, inputs, op == data_->opsets.end() ? -1 : op->second, judge(np).kind == Judge::Linked,
                         settled);
}

}  // namespace condlint::onnx_build
