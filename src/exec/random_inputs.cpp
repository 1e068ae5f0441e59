#include "exec/random_inputs.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>

#include "exec/interpreter.hpp"

namespace condlint::exec {

Tensor random_tensor(DT dt, const Dims& dims, double lo, double hi, std::mt19937_64& rng) {
  Tensor t(dt, dims);
  const int64_t n = t.numel();
  for (int64_t k = 0; k < n; ++k) {
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    if (is_float(dt)) t.f[k] = lo + u * (hi - lo);
    else if (is_string(dt)) t.s[k] = "s" + std::to_string(static_cast<int64_t>(lo + u * (hi - lo + 1)));
    else {
      const auto l = static_cast<int64_t>(std::ceil(lo)), h = static_cast<int64_t>(std::floor(hi));
      t.i[k] = h < l ? l : l + static_cast<int64_t>(u * static_cast<double>(h - l + 1));
      if (t.i[k] > h && h >= l) t.i[k] = h;
    }
  }
  normalize(t);
  return t;
}

std::vector<InputDecl> input_decls(const Interpreter& probe) {
  std::vector<InputDecl> out;
  for (const auto* vi : probe.data_inputs()) {
    InputDecl d;
    d.name = vi->name();
    d.tensor = vi->has_type() && vi->type().has_tensor_type();
    if (d.tensor && dt_known(vi->type().tensor_type().elem_type()))
      d.dt = static_cast<DT>(vi->type().tensor_type().elem_type());
    if (d.tensor && vi->type().tensor_type().has_shape()) {
      d.has_shape = true;
      for (const auto& dim : vi->type().tensor_type().shape().dim()) {
        d.dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? std::optional<int64_t>(dim.dim_value())
                                                                     : std::nullopt);
        d.dim_names.push_back(dim.has_dim_param() ? dim.dim_param() : std::string());
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string random_inputs(const Interpreter& probe, const RandomInputs& spec, std::mt19937_64& rng,
                          std::vector<Value>& out) {
  return random_inputs(input_decls(probe), spec, rng, out);
}

std::string shapes_from_data(const std::vector<InputDecl>& decls, const std::vector<DataSet>& sets, RandomInputs& spec) {
  for (const DataSet& ds : sets) {
    if (!ds.problem(/*outputs_too=*/false).empty() || ds.inputs.size() < decls.size()) continue;
    std::vector<Dims> shapes;
    try {
      for (size_t k = 0; k < decls.size(); ++k) {
        const Value v = read_golden(ds.inputs[k]);
        shapes.push_back(v.is_tensor() ? v.t->shape : Dims{});
      }
    } catch (const std::exception&) {
      continue;  // a set whose inputs do not read is no evidence
    }
    // The symbols the user's shapes fix, then those this set's shapes give.
    std::map<std::string, int64_t> symbols;
    auto fits = [&](const InputDecl& d, const Dims& shape, bool commit) {
      if (!d.tensor || !d.has_shape || shape.size() != d.dims.size()) return false;
      std::map<std::string, int64_t> more;
      for (size_t j = 0; j < shape.size(); ++j) {
        if (d.dims[j] && *d.dims[j] != shape[j]) return false;
        if (j < d.dim_names.size() && !d.dim_names[j].empty() && !d.dims[j]) {
          const auto it = symbols.find(d.dim_names[j]);
          if (it != symbols.end() && it->second != shape[j]) return false;
          more[d.dim_names[j]] = shape[j];
        }
      }
      if (commit) symbols.insert(more.begin(), more.end());
      return true;
    };
    for (size_t k = 0; k < decls.size(); ++k)
      if (const auto it = spec.shapes.find(decls[k].name); it != spec.shapes.end()) fits(decls[k], it->second, true);
    bool used = false;
    for (size_t k = 0; k < decls.size(); ++k) {
      const InputDecl& d = decls[k];
      bool open = false;
      for (const auto& dim : d.dims) open |= !dim;
      if (!open || spec.shapes.count(d.name) || !fits(d, shapes[k], false)) continue;
      fits(d, shapes[k], true);
      spec.shapes[d.name] = shapes[k];
      used = true;
    }
    return used ? ds.dir.filename().string() : "";
  }
  return "";
}

std::string shapes_label(const std::vector<InputDecl>& decls, const std::vector<Value>& values) {
  std::string out;
  for (size_t k = 0; k < decls.size() && k < values.size(); ++k) {
    out += (out.empty() ? "'" : ", '") + decls[k].name + "'";
    if (values[k].is_tensor()) out += " " + dims_str(values[k].t->shape);
  }
  return out;
}

std::string random_sets(const std::vector<InputDecl>& decls, const RandomInputs& spec, std::vector<RandomSet>& out) {
  std::mt19937_64 rng(spec.seed);
  for (int k = 0; k < spec.count; ++k) {
    RandomSet set;
    if (auto e = random_inputs(decls, spec, rng, set.values); !e.empty()) return e;
    set.name = "random_" + std::to_string(k) + " (seed " + std::to_string(spec.seed) + ")";
    if (const std::string shapes = shapes_label(decls, set.values); !shapes.empty()) set.name += ": " + shapes;
    out.push_back(std::move(set));
  }
  return "";
}

std::string random_inputs(const std::vector<InputDecl>& decls, const RandomInputs& spec, std::mt19937_64& rng,
                          std::vector<Value>& out) {
  // Given shapes first: checked against every dim the model declares, and naming the symbolic dims they fix.
  std::map<std::string, int64_t> symbols;
  for (const InputDecl& d : decls) {
    auto given = spec.shapes.find(d.name);
    if (given == spec.shapes.end() || !d.tensor || !d.has_shape) continue;
    if (d.dims.size() != given->second.size())
      return "--input-shapes gives '" + d.name + "' rank " + std::to_string(given->second.size()) +
             "; the model declares rank " + std::to_string(d.dims.size());
    for (size_t k = 0; k < d.dims.size(); ++k) {
      const int64_t v = given->second[k];
      if (d.dims[k] && *d.dims[k] != v)
        return "--input-shapes gives '" + d.name + "' dim " + std::to_string(k) + " = " + std::to_string(v) +
               "; the model declares " + std::to_string(*d.dims[k]);
      if (k < d.dim_names.size() && !d.dim_names[k].empty() && !d.dims[k]) {
        auto [it, fresh] = symbols.emplace(d.dim_names[k], v);
        if (!fresh && it->second != v)
          return "--input-shapes gives the symbolic dim '" + d.dim_names[k] + "' two values (" +
                 std::to_string(it->second) + " and " + std::to_string(v) + ")";
      }
    }
  }
  for (const auto& [name, shape] : spec.shapes) {
    bool known = false;
    for (const InputDecl& d : decls) known |= d.name == name;
    if (!known) return "--input-shapes names '" + name + "', which is not an input of the model";
  }
  for (const InputDecl& d : decls) {
    if (!d.tensor) return "input '" + d.name + "' is not a tensor: --random cannot make it (use --data)";
    if (!d.dt) return "input '" + d.name + "' has an element type --random cannot make (use --data)";
    const DT dt = *d.dt;
    Dims dims;
    if (auto given = spec.shapes.find(d.name); given != spec.shapes.end()) {
      dims = given->second;
    } else if (d.has_shape) {
      // A declared dim as declared; a symbolic one as a given shape fixed it elsewhere, else spec.open_dim.
      for (size_t k = 0; k < d.dims.size(); ++k) {
        auto sym = k < d.dim_names.size() && !d.dim_names[k].empty() ? symbols.find(d.dim_names[k]) : symbols.end();
        dims.push_back(d.dims[k] ? *d.dims[k] : sym != symbols.end() ? sym->second : spec.open_dim);
      }
    }
    std::pair<double, double> r = is_float(dt)     ? std::pair{-1.0, 1.0}
                                  : dt == DT::Bool ? std::pair{0.0, 1.0}
                                                   : std::pair{0.0, 9.0};
    if (auto it = spec.ranges.find(d.name); it != spec.ranges.end()) r = it->second;
    try {
      out.push_back(Value::tensor(random_tensor(dt, dims, r.first, r.second, rng)));
    } catch (const ExecError& e) {  // a shape above the executor's limits: said, never thrown past the command
      return "--random cannot make input '" + d.name + "': " + e.what();
    }
  }
  return "";
}

}  // namespace condlint::exec
