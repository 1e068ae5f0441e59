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

std::string random_inputs(const Interpreter& probe, const RandomInputs& spec, std::mt19937_64& rng,
                          std::vector<Value>& out) {
  // Given shapes first: checked against every dim the model declares, and naming the symbolic dims they fix.
  std::map<std::string, int64_t> symbols;
  for (const auto* vi : probe.data_inputs()) {
    auto given = spec.shapes.find(vi->name());
    if (given == spec.shapes.end() || !vi->has_type() || !vi->type().has_tensor_type() ||
        !vi->type().tensor_type().has_shape())
      continue;
    const auto& dims = vi->type().tensor_type().shape().dim();
    if (dims.size() != static_cast<int>(given->second.size()))
      return "--input-shapes gives '" + vi->name() + "' rank " + std::to_string(given->second.size()) +
             "; the model declares rank " + std::to_string(dims.size());
    for (int k = 0; k < dims.size(); ++k) {
      const int64_t v = given->second[static_cast<size_t>(k)];
      if (dims[k].has_dim_value() && dims[k].dim_value() >= 0 && dims[k].dim_value() != v)
        return "--input-shapes gives '" + vi->name() + "' dim " + std::to_string(k) + " = " + std::to_string(v) +
               "; the model declares " + std::to_string(dims[k].dim_value());
      if (dims[k].has_dim_param() && !dims[k].dim_param().empty()) {
        auto [it, fresh] = symbols.emplace(dims[k].dim_param(), v);
        if (!fresh && it->second != v)
          return "--input-shapes gives the symbolic dim '" + dims[k].dim_param() + "' two values (" +
                 std::to_string(it->second) + " and " + std::to_string(v) + ")";
      }
    }
  }
  for (const auto& [name, shape] : spec.shapes) {
    bool known = false;
    for (const auto* vi : probe.data_inputs()) known |= vi->name() == name;
    if (!known) return "--input-shapes names '" + name + "', which is not an input of the model";
  }
  for (const auto* vi : probe.data_inputs()) {
    if (!vi->has_type() || !vi->type().has_tensor_type())
      return "input '" + vi->name() + "' is not a tensor: --random cannot make it (use --data)";
    const auto& tt = vi->type().tensor_type();
    if (!dt_known(tt.elem_type()))
      return "input '" + vi->name() + "' has an element type --random cannot make (use --data)";
    const auto dt = static_cast<DT>(tt.elem_type());
    Dims dims;
    if (auto given = spec.shapes.find(vi->name()); given != spec.shapes.end()) {
      dims = given->second;
    } else if (tt.has_shape()) {
      // A declared dim as declared; a symbolic one as a given shape fixed it elsewhere, else 1.
      for (const auto& d : tt.shape().dim()) {
        auto sym = d.has_dim_param() ? symbols.find(d.dim_param()) : symbols.end();
        dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value()
                       : sym != symbols.end()                  ? sym->second
                                                               : 1);
      }
    }
    std::pair<double, double> r = is_float(dt)     ? std::pair{-1.0, 1.0}
                                  : dt == DT::Bool ? std::pair{0.0, 1.0}
                                                   : std::pair{0.0, 9.0};
    if (auto it = spec.ranges.find(vi->name()); it != spec.ranges.end()) r = it->second;
    out.push_back(Value::tensor(random_tensor(dt, dims, r.first, r.second, rng)));
  }
  return "";
}

}  // namespace condlint::exec
