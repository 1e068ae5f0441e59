// Branch-sensitive inference of the nodes after an If (see the header): onnx's per-node inference, run once per case
// of branches on the nodes that read a value whose type differs between an If's branches.
#include "loaders/onnx_branch_consumers.hpp"
#include "loaders/onnx_node_context.hpp"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <stdexcept>
#include <optional>
#include <cstring>

#include "loaders/onnx_util.hpp"

namespace condlint {

namespace {

// "f32[2,1]"; "" for no type.
std::string type_text(const onnx::TypeProto* t) {
  if (!t) return "";
  const TypeDesc d = onnx_type_desc(*t);
  if (d.kind != TypeDesc::Kind::Tensor) return d.str();
  return d.str() + onnx_shape(*t).str();
}

}  // namespace

struct OnnxBranchFollow::Inference {
  struct Schema {
    const onnx::OpSchema* schema = nullptr;
    onnx::InferenceFunction fn;
    const onnx::FunctionProto* body = nullptr;
  };
  std::unordered_map<std::string, Schema> schemas;  // op_type '\0' domain -> its definition at the model's import
  NodeContext ctx;

  const Schema& schema_of(const onnx::NodeProto& np, int64_t opset) {
    const std::string domain = np.domain() == "ai.onnx" ? std::string() : np.domain();
    std::string key = np.op_type() + '\0' + domain;
    auto it = schemas.find(key);
    if (it == schemas.end()) {
      Schema s;
      if (opset > 0 && opset < (int64_t(1) << 30))
        s.schema = onnx::OpSchemaRegistry::Schema(np.op_type(), static_cast<int>(opset), domain);
      if (s.schema && s.schema->has_type_and_shape_inference_function())
        s.fn = s.schema->GetTypeAndShapeInferenceFunction();
      else if (s.schema && s.schema->HasFunction()) s.body = s.schema->GetFunction();
      it = schemas.emplace(std::move(key), std::move(s)).first;
    }
    return it->second;
  }
};

namespace {

// Static dims of a tensor type, nullopt where the rank or a dim is not known.
std::optional<std::vector<int64_t>> static_dims(const onnx::TypeProto* t) {
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return std::nullopt;
  std::vector<int64_t> d;
  for (const auto& x : t->tensor_type().shape().dim()) {
    if (!x.has_dim_value() || x.dim_value() < 0) return std::nullopt;
    d.push_back(x.dim_value());
  }
  return d;
}

int64_t int_attr(const onnx::NodeProto& np, const char* name, int64_t def) {
  for (const auto& a : np.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INT) return a.i();
  return def;
}

// What ONNX Runtime checks at run time and onnx's inference does not (measured by the generated differential,
// docs/differential-c014.md): Gemm's inner dims, and a Reshape to a constant shape that cannot hold the input's
// elements. Throws std::runtime_error with the reason where the static shapes prove the failure; says nothing
// otherwise.
void runtime_shape_check(const onnx::NodeProto& np, const std::vector<const onnx::TypeProto*>& in,
                         const std::vector<const onnx::TensorProto*>& data) {
  if (np.domain() != "" && np.domain() != "ai.onnx") return;
  if (np.op_type() == "Gemm" && in.size() >= 2) {
    const auto a = static_dims(in[0]), b = static_dims(in[1]);
    if (!a || !b || a->size() != 2 || b->size() != 2) return;
    const int64_t ka = int_attr(np, "transA", 0) ? (*a)[0] : (*a)[1];
    const int64_t kb = int_attr(np, "transB", 0) ? (*b)[1] : (*b)[0];
    if (ka != kb)
      throw std::runtime_error("the inner dimensions " + std::to_string(ka) + " and " + std::to_string(kb) +
                               " differ");
    return;
  }
  if (np.op_type() == "Reshape" && in.size() >= 2 && data.size() >= 2 && data[1] && !int_attr(np, "allowzero", 0)) {
    const auto x = static_dims(in[0]);
    const onnx::TensorProto& t = *data[1];
    if (!x || t.data_type() != onnx::TensorProto::INT64 || t.dims_size() != 1 || t.dims(0) > 64) return;
    std::vector<int64_t> target;
    if (t.int64_data_size() == t.dims(0)) target.assign(t.int64_data().begin(), t.int64_data().end());
    else if (t.has_raw_data() && t.raw_data().size() == static_cast<size_t>(t.dims(0)) * 8)
      for (int64_t k = 0; k < t.dims(0); ++k) {
        int64_t v;
        std::memcpy(&v, t.raw_data().data() + k * 8, 8);
        target.push_back(v);
      }
    else return;
    constexpr int64_t kHuge = int64_t(1) << 40;
    int64_t count = 1, known = 1;
    bool minus_one = false;
    for (int64_t d : *x) {
      if (d >= kHuge || count >= kHuge) return;
      count *= d;
    }
    for (size_t k = 0; k < target.size(); ++k) {
      const int64_t v = target[k];
      if (v == -1 && !minus_one) minus_one = true;
      else if (v == 0 && k < x->size()) known *= (*x)[k];  // 0 copies the input's dim
      else if (v > 0 && v < kHuge && known < kHuge) known *= v;
      else return;
    }
    if (!minus_one && known != count)
      throw std::runtime_error(std::to_string(count) + " elements cannot fill a shape of " + std::to_string(known) +
                               " elements");
    if (minus_one && known > 0 && count % known != 0)
      throw std::runtime_error(std::to_string(count) + " elements do not divide into parts of " +
                               std::to_string(known) + " for the -1");
  }
}

}  // namespace

OnnxBranchFollow::OnnxBranchFollow(OnnxData& data) : data_(data), infer_(std::make_unique<Inference>()) {}
OnnxBranchFollow::~OnnxBranchFollow() = default;

const onnx::TypeProto* OnnxBranchFollow::keep(const onnx::TypeProto& t) {
  std::string key;
  t.AppendToString(&key);
  auto [it, fresh] = kept_.try_emplace(std::move(key), nullptr);
  if (fresh) {
    store_.push_back(std::make_unique<onnx::TypeProto>(t));
    it->second = store_.back().get();
  }
  return it->second;
}

const BranchCondition& OnnxBranchFollow::condition(int conditional) const {
  static const BranchCondition untraced;
  const auto it = conditions_.find(conditional);
  return it == conditions_.end() ? untraced : it->second;
}

bool OnnxBranchFollow::add_pick(std::vector<Pick>& picks, const Pick& p) const {
  return BranchCases::add(picks, p, [this](int c) -> const BranchCondition& { return condition(c); });
}

bool OnnxBranchFollow::add_picks(std::vector<Pick>& picks, const std::vector<Pick>& more, std::set<int>* ifs) const {
  return BranchCases::add_all(
      picks, more, [this](int c) -> const BranchCondition& { return condition(c); }, ifs);
}

void OnnxBranchFollow::limit(int conditional, bool combinations, int64_t how_many, int g, int n) {
  if (!cases_.limit(conditional)) return;
  OnnxBranchFollowLimit l;
  l.conditional = conditional;
  l.combinations = combinations;
  l.limit = how_many;
  l.loc.graph = g;
  l.loc.node_index = n;
  data_.branch_follow_limits.push_back(std::move(l));
}

const std::vector<OnnxBranchFollow::World>* OnnxBranchFollow::facts_at(int g, int n, int k) const {
  const auto it = facts_.find(Key{g, n, k});
  return it == facts_.end() ? nullptr : &it->second;
}

bool OnnxBranchFollow::cases_of(const std::vector<const std::vector<World>*>& lists,
                                std::vector<std::pair<std::vector<Pick>, std::vector<int>>>& out) const {
  out.assign(1, {});
  for (const auto* list : lists) {
    std::vector<std::pair<std::vector<Pick>, std::vector<int>>> next;
    for (const auto& [picks, chosen] : out)
      for (size_t w = 0; w < list->size(); ++w) {
        std::vector<Pick> merged = picks;
        if (!add_picks(merged, (*list)[w].picks)) continue;
        std::vector<int> c = chosen;
        c.push_back(static_cast<int>(w));
        next.emplace_back(std::move(merged), std::move(c));
      }
    out = std::move(next);
    if (out.size() > static_cast<size_t>(kMaxCombinations)) return false;
  }
  return true;
}

void OnnxBranchFollow::if_finished(int conditional, int g, int n, int live, const std::string& condition,
                                   const std::vector<std::array<BranchOutput, 2>>& outputs,
                                   const std::vector<CaseLive>& cases, bool opaque,
                                   const std::function<ConditionReads()>& reads) {
  if (!condition.empty()) conditions_[conditional] = BranchCondition::traced(condition);
  if (exhausted_) return;
  if (opaque) {
    limit(conditional, true, kMaxCombinations, g, n);
    return;
  }
  const std::vector<CaseLive> alone{CaseLive{{}, live}};
  const bool dependent = !cases.empty();
  for (size_t k = 0; k < outputs.size(); ++k) {
    // Most Ifs give one type from both branches and hold no If whose branches differ: nothing to follow (checked
    // without copying the types, as every If of a model passes here).
    const BranchOutput& t = outputs[k][0];
    const BranchOutput& e = outputs[k][1];
    auto has_facts = [&](const BranchOutput& o) { return o.graph >= 0 && facts_at(o.graph, o.node, o.output); };
    if (cases.empty() && !has_facts(t) && !has_facts(e)) {
      if (live >= 0 || t.tp == e.tp) continue;
      if (t.tp && e.tp) {
        scratch_[0].clear();
        scratch_[1].clear();
        t.tp->AppendToString(&scratch_[0]);
        e.tp->AppendToString(&scratch_[1]);
        if (scratch_[0] == scratch_[1]) continue;
      }
    }
    // Its branches are followed: what its condition reads, asked now, in the If's scope.
    if (!reads_.count(conditional)) {
      ConditionReads rd;
      if (reads) rd = reads();
      else rd.unknown = true;
      reads_.emplace(conditional, std::move(rd));
    }
    std::vector<World> worlds;
    for (const CaseLive& cl : cases.empty() ? alone : cases) {
      for (int b = 0; b < 2; ++b) {
        if (cl.live >= 0 && b != cl.live) continue;
        const BranchOutput& bo = outputs[k][static_cast<size_t>(b)];
        const BranchOutput& ob = outputs[k][static_cast<size_t>(1 - b)];
        const onnx::TypeProto* tp = bo.tp ? keep(*bo.tp) : nullptr;
        const onnx::TypeProto* other = cl.live < 0 && ob.tp ? keep(*ob.tp) : nullptr;
        // The case's picks and this branch's (none when the case decides the condition: that branch always runs);
        // false when no input selects them together.
        auto picks_for = [&](const onnx::TypeProto* type, std::vector<Pick>& picks) {
          picks = cl.picks;
          if (cl.live >= 0) return true;
          return add_pick(picks, Pick{conditional, b, static_cast<int>(k), type, other, dependent});
        };
        // An If inside the branch whose branches differ: each of its cases is a case of this branch too.
        const std::vector<World>* inner = bo.graph >= 0 ? facts_at(bo.graph, bo.node, bo.output) : nullptr;
        if (inner) {
          for (const World& w : *inner) {
            World nw{{}, w.tp, 0};
            if (!picks_for(w.tp, nw.picks)) continue;
            if (add_picks(nw.picks, w.picks)) worlds.push_back(std::move(nw));
          }
        } else {
          World w{{}, tp, 0};
          if (picks_for(tp, w.picks)) worlds.push_back(std::move(w));
        }
      }
    }
    bool differ = false;
    for (const World& w : worlds) differ = differ || w.tp != worlds.front().tp;
    if (differ && worlds.size() <= static_cast<size_t>(kMaxCombinations))
      facts_[Key{g, n, static_cast<int>(k)}] = std::move(worlds);
    else if (differ) limit(conditional, true, kMaxCombinations, g, n);
  }
}

void OnnxBranchFollow::node_finished(int g, int n, const onnx::NodeProto& np, const std::vector<Input>& inputs,
                                     int64_t opset, bool judged, bool settled) {
  std::vector<const std::vector<World>*> facts(inputs.size(), nullptr);
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].graph < 0) continue;
    const auto it = facts_.find(Key{inputs[i].graph, inputs[i].node, inputs[i].output});
    if (it == facts_.end()) continue;
    facts[i] = &it->second;
    any = true;
  }
  // Nothing differs here; or what the node does with the union is reported already (and unknown never fails).
  if (!any || settled || !judged) return;

  // The cases of branches that meet here: one per consistent choice of a case of every input with branch facts.
  struct Case {
    std::vector<Pick> picks;
    std::vector<const onnx::TypeProto*> types;
    std::vector<const onnx::TensorProto*> data;
    int steps = 0;
  };
  std::vector<Case> cases(1);
  for (const Input& in : inputs) {
    cases[0].types.push_back(in.tp);
    cases[0].data.push_back(in.data);
  }
  std::set<int> conditionals;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!facts[i]) continue;
    std::vector<Case> next;
    for (const Case& c : cases) {
      for (const World& w : *facts[i]) {
        Case m = c;
        if (!add_picks(m.picks, w.picks, &conditionals)) continue;
        m.types[i] = w.tp;
        m.data[i] = nullptr;  // a value that differs between branches is no constant
        m.steps = std::max(m.steps, w.steps + 1);
        next.push_back(std::move(m));
      }
    }
    cases = std::move(next);
    if (cases.size() > static_cast<size_t>(kMaxCombinations)) {
      for (int c : conditionals) limit(c, true, kMaxCombinations, g, n);
      return;
    }
  }
  for (int c : conditionals) {
    if (cases_.limited(c)) return;
    if (++visits_[c] > kMaxNodesPerIf) {
      limit(c, false, kMaxNodesPerIf, g, n);
      return;
    }
  }
  // The whole model's work: past it, no If is followed further.
  inferences_ += static_cast<int64_t>(cases.size());
  if (inferences_ > kMaxInferencesPerModel) {
    exhausted_ = true;
    limit(*conditionals.begin(), false, kMaxInferencesPerModel, g, n);
    data_.branch_follow_limits.back().whole_model = true;
    facts_.clear();
    return;
  }

  Inference& inf = *infer_;
  const Inference::Schema& s = inf.schema_of(np, opset);
  if (!s.schema || (!s.fn && !s.body)) return;
  std::vector<std::vector<const onnx::TypeProto*>> outs;
  std::vector<const Case*> alive;
  for (const Case& c : cases) {
    if (cases_.failed_before(c.picks)) continue;
    std::vector<const onnx::TypeProto*> out(static_cast<size_t>(np.output_size()), nullptr);
    bool known = true;
    for (size_t i = 0; i < c.types.size(); ++i)
      if (!np.input(static_cast<int>(i)).empty() && !c.types[i]) known = false;
    for (const auto* t : c.types)
      if (t && onnx_type_depth(*t) > 2) known = false;  // sequences of tensors at most, as the loader checks
    if (known) {
      NodeContext& ctx = inf.ctx;
      ctx.reset(np);
      ctx.in_types = c.types;
      ctx.in_data = c.data;
      const char* step = "inference";
      bool runtime_check = false;
      try {
        if (s.fn) s.fn(ctx);
        else onnx::shape_inference::InferShapeForFunctionNode(*s.body, onnx::OpSchemaRegistry::Instance(), ctx);
        step = "type check";
        s.schema->CheckInputOutputType(ctx);
        runtime_check = true;
        runtime_shape_check(np, c.types, c.data);
        runtime_check = false;
        for (size_t k = 0; k < ctx.n_out && k < out.size(); ++k)
          if (ctx.out[k]->value_case() != onnx::TypeProto::VALUE_NOT_SET) out[k] = keep(*ctx.out[k]);
      } catch (const std::exception& e) {
        OnnxBranchBreak br;
        for (const Pick& p : c.picks) {
          br.picks.push_back(
              {p.conditional, p.branch, p.output, type_text(p.type), type_text(p.other), p.dependent, {}, true});
          if (const auto rd = reads_.find(p.conditional); rd != reads_.end()) {
            br.picks.back().reads = rd->second.sources;
            br.picks.back().reads_unknown = rd->second.unknown;
          }
        }
        br.graph = g;
        br.node = n;
        br.steps = c.steps;
        for (size_t i = 0; i < c.types.size(); ++i) br.input_types.push_back(type_text(c.types[i]));
        br.error = e.what();
        if (auto cut = br.error.find('\n'); cut != std::string::npos) br.error.resize(cut);
        br.judged_by = runtime_check ? "ONNX Runtime's " + np.op_type() + " shape check"
                                     : "onnx's " + np.op_type() + "-" + std::to_string(s.schema->SinceVersion()) + " " + step;
        br.loc.graph = g;
        br.loc.node_index = n;
        data_.branch_breaks.push_back(std::move(br));
        cases_.failed(c.picks);
        continue;
      }
    }
    outs.push_back(std::move(out));
    alive.push_back(&c);
  }
  if (alive.empty()) return;
  for (int k = 0; k < np.output_size(); ++k) {
    if (np.output(k).empty()) continue;
    bool differ = false;
    for (const auto& o : outs) differ = differ || o[static_cast<size_t>(k)] != outs.front()[static_cast<size_t>(k)];
    if (!differ) continue;  // the branches agree again here
    std::vector<World> worlds;
    for (size_t j = 0; j < alive.size(); ++j)
      worlds.push_back(World{alive[j]->picks, outs[j][static_cast<size_t>(k)], alive[j]->steps});
    facts_[Key{g, n, k}] = std::move(worlds);
  }
}

}  // namespace condlint
