#include "exec/synthesize.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "exec/interpreter.hpp"
#include "exec/random_inputs.hpp"

namespace condlint::exec {

namespace {

constexpr int64_t kMaxValueElements = 16;           // inputs whose value a candidate sets whole
constexpr int64_t kMaxCandidateElements = 1 << 24;  // largest input a shape candidate makes

std::string num(double d) {
  if (std::fabs(d) < 9e15 && d == std::floor(d)) return std::to_string(static_cast<long long>(d));
  std::ostringstream ss;
  ss << d;
  return ss.str();
}

// Appends `v` unless it is already there (candidate order is search order).
template <typename T>
void add_unique(std::vector<T>& out, T v) {
  if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
}

struct Candidate {
  std::string what;
  std::vector<Value> inputs;
};

// A symbolic dim of the declared input types: every (input, axis) that names it, and the size the base data gives.
struct Symbol {
  std::string name;
  std::vector<std::pair<size_t, size_t>> uses;
  int64_t current = -1;
};

// A tensor like `base` (its element type and value range) of shape `dims`.
Tensor resized_like(const Tensor& base, const Dims& dims, std::mt19937_64& rng) {
  if (is_float(base.dt)) {
    double lo = -1, hi = 1;
    bool any = false;
    for (double v : base.f)
      if (std::isfinite(v)) {
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
      }
    return random_tensor(base.dt, dims, lo, hi, rng);
  }
  Tensor t(base.dt, dims);
  const int64_t n = t.numel();
  const size_t have = is_string(base.dt) ? base.s.size() : base.i.size();
  for (int64_t k = 0; k < n && have > 0; ++k) {
    const size_t from = std::uniform_int_distribution<size_t>(0, have - 1)(rng);
    if (is_string(base.dt)) t.s[static_cast<size_t>(k)] = base.s[from];
    else t.i[static_cast<size_t>(k)] = base.i[from];
  }
  return t;
}

class Search {
 public:
  Search(const CandidateRun& run, const std::set<BranchKey>& wanted, const SynthesisOptions& opt, SynthesisResult& res)
      : run_(run), wanted_(wanted), opt_(opt), res_(res), start_(std::chrono::steady_clock::now()) {}

  bool done() const {
    return reached_.size() >= wanted_.size() || res_.runs >= opt_.max_runs || opt_.limits.deadline.passed() ||
           std::chrono::steady_clock::now() - start_ > std::chrono::milliseconds(opt_.max_ms);
  }

  void try_candidate(Candidate c) {
    if (done()) return;
    ++res_.runs;
    Trace trace;
    std::string error;
    try {
      run_(c.inputs, trace);
    } catch (const ExecError& e) {
      // An op the executor lacks or a limit it hit says nothing of the model: the candidate neither reaches nor
      // fails the branch, which pinning then runs and reports as such.
      if (e.kind != ErrKind::Invalid) return;
      error = e.what();
    } catch (const std::exception&) {
      return;
    }
    std::set<BranchKey> fresh;
    for (const auto& [path, site] : trace.ifs)
      for (bool b : site.ran)
        if (wanted_.count({path, b}) && !reached_.count({path, b})) fresh.insert({path, b});
    if (fresh.empty()) return;
    if (!error.empty()) {
      std::set<BranchKey> first;
      for (const auto& k : fresh)
        if (res_.failed.emplace(k, c.what + ": " + error).second) first.insert(k);
      if (!first.empty()) res_.failed_sets.push_back({std::move(c.what), std::move(c.inputs), std::move(first)});
      return;
    }
    for (const auto& k : fresh) {
      reached_.insert(k);
      res_.failed.erase(k);
    }
    res_.sets.push_back({std::move(c.what), std::move(c.inputs), std::move(fresh)});
  }

