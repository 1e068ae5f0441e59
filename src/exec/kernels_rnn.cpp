// RNN, GRU and LSTM (ONNX opsets 7-14 semantics, layout 0 and 1, sequence_lens, both directions).
#include <cmath>

#include "exec/kernel_util.hpp"

namespace condlint::exec {
namespace {

enum class Cell { RNN, GRU, LSTM };

struct Act {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (name == "Tanh") return std::tanh(x);
    if (name == "Relu") return std::max(0.0, x);
    if (name == "LeakyRelu") return x >= 0 ? x : alpha * x;
    if (name == "HardSigmoid") return std::clamp(alpha * x + beta, 0.0, 1.0);
    if (name == "Affine") return alpha * x + beta;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "ThresholdedRelu") return x > alpha ? x : 0.0;
    if (name == "Elu") return x >= 0 ? x : alpha * (std::exp(x) - 1);
    if (name == "Softsign") return x / (1 + std::abs(x));
    if (name == "Softplus") return std::log1p(std::exp(x));
    throw ExecError(ErrKind::Unsupported, "recurrent activation '" + name + "'");
  }
};

// The activations of every direction (nact per direction): as given, one set for both directions, or the defaults.
std::vector<Act> activations(OpCtx& c, Cell cell, int64_t nact, int64_t D) {
  std::vector<std::string> names;
  if (const auto* a = c.attr("activations"))
    for (const auto& s : a->strings()) names.push_back(s);
  const auto alphas = c.attr_floats("activation_alpha"), betas = c.attr_floats("activation_beta");
  std::vector<Act> acts;
  for (int64_t k = 0; k < nact * D; ++k) {
    Act a;
    if (k < static_cast<int64_t>(names.size())) a.name = names[k];
    else a.name = cell == Cell::RNN ? "Tanh" : (k % nact == 0 ? "Sigmoid" : "Tanh");
    a.alpha = k < static_cast<int64_t>(alphas.size()) ? alphas[k]
                                                      : (a.name == "LeakyRelu"     ? 0.01
                                                         : a.name == "HardSigmoid" ? 0.2
                                                                                   : 1.0);
    a.beta = k < static_cast<int64_t>(betas.size()) ? betas[k] : (a.name == "HardSigmoid" ? 0.5 : 0.0);
    acts.push_back(a);
  }
  if (static_cast<int64_t>(names.size()) > 0 && static_cast<int64_t>(names.size()) != nact * D) {
    if (static_cast<int64_t>(names.size()) == nact)  // one set given for both directions
      for (int64_t k = nact; k < nact * D; ++k) acts[k] = acts[k % nact];
  }
  return acts;
}

// initial_h (k = 5) or initial_c (k = 6) as [num_directions, batch, hidden] doubles; zeros when not given.
Tensor initial_state(OpCtx& c, size_t k, int64_t layout, int64_t D, int64_t Bn, int64_t H) {
  if (!c.has(k) || c.t(k).numel() == 0) return Tensor(DT::F64, {D, Bn, H});
  // The spec's shape exactly ([num_directions, batch, hidden], or [batch, num_directions, hidden] with layout 1), as
  // ONNX Runtime demands: a reshape-compatible state of another rank would hide a defect.
  const Tensor& raw = c.t(k);
  const std::vector<int64_t> want = layout ? std::vector<int64_t>{Bn, D, H} : std::vector<int64_t>{D, Bn, H};
  if (raw.shape != want)
    fail(std::string(k == 5 ? "initial_h" : "initial_c") + " must have shape " + dims_str(want) + ", got " +
         dims_str(raw.shape));
  Tensor t = cast_tensor(raw, DT::F64);
  if (layout) t = transpose(t, {1, 0, 2});
  return t;
}

