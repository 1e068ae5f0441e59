// Branch-sensitive inference of the nodes after an If. Where an If's live branches give different proven types or
// shapes, the ONNX loader keeps onnx's union as the If output's type (what one value may be said to be) and, beside
// it, hands this follower each branch's type. The follower runs onnx's per-node inference of every node that reads
// such a value once per branch (or per combination of branches, where several Ifs meet at one node), and passes the
// results on to the nodes after it, until the branches agree again or a budget runs out. A node that onnx's inference
// rejects under one branch is recorded (OnnxData::branch_breaks, rule C014 decides), and that branch is followed no
// further (one root cause, one finding). Unknown never fails: a node of a newer opset, or an input of unknown type,
// gives unknown outputs under that branch.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "loaders/branch_cases.hpp"
#include "loaders/branch_follow.hpp"
#include "model/onnx_data.hpp"

namespace onnx {
class NodeProto;
class TypeProto;
class TensorProto;
}  // namespace onnx

namespace condlint {

class OnnxBranchFollow {
 public:
  // Nodes followed per If (counted for every If whose branches a node is judged under), and combinations of branches
  // judged at one node. Past either, the consumers are judged on the union (as without the follower) and a note says
  // so. The 10,000-If chain (bench/README.md) never reaches them: its branches agree.
  static constexpr int kMaxNodesPerIf = 256;
  static constexpr int kMaxCombinations = 8;
  // Cases inferred in one model, all Ifs together (a few microseconds each): past it, nothing more is followed and
  // the consumers after that point are judged on the union, with the note of the If where it stopped.
  static constexpr int64_t kMaxInferencesPerModel = 200000;

  explicit OnnxBranchFollow(OnnxData& data);
  ~OnnxBranchFollow();
  OnnxBranchFollow(const OnnxBranchFollow&) = delete;
  OnnxBranchFollow& operator=(const OnnxBranchFollow&) = delete;

  // A value of the walk: the node output (graph, node, output) and what the loader knows of it.
  struct Input {
    int graph = -1, node = -1, output = -1;  // graph -1: a graph input or initializer (never a branch fact)
    const onnx::TypeProto* tp = nullptr;     // the loader's type (the union after an If); null: unknown
    const onnx::TensorProto* data = nullptr;
  };
  // One branch output of a finished If: its type (null: unknown or resting on a reported problem) and the value the
  // branch returns (whose own branch facts, from an If inside the branch, compose with this one).
  struct BranchOutput {
    const onnx::TypeProto* tp = nullptr;
    int graph = -1, node = -1, output = -1;
  };

  // One If's branch in a case of branches.
  struct Pick {
    int conditional;
    int branch;
    int output;
    const onnx::TypeProto* type;
    const onnx::TypeProto* other;
    // The If's condition reads values whose types differ between the branches of the Ifs before it, and the case
    // does not decide it: whether values can select this branch in the case is not known.
    bool dependent = false;
  };
  // One case: the branches that select it and the value's type in it.
  struct World {
    std::vector<Pick> picks;  // sorted by conditional
    const onnx::TypeProto* tp = nullptr;
    int steps = 0;
  };
  // A case of the branches before an If and what its condition is under it: the branch that runs (-1: either).
  struct CaseLive {
    std::vector<Pick> picks;
    int live = -1;
  };
  // The branch facts of output k of node n of graph g, or null.
  const std::vector<World>* facts_at(int g, int n, int k) const;
  // The cases that choose one world of every list consistently: their picks and the world each list takes. False
  // when there are more than kMaxCombinations.
  bool cases_of(const std::vector<const std::vector<World>*>& lists,
                std::vector<std::pair<std::vector<Pick>, std::vector<int>>>& out) const;

  // Whether any value carries branch facts: the loader calls node_finished only then.
  bool active() const { return !facts_.empty(); }
  // If number `conditional` (node n of graph g) is finished; `live`: the branch that always runs when its condition
  // is decided, -1 when both may; `condition`: its traced text ("" when not traced): Ifs whose conditions read the
  // same (or one the negation of the other) take the same (the other) branch together. outputs[k][b]: what branch
  // b gives for output k. `cases`: when the condition reads values whose types differ between the branches of
  // earlier Ifs, what it is under each case of those (the If's own branches follow only with their case);
  // `opaque`: it reads such values but their cases were too many to trace (its outputs are then followed no further).
  // `reads`: the data sources its condition reads (condition_reads in the If's scope), asked only when its branches
  // are followed; none: an unknown source.
  void if_finished(int conditional, int g, int n, int live, const std::string& condition,
                   const std::vector<std::array<BranchOutput, 2>>& outputs, const std::vector<CaseLive>& cases = {},
                   bool opaque = false, const std::function<ConditionReads()>& reads = {});
  // A node without subgraphs is finished, its inputs as the loader resolved them. `opset`: its domain's import;
  // `judged`: the linked onnx's definition judges it (a node of a newer opset is not inferred here); `settled`: the
  // loader's own inference failed or an input rests on a reported problem (nothing is said again).
  void node_finished(int g, int n, const onnx::NodeProto& np, const std::vector<Input>& inputs, int64_t opset,
                     bool judged, bool settled);

 private:
  struct Key {
    int graph, node, output;
    bool operator==(const Key& o) const { return graph == o.graph && node == o.node && output == o.output; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()((uint64_t(uint32_t(k.graph)) << 32 | uint32_t(k.node)) * 31 + uint32_t(k.output));
    }
  };
  const onnx::TypeProto* keep(const onnx::TypeProto& t);
  // Adds p to picks (sorted by conditional); false when no input selects both (another branch of the same If, or of
  // an If with the same or the negated condition).
  bool add_pick(std::vector<Pick>& picks, const Pick& p) const;
  // Adds each of `more` to picks as add_pick does, noting their conditionals in *ifs; false when one does not fit.
  bool add_picks(std::vector<Pick>& picks, const std::vector<Pick>& more, std::set<int>* ifs = nullptr) const;
  // What conditional's condition is known to be (untraced when not known).
  const BranchCondition& condition(int conditional) const;
  void limit(int conditional, bool combinations, int64_t limit, int g, int n);
  struct Inference;

  OnnxData& data_;
  std::unordered_map<Key, std::vector<World>, KeyHash> facts_;
  std::unordered_map<std::string, const onnx::TypeProto*> kept_;  // serialized type -> its copy
  std::deque<std::unique_ptr<onnx::TypeProto>> store_;
  std::unordered_map<int, int> visits_;                  // conditional -> nodes followed
  std::unordered_map<int, BranchCondition> conditions_;  // conditional -> its traced text and its negations
  std::unordered_map<int, ConditionReads> reads_;        // conditional -> its condition's data sources
  BranchCases cases_;       // the cases that broke a node, the conditionals past a budget (noted once)
  int64_t inferences_ = 0;  // cases inferred in the whole model
  bool exhausted_ = false;
  std::string
      scratch_[2];  // two types serialized, to compare them  // past kMaxInferencesPerModel: nothing more is followed
  std::unique_ptr<Inference> infer_;
};

}  // namespace condlint