 private:
  const CandidateRun& run_;
  const std::set<BranchKey>& wanted_;
  const SynthesisOptions& opt_;
  SynthesisResult& res_;
  std::chrono::steady_clock::time_point start_;
  std::set<BranchKey> reached_;
};

}  // namespace

std::set<BranchKey> wanted_branches(const std::set<std::string>& seen, const std::set<BranchKey>& taken,
                                    const BranchPolicy& policy) {
  std::set<BranchKey> out;
  for (const auto& path : seen)
    for (bool b : {true, false})
      if (!taken.count({path, b}) && !policy.dead(path, b)) out.insert({path, b});
  return out;
}

std::vector<InputDecl> input_decls(const onnx::ModelProto& model) {
  return input_decls(Interpreter(model, RunOptions{}));
}

SynthesisResult synthesize_inputs(const onnx::ModelProto& model, const BranchPolicy& policy,
                                  const std::vector<Value>& base, const std::set<BranchKey>& wanted,
                                  const SynthesisOptions& opt) {
  std::vector<InputDecl> decls;
  try {
    decls = input_decls(model);
  } catch (const std::exception&) {
    return {};
  }
  const CandidateRun run = [&](const std::vector<Value>& inputs, Trace& trace) {
    RunOptions ro;
    ro.limits = opt.limits;
    Interpreter ip(model, ro);
    try {
      ip.run(inputs);
    } catch (...) {
      trace = ip.trace;
      throw;
    }
    trace = ip.trace;
  };
  return synthesize_inputs(decls, run, policy, base, wanted, opt);
}

SynthesisResult synthesize_inputs(const std::vector<InputDecl>& ins, const CandidateRun& run,
                                  const BranchPolicy& policy, const std::vector<Value>& base,
                                  const std::set<BranchKey>& wanted, const SynthesisOptions& opt) {
  SynthesisResult res;
  if (wanted.empty() || opt.max_runs <= 0) return res;
  if (ins.size() != base.size()) return res;
  for (const auto& v : base)
    if (!v.is_tensor()) return res;

  // What the conditions of the wanted Ifs read, and the constants they compare with.
  std::vector<std::string> value_inputs;
  std::vector<double> value_constants, shape_constants;
  bool on_shapes = false;
  for (const auto& [path, b] : wanted) {
    const ConditionProvenance* p = policy.provenance(path);
    if (!p || !p->traced) continue;
    if (p->on_values)
      for (const auto& name : p->tested)
        for (size_t k = 0; k < ins.size(); ++k)
          if (ins[k].name == name && base[k].t->numel() <= kMaxValueElements && !is_string(base[k].t->dt)) {
            add_unique(value_inputs, name);
            for (double c : p->constants) add_unique(value_constants, c);
          }
    if (p->on_shapes) {
      on_shapes = true;
      for (double c : p->constants) add_unique(shape_constants, c);
    }
  }

  Search search(run, wanted, opt, res);
  // Values: each small input the condition reads set whole to each constant, one either side of it, 0 and 1.
  for (const auto& name : value_inputs) {
    size_t k = 0;
    while (ins[k].name != name) ++k;
    const Tensor& t = *base[k].t;
    std::vector<double> values;
    if (t.dt == DT::Bool) values = {0, 1};
    else {
      for (double c : value_constants)
        for (double d : {0.0, 1.0, -1.0}) add_unique(values, c + d);
      add_unique(values, 0.0);
      add_unique(values, 1.0);
    }
    const auto range = opt.fixed.ranges.find(name);
    for (double v : values) {
      if (search.done()) break;
      if (range != opt.fixed.ranges.end() && (v < range->second.first || v > range->second.second)) continue;
      Tensor x(t.dt, t.shape);
      bool same = true;
      for (int64_t e = 0; e < x.numel(); ++e) {
        if (is_float(t.dt)) x.f[e] = v;
        else x.i[e] = double_to_int(t.dt, v);
        same = same && (is_float(t.dt) ? t.f[e] == x.f[e] : t.i[e] == x.i[e]);
      }
      normalize(x);
      if (same) continue;
      Candidate c{"'" + name + "' = " + (t.dt == DT::Bool ? std::string(v != 0 ? "true" : "false") : num(v)), base};
      c.inputs[k] = Value::tensor(std::move(x));
      search.try_candidate(std::move(c));
    }
  }

  // Shapes: each dim the declared types leave open (a named one changes in every input that names it) set to the
  // sizes the condition compares with, one either side of them, and a few near the data's size.
  if (on_shapes) {
    std::vector<Symbol> symbols;
    for (size_t k = 0; k < ins.size(); ++k) {
      if (!ins[k].has_shape) continue;
      const auto& dims = ins[k].dims;
      if (dims.size() != base[k].t->rank()) continue;
      for (size_t a = 0; a < dims.size(); ++a) {
        if (dims[a]) continue;
        const std::string name = a < ins[k].dim_names.size() && !ins[k].dim_names[a].empty()
                                     ? ins[k].dim_names[a]
                                     : "dim " + std::to_string(a) + " of '" + ins[k].name + "'";
        auto it = std::find_if(symbols.begin(), symbols.end(), [&](const Symbol& s) { return s.name == name; });
        if (it == symbols.end()) {
          symbols.push_back({name, {}, base[k].t->shape[static_cast<size_t>(a)]});
          it = symbols.end() - 1;
        }
        it->uses.push_back({k, static_cast<size_t>(a)});
      }
    }
    std::mt19937_64 rng(opt.seed);
    for (const Symbol& s : symbols) {
      bool fixed = false;
      for (const auto& use : s.uses) fixed = fixed || opt.fixed.shapes.count(ins[use.first].name) > 0;
      if (fixed) continue;
      std::vector<int64_t> sizes;
      for (double c : shape_constants)
        for (double d : {0.0, 1.0, -1.0})
          if (c + d >= 1 && c + d <= 1e9) add_unique(sizes, static_cast<int64_t>(c + d));
      for (int64_t v : {int64_t{1}, int64_t{2}, int64_t{3}, s.current + 1, s.current - 1, s.current * 2, s.current / 2})
        if (v >= 1) add_unique(sizes, v);
      for (int64_t v : sizes) {
        if (search.done()) break;
        if (v == s.current) continue;
        Candidate c{"", base};
        std::string shapes;
        bool fits = true;
        for (const auto& [k, axis] : s.uses) {
          Dims d = base[k].t->shape;
          if (axis < d.size()) d[axis] = v;
          int64_t n = 1;
          for (int64_t x : d) n = x > 0 && n > kMaxCandidateElements / x ? kMaxCandidateElements + 1 : n * x;
          if (n > kMaxCandidateElements) fits = false;
          if (!fits) break;
          try {
            c.inputs[k] = Value::tensor(resized_like(*base[k].t, d, rng));
          } catch (const ExecError&) {
            fits = false;
            break;
          }
          shapes += (shapes.empty() ? "" : ", ") + ("'" + ins[k].name + "' " + dims_str(d));
        }
        if (!fits) continue;
        c.what = (s.name.rfind("dim ", 0) == 0 ? s.name : "dim '" + s.name + "'") + " = " + std::to_string(v) + " (" +
                 shapes + ")";
        search.try_candidate(std::move(c));
      }
    }
  }
  // A failed candidate stays only for the branches no later candidate reached with a run that completed.
  for (auto& f : res.failed_sets)
    for (auto k = f.reaches.begin(); k != f.reaches.end();) k = res.failed.count(*k) ? std::next(k) : f.reaches.erase(k);
  res.failed_sets.erase(std::remove_if(res.failed_sets.begin(), res.failed_sets.end(),
                                       [](const SynthesizedSet& f) { return f.reaches.empty(); }),
                        res.failed_sets.end());
  return res;
}

}  // namespace condlint::exec