// One time step of one cell: the new hidden state from the gates' input (gx) and recurrent (gh) sums and the
// previous state h; an LSTM's cell state cs is updated in place.
template <class Clip>
std::vector<double> next_state(OpCtx& c, Cell cell, const std::vector<double>& gx, const std::vector<double>& gh,
                               const std::vector<double>& h, std::vector<double>& cs, int64_t d, const Act& f,
                               const Act& g, const Act& hA, const Clip& clipv, bool lbr, bool couple, bool has_p) {
  const Tensor& R = c.t(2);
  const int64_t H = static_cast<int64_t>(h.size());
  const int64_t G = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
  const bool has_b = c.has(3) && c.t(3).numel() > 0;
  auto rb = [&](int64_t j) { return has_b ? c.t(3).getf(d * 2 * G * H + G * H + j) : 0.0; };
  std::vector<double> nh(H);
  if (cell == Cell::RNN) {
    for (int64_t j = 0; j < H; ++j) nh[j] = f(clipv(gx[j] + gh[j]));
  } else if (cell == Cell::GRU) {
    std::vector<double> z(H), r(H);
    for (int64_t j = 0; j < H; ++j) {
      z[j] = f(clipv(gx[j] + gh[j]));
      r[j] = f(clipv(gx[H + j] + gh[H + j]));
    }
    for (int64_t j = 0; j < H; ++j) {
      double s;
      if (lbr) s = gx[2 * H + j] + r[j] * gh[2 * H + j];
      else {
        s = gx[2 * H + j] + rb(2 * H + j);
        for (int64_t k = 0; k < H; ++k) s += r[k] * h[k] * R.getf((d * G * H + 2 * H + j) * H + k);
      }
      nh[j] = (1 - z[j]) * g(clipv(s)) + z[j] * h[j];
    }
  } else {
    auto P = [&](int64_t which, int64_t j) { return has_p ? c.t(7).getf(d * 3 * H + which * H + j) : 0.0; };
    for (int64_t j = 0; j < H; ++j) {
      const double i = f(clipv(gx[j] + gh[j] + P(0, j) * cs[j]));
      double fg = f(clipv(gx[2 * H + j] + gh[2 * H + j] + P(2, j) * cs[j]));
      if (couple) fg = 1 - i;
      const double cc = g(clipv(gx[3 * H + j] + gh[3 * H + j]));
      const double cn = fg * cs[j] + i * cc;
      const double o = f(clipv(gx[H + j] + gh[H + j] + P(1, j) * cn));
      cs[j] = cn;
      nh[j] = o * hA(cn);
    }
  }
  return nh;
}

void recurrent(OpCtx& c, Cell cell) {
  const Tensor& X0 = c.t(0);
  const Tensor& W = c.t(1);
  const Tensor& R = c.t(2);
  if (!is_float(X0.dt)) fail("recurrent ops need floating-point inputs");
  const int64_t layout = c.attr_i("layout", 0);
  if (X0.rank() != 3 || W.rank() != 3 || R.rank() != 3) fail("X, W and R must be 3-D");
  const Tensor X = layout ? transpose(X0, {1, 0, 2}) : X0;  // [seq, batch, input]
  const int64_t S = X.shape[0], Bn = X.shape[1], I = X.shape[2];
  const int64_t G = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;
  const int64_t H = c.attr_i("hidden_size", R.shape[2]);
  const std::string dir = c.attr_s("direction", "forward");
  const int64_t D = dir == "bidirectional" ? 2 : 1;
  if (W.shape[0] != D || W.shape[1] != G * H || W.shape[2] != I || R.shape[0] != D || R.shape[1] != G * H ||
      R.shape[2] != H)
    fail("W/R shapes do not match direction, hidden_size and input size");
  const bool has_b = c.has(3) && c.t(3).numel() > 0;
  if (has_b && (c.t(3).rank() != 2 || c.t(3).shape[0] != D || c.t(3).shape[1] != 2 * G * H))
    fail("B must have shape [" + std::to_string(D) + "," + std::to_string(2 * G * H) + "], got " +
         dims_str(c.t(3).shape));
  std::vector<int64_t> lens(Bn, S);
  if (c.has(4) && c.t(4).numel() > 0) {
    lens = to_i64s(c.t(4));
    if (static_cast<int64_t>(lens.size()) != Bn) fail("sequence_lens has the wrong size");
    for (auto& l : lens) l = std::clamp<int64_t>(l, 0, S);
  }
  Tensor h0 = initial_state(c, 5, layout, D, Bn, H);
  Tensor c0 = cell == Cell::LSTM ? initial_state(c, 6, layout, D, Bn, H) : Tensor(DT::F64, {D, Bn, H});
  const bool has_p = cell == Cell::LSTM && c.has(7) && c.t(7).numel() > 0;
  const double clip = c.attr_f("clip", 0.0f);
  const bool lbr = c.attr_i("linear_before_reset", 0) != 0;
  const bool couple = c.attr_i("input_forget", 0) != 0;
  // activations per direction
  const int64_t nact = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 2 : 3;
  const std::vector<Act> acts = activations(c, cell, nact, D);
  auto clipv = [&](double v) {
    return clip > 0 ? std::clamp(v, -static_cast<double>(clip), static_cast<double>(clip)) : v;
  };
  Tensor Y(X.dt, {S, D, Bn, H});
  Tensor Yh(X.dt, {D, Bn, H}), Yc(X.dt, {D, Bn, H});
  std::vector<double> gx(G * H), gh(G * H);
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = dir == "reverse" || d == 1;
    const Act& f = acts[d * nact];
    const Act& g = acts[d * nact + (nact > 1 ? 1 : 0)];
    const Act& hA = acts[d * nact + (nact > 2 ? 2 : 0)];
    auto wb = [&](int64_t j) { return has_b ? c.t(3).getf(d * 2 * G * H + j) : 0.0; };
    auto rb = [&](int64_t j) { return has_b ? c.t(3).getf(d * 2 * G * H + G * H + j) : 0.0; };
    for (int64_t b = 0; b < Bn; ++b) {
      std::vector<double> h(H), cs(H);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = h0.f[(d * Bn + b) * H + j];
        cs[j] = c0.f[(d * Bn + b) * H + j];
      }
      for (int64_t step = 0; step < lens[b]; ++step) {
        const int64_t t = reverse ? lens[b] - 1 - step : step;
        for (int64_t j = 0; j < G * H; ++j) {
          double sx = wb(j), sh = rb(j);
          for (int64_t k = 0; k < I; ++k) sx += X.f[(t * Bn + b) * I + k] * W.getf((d * G * H + j) * I + k);
          for (int64_t k = 0; k < H; ++k) sh += h[k] * R.getf((d * G * H + j) * H + k);
          gx[j] = sx;
          gh[j] = sh;
        }
        const std::vector<double> nh = next_state(c, cell, gx, gh, h, cs, d, f, g, hA, clipv, lbr, couple, has_p);
        h = nh;
        for (int64_t j = 0; j < H; ++j) Y.f[((t * D + d) * Bn + b) * H + j] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        Yh.f[(d * Bn + b) * H + j] = h[j];
        Yc.f[(d * Bn + b) * H + j] = cs[j];
      }
    }
  }
  normalize(Y);
  normalize(Yh);
  normalize(Yc);
  if (layout) {
    Y = transpose(Y, {2, 0, 1, 3});
    Yh = transpose(Yh, {1, 0, 2});
    Yc = transpose(Yc, {1, 0, 2});
  }
  if (c.want(0)) c.set(0, std::move(Y));
  if (c.want(1)) c.set(1, std::move(Yh));
  if (c.want(2) && cell == Cell::LSTM) c.set(2, std::move(Yc));
}

void k_rnn(OpCtx& c) { recurrent(c, Cell::RNN); }
void k_gru(OpCtx& c) { recurrent(c, Cell::GRU); }
void k_lstm(OpCtx& c) { recurrent(c, Cell::LSTM); }

}  // namespace

void register_rnn_ops(KernelTable& t) {
  t["RNN"] = k_rnn;
  t["GRU"] = k_gru;
  t["LSTM"] = k_lstm;
}

}  // namespace condlint::exec
