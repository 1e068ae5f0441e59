// Attention: ai.onnx Attention (opsets 23 and 24, without nonpad_kv_seqlen) and com.microsoft GroupQueryAttention
// (ONNX Runtime's contrib op, with its packed QKV, KV cache by seqlens_k and total_sequence_length, rotary embedding
// from cos/sin caches, causal local window, softcap and attention_bias). Values are computed in double and rounded to
// the output's type. What a kernel does not implement fails as unsupported naming the attribute or input, never as a
// guess. Each kernel was checked against ONNX Runtime (tools/onnx_oracle/gen_kernel_cases.py, corpus-modern/kernels/)
// and Attention also against onnx's own node tests (corpus-modern/kernels/onnx_node_tests/).
#include <cmath>
#include <limits>

#include "exec/kernel_util.hpp"

namespace condlint::exec {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

[[noreturn]] void unsupported(const OpCtx& c, const std::string& what) {
  throw ExecError(ErrKind::Unsupported, "unsupported op " + c.node.op_type() + " with " + what + " at " + c.path);
}

// A tensor of attention heads in BNSH order: element (b, n, s, h) at ((b * N + n) * S + s) * H + h.
struct Bnsh {
  int64_t B = 0, N = 0, S = 0, H = 0;
  std::vector<double> v;
  double& at(int64_t b, int64_t n, int64_t s, int64_t h) {
    return v[static_cast<size_t>(((b * N + n) * S + s) * H + h)];
  }
  double at(int64_t b, int64_t n, int64_t s, int64_t h) const {
    return v[static_cast<size_t>(((b * N + n) * S + s) * H + h)];
  }
};

Bnsh bnsh(int64_t B, int64_t N, int64_t S, int64_t H) {
  Bnsh x{B, N, S, H, {}};
  x.v.assign(static_cast<size_t>(checked_numel({B, N, S, H})), 0.0);
  return x;
}

// A 4-D tensor as it is, or a 3-D (B, S, N*H) one split into N heads.
Bnsh heads_of(const Tensor& t, int64_t heads, const OpCtx& c, const char* what) {
  const std::string op = c.node.op_type();
  if (!is_float(t.dt)) fail(op + " needs a floating-point " + what + ", got " + t.describe());
  if (t.rank() == 4) {
    Bnsh x{t.shape[0], t.shape[1], t.shape[2], t.shape[3], t.f};
    return x;
  }
  if (t.rank() != 3) fail(op + ": " + what + " must be 3-D or 4-D, got " + t.describe());
  if (heads <= 0 || t.shape[2] % heads != 0)
    fail(op + ": " + what + " " + t.describe() + " does not split into " + std::to_string(heads) + " heads");
  Bnsh x = bnsh(t.shape[0], heads, t.shape[1], t.shape[2] / heads);
  for (int64_t b = 0; b < x.B; ++b)
    for (int64_t s = 0; s < x.S; ++s)
      for (int64_t n = 0; n < x.N; ++n)
        for (int64_t h = 0; h < x.H; ++h) x.at(b, n, s, h) = t.f[((b * x.S + s) * x.N + n) * x.H + h];
  return x;
}

// x's heads back to (B, S, N*H).
Tensor merge_heads(const Bnsh& x, DT dt) {
  Tensor y(dt, {x.B, x.S, x.N * x.H});
  for (int64_t b = 0; b < x.B; ++b)
    for (int64_t s = 0; s < x.S; ++s)
      for (int64_t n = 0; n < x.N; ++n)
        for (int64_t h = 0; h < x.H; ++h) y.f[((b * x.S + s) * x.N + n) * x.H + h] = x.at(b, n, s, h);
  normalize(y);
  return y;
}

Tensor as_tensor(const Bnsh& x, DT dt) {
  Tensor y(dt, {x.B, x.N, x.S, x.H});
  y.f = x.v;
  normalize(y);
  return y;
}

// Softmax of one row of scores in place; a row whose every key is masked (its bias all -inf) is all zeros.
void softmax_row(std::vector<double>& row, bool all_masked) {
  if (all_masked) {
    std::fill(row.begin(), row.end(), 0.0);
    return;
  }
  double mx = kNegInf;
  for (double x : row) mx = std::max(mx, x);
  double sum = 0;
  for (double& x : row) sum += (x = x == kNegInf ? 0.0 : std::exp(x - mx));
  for (double& x : row) x = sum > 0 ? x / sum : 0.0;
}

double softcap_of(double x, double cap) { return cap > 0 ? cap * std::tanh(x / cap) : x; }

// ---- ai.onnx Attention ----

// attn_mask read as an additive bias at (b, n, s, j) of (B, N, S, T): broadcast from its trailing dims, its last dim
// padded to T with masked keys (as onnx's reference pads a shorter mask).
struct MaskView {
  const Tensor* m = nullptr;
  Dims st;  // strides over (B, N, S, T_mask) with 0 on broadcast dims
  int64_t last = 0;
  double bias(int64_t b, int64_t n, int64_t s, int64_t j) const {
    if (!m) return 0.0;
    if (j >= last) return kNegInf;
    const int64_t k = b * st[0] + n * st[1] + s * st[2] + j * st[3];
    if (m->dt == DT::Bool) return m->i[static_cast<size_t>(k)] ? 0.0 : kNegInf;
    return m->f[static_cast<size_t>(k)];
  }
};

MaskView mask_view(const Tensor* m, const Dims& full) {
  MaskView v;
  if (!m) return v;
  if (m->dt != DT::Bool && !is_float(m->dt))
    fail("Attention attn_mask must be bool or floating-point, got " + m->describe());
  if (m->rank() < 1 || m->rank() > 4) fail("Attention attn_mask must have a rank of 1 to 4, got " + m->describe());
  Dims md(4, 1);
  const size_t off = 4 - m->rank();
  for (size_t k = 0; k < m->rank(); ++k) md[off + k] = m->shape[k];
  for (size_t k = 0; k < 3; ++k)
    if (md[k] != 1 && md[k] != full[k])
      fail("Attention attn_mask " + m->describe() + " does not broadcast to " + dims_str(full));
  if (md[3] > full[3]) fail("Attention attn_mask " + m->describe() + " has more keys than " + dims_str(full));
  v.m = m;
  v.last = md[3];
  const Dims own = strides_of(md);
  v.st.assign(4, 0);
  for (size_t k = 0; k < 4; ++k) v.st[k] = md[k] == 1 ? 0 : own[k];
  return v;
}

// K or V with the past cache before it along the sequence axis.
Bnsh with_past(const Bnsh& x, const Tensor* past, const char* what) {
  if (!past) return x;
  if (past->rank() != 4 || past->shape[0] != x.B || past->shape[1] != x.N || past->shape[3] != x.H)
    fail(std::string("Attention ") + what + " " + past->describe() + " does not match (" + std::to_string(x.B) + ", " +
         std::to_string(x.N) + ", past_sequence_length, " + std::to_string(x.H) + ")");
  const int64_t P = past->shape[2];
  Bnsh y = bnsh(x.B, x.N, P + x.S, x.H);
  for (int64_t b = 0; b < x.B; ++b)
    for (int64_t n = 0; n < x.N; ++n) {
      for (int64_t s = 0; s < P; ++s)
        for (int64_t h = 0; h < x.H; ++h) y.at(b, n, s, h) = past->f[((b * x.N + n) * P + s) * x.H + h];
      for (int64_t s = 0; s < x.S; ++s)
        for (int64_t h = 0; h < x.H; ++h) y.at(b, n, P + s, h) = x.at(b, n, s, h);
    }
  return y;
}

void attention_checks(const OpCtx& c) {
  if (c.opset > 24) unsupported(c, "opset " + std::to_string(c.opset) + " (only opsets 23 and 24 are implemented)");
  if (c.has(6)) unsupported(c, "input nonpad_kv_seqlen");
  if (c.has(4) != c.has(5)) fail("Attention needs past_key and past_value together");
  const int64_t mode = c.attr_i("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) unsupported(c, "qk_matmul_output_mode=" + std::to_string(mode));
  // onnx's reference returns the softcapped scores for mode 0 where the spec says the raw product: not decided here.
  if (c.want(3) && mode == 0 && c.attr_f("softcap", 0.0f) > 0)
    unsupported(c, "qk_matmul_output_mode=0 together with softcap (the spec and onnx's reference disagree)");
}

void k_attention(OpCtx& c) {
  attention_checks(c);
  const Tensor &tq = c.t(0), &tk = c.t(1), &tv = c.t(2);
  if (tq.rank() != tk.rank() || tq.rank() != tv.rank()) fail("Attention: Q, K and V must have the same rank");
  const bool three_d = tq.rank() == 3;
  if (three_d && (!c.has_attr("q_num_heads") || !c.has_attr("kv_num_heads")))
    fail("Attention with 3-D inputs needs q_num_heads and kv_num_heads");
  const Bnsh q = heads_of(tq, c.attr_i("q_num_heads", 0), c, "Q");
  const Bnsh k0 = heads_of(tk, c.attr_i("kv_num_heads", 0), c, "K");
  const Bnsh v0 = heads_of(tv, c.attr_i("kv_num_heads", 0), c, "V");
  if (!three_d && ((c.has_attr("q_num_heads") && c.attr_i("q_num_heads", 0) != q.N) ||
                   (c.has_attr("kv_num_heads") && c.attr_i("kv_num_heads", 0) != k0.N)))
    fail("Attention: q_num_heads / kv_num_heads do not match the 4-D inputs' heads");
  if (k0.B != q.B || v0.B != q.B || k0.H != q.H || v0.N != k0.N || v0.S != k0.S)
    fail("Attention: Q " + tq.describe() + ", K " + tk.describe() + " and V " + tv.describe() + " do not match");
  if (k0.N <= 0 || q.N % k0.N != 0)
    fail("Attention: q_num_heads " + std::to_string(q.N) + " is not a multiple of kv_num_heads " +
         std::to_string(k0.N));
  const Bnsh K = with_past(k0, c.has(4) ? &c.t(4) : nullptr, "past_key");
  const Bnsh V = with_past(v0, c.has(5) ? &c.t(5) : nullptr, "past_value");
  const int64_t T = K.S, P = T - k0.S, group = q.N / K.N;
  const MaskView mask = mask_view(c.has(3) ? &c.t(3) : nullptr, {q.B, q.N, q.S, T});
  const double scale = c.has_attr("scale") ? c.attr_f("scale", 0.0f) : 1.0 / std::sqrt(static_cast<double>(q.H));
  const double cap = c.attr_f("softcap", 0.0f);
  const bool causal = c.attr_i("is_causal", 0) != 0;
  const int64_t mode = c.attr_i("qk_matmul_output_mode", 0);
  Bnsh y = bnsh(q.B, q.N, q.S, V.H), qk = bnsh(q.B, q.N, q.S, T);
  std::vector<double> row(static_cast<size_t>(T)), bias(static_cast<size_t>(T));
  for (int64_t b = 0; b < q.B; ++b)
    for (int64_t n = 0; n < q.N; ++n)
      for (int64_t s = 0; s < q.S; ++s) {
        bool all_masked = true;
        for (int64_t j = 0; j < T; ++j) {
          double dot = 0;
          for (int64_t h = 0; h < q.H; ++h) dot += q.at(b, n, s, h) * K.at(b, n / group, j, h);
          row[j] = softcap_of(dot * scale, cap);
          bias[j] = mask.bias(b, n, s, j) + (causal && j > s + P ? kNegInf : 0.0);
          if (mode <= 1) qk.at(b, n, s, j) = row[j];
          row[j] += bias[j];
          if (mode == 2) qk.at(b, n, s, j) = row[j];
          all_masked = all_masked && bias[j] == kNegInf;
        }
        softmax_row(row, all_masked);
        for (int64_t j = 0; j < T; ++j) {
          if (mode == 3) qk.at(b, n, s, j) = row[j];
          for (int64_t h = 0; h < V.H; ++h) y.at(b, n, s, h) += row[j] * V.at(b, n / group, j, h);
        }
      }
  c.set(0, three_d ? merge_heads(y, tq.dt) : as_tensor(y, tq.dt));
  if (c.want(1)) c.set(1, as_tensor(K, tk.dt));
  if (c.want(2)) c.set(2, as_tensor(V, tv.dt));
  if (c.want(3)) c.set(3, as_tensor(qk, tq.dt));
}

// ---- com.microsoft GroupQueryAttention ----

struct GqaParams {
  int64_t B = 0, S = 0, N = 0, kvN = 0, H = 0;
  int64_t past_len = 0, present_len = 0, total = 0, window = -1, rotary_dim = 0;
  double scale = 0, cap = 0;
  bool causal = true, rotary = false, interleaved = false;
  std::vector<int64_t> seqlens;  // seqlens_k + 1: each batch entry's tokens after this step
};

void gqa_attribute_checks(const OpCtx& c) {
  static const char* const names[] = {"causal", "do_rotary", "kv_num_heads", "local_window_size", "num_heads",
                                      "rotary_interleaved", "scale", "softcap", "smooth_softmax", "qk_output",
                                      "sliding_window_cache", "k_quant_type", "v_quant_type", "kv_cache_bit_width",
                                      "qk_norm_epsilon", "q_norm_epsilon", "k_norm_epsilon"};
  for (const auto& a : c.node.attribute()) {
    bool known = false;
    for (const char* n : names) known = known || a.name() == n;
    if (!known) unsupported(c, "attribute " + a.name());
  }
  if (c.attr_i("smooth_softmax", 0) != 0)
    unsupported(c, "smooth_softmax=" + std::to_string(c.attr_i("smooth_softmax", 0)));
  if (c.attr_i("qk_output", 0) != 0) unsupported(c, "qk_output=" + std::to_string(c.attr_i("qk_output", 0)));
  if (c.attr_i("sliding_window_cache", 0) != 0) unsupported(c, "sliding_window_cache=1");
  for (const char* q : {"k_quant_type", "v_quant_type"})
    if (c.attr_s(q, "NONE") != "NONE") unsupported(c, std::string(q) + "=" + c.attr_s(q, ""));
  if (c.has_attr("kv_cache_bit_width")) unsupported(c, "attribute kv_cache_bit_width");
  static const char* const inputs[] = {"position_ids", "attention_bias", "head_sink", "k_scale", "v_scale",
                                       "q_norm_weight", "k_norm_weight", "query_seqlens"};
  for (size_t k = 9; k < c.n_in(); ++k)
    if (c.has(k) && k != 10) unsupported(c, "input " + (k - 9 < 8 ? std::string(inputs[k - 9]) : std::to_string(k)));
  if (c.n_out() > 3 && c.want(3)) unsupported(c, "output output_qk");
}

GqaParams gqa_params(const OpCtx& c) {
  gqa_attribute_checks(c);
  GqaParams p;
  const Tensor& q = c.t(0);
  if (!is_float(q.dt) || q.rank() != 3)
    fail("GroupQueryAttention query must be a 3-D floating-point tensor, got " + q.describe());
  p.B = q.shape[0];
  p.S = q.shape[1];
  p.N = c.attr_i("num_heads", 0);
  p.kvN = c.attr_i("kv_num_heads", 0);
  if (p.N <= 0 || p.kvN <= 0 || p.N % p.kvN != 0)
    fail("GroupQueryAttention: num_heads " + std::to_string(p.N) + " is not a positive multiple of kv_num_heads " +
         std::to_string(p.kvN));
  const int64_t parts = c.has(1) ? p.N : p.N + 2 * p.kvN;  // packed QKV when key and value are absent
  if (c.has(1) != c.has(2)) fail("GroupQueryAttention needs key and value together");
  if (q.shape[2] % parts != 0) fail("GroupQueryAttention query " + q.describe() + " does not split into its heads");
  p.H = q.shape[2] / parts;
  if (c.has(1))
    for (size_t k : {1, 2}) {
      const Tensor& t = c.t(k);
      if (t.rank() != 3 || t.shape[0] != p.B || t.shape[1] != p.S || t.shape[2] != p.kvN * p.H)
        fail("GroupQueryAttention " + std::string(k == 1 ? "key " : "value ") + t.describe() + " does not match (" +
             std::to_string(p.B) + ", " + std::to_string(p.S) + ", " + std::to_string(p.kvN * p.H) + ")");
    }
  if (c.has(3) != c.has(4)) fail("GroupQueryAttention needs past_key and past_value together");
  if (c.has(3))
    for (size_t k : {3, 4}) {
      const Tensor& t = c.t(k);
      if (t.rank() != 4 || t.shape[0] != p.B || t.shape[1] != p.kvN || t.shape[3] != p.H)
        fail("GroupQueryAttention past " + t.describe() + " is not (batch, kv_num_heads, length, head_size)");
      p.past_len = t.shape[2];
    }
  const Tensor &sk = c.t(5), &tot = c.t(6);
  if (sk.numel() != p.B)
    fail("GroupQueryAttention seqlens_k " + sk.describe() + " does not hold one length per batch entry");
  if (tot.numel() != 1) fail("GroupQueryAttention total_sequence_length must be a scalar, got " + tot.describe());
  p.total = tot.geti(0);
  p.present_len = std::max(p.total, p.past_len);
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t T = sk.geti(b) + 1;
    if (T < 1 || T > p.total)
      fail("GroupQueryAttention seqlens_k[" + std::to_string(b) + "] + 1 = " + std::to_string(T) +
           " is outside [1, total_sequence_length " + std::to_string(p.total) + "]");
    if (T - std::min(p.S, T) > p.past_len)
      fail("GroupQueryAttention seqlens_k[" + std::to_string(b) + "] needs " + std::to_string(T - std::min(p.S, T)) +
           " cached tokens, past_key holds " + std::to_string(p.past_len));
    p.seqlens.push_back(T);
  }
  const float sc = c.attr_f("scale", 0.0f);
  p.scale = sc != 0.0f ? sc : 1.0 / std::sqrt(static_cast<double>(p.H));
  p.cap = c.attr_f("softcap", 0.0f);
  if (p.cap < 0) fail("GroupQueryAttention softcap must not be negative");
  p.causal = c.attr_i("causal", 1) != 0;
  p.window = c.attr_i("local_window_size", -1);
  if (p.window != -1 && (p.window <= 0 || !p.causal))
    unsupported(c, "local_window_size=" + std::to_string(p.window) + (p.causal ? "" : " and causal=0"));
  p.rotary = c.attr_i("do_rotary", 0) != 0;
  p.interleaved = c.attr_i("rotary_interleaved", 0) != 0;
  if (p.rotary) {
    if (!c.has(7) || !c.has(8)) fail("GroupQueryAttention do_rotary=1 needs cos_cache and sin_cache");
    const Tensor &cs = c.t(7), &sn = c.t(8);
    if (cs.rank() != 2 || cs.shape != sn.shape)
      fail("GroupQueryAttention cos_cache and sin_cache must be 2-D and alike");
    p.rotary_dim = cs.shape[1] * 2;
    if (p.rotary_dim > p.H || p.rotary_dim == 0)
      fail("GroupQueryAttention rotary dimension " + std::to_string(p.rotary_dim) + " does not fit head_size " +
           std::to_string(p.H));
  }
  return p;
}

// Rotates one head vector (length H) at position `pos` by the cos/sin caches: the first rotary_dim elements, as halves
// (x[i], x[i + d/2]) or as interleaved pairs (x[2i], x[2i+1]); the rest unchanged.
void rotate(double* x, int64_t pos, const GqaParams& p, const Tensor& cs, const Tensor& sn) {
  const int64_t half = p.rotary_dim / 2;
  if (pos < 0 || pos >= cs.shape[0])
    fail("GroupQueryAttention position " + std::to_string(pos) + " is past the cos/sin caches' " +
         std::to_string(cs.shape[0]) + " rows");
  for (int64_t i = 0; i < half; ++i) {
    const double co = cs.f[pos * half + i], si = sn.f[pos * half + i];
    const int64_t a = p.interleaved ? 2 * i : i, b = p.interleaved ? 2 * i + 1 : i + half;
    const double xa = x[a], xb = x[b];
    x[a] = xa * co - xb * si;
    x[b] = xb * co + xa * si;
  }
}

// Head n (of `heads`) of token s of batch b of a (B, S, width) tensor, starting at column `first_col`.
std::vector<double> head_row(const Tensor& t, int64_t b, int64_t s, int64_t first_col, int64_t H) {
  const int64_t S = t.shape[1], W = t.shape[2];
  std::vector<double> r(static_cast<size_t>(H));
  for (int64_t h = 0; h < H; ++h) r[h] = t.f[(b * S + s) * W + first_col + h];
  return r;
}

void k_group_query_attention(OpCtx& c) {
  const GqaParams p = gqa_params(c);
  const Tensor& q = c.t(0);
  const bool packed = !c.has(1);
  const Tensor& tk = packed ? q : c.t(1);
  const Tensor& tv = packed ? q : c.t(2);
  const int64_t k_col = packed ? p.N * p.H : 0, v_col = packed ? (p.N + p.kvN) * p.H : 0;
  const Tensor* cs = p.rotary ? &c.t(7) : nullptr;
  const Tensor* sn = p.rotary ? &c.t(8) : nullptr;
  const Tensor* bias = c.has(10) ? &c.t(10) : nullptr;
  if (bias && (bias->rank() != 4 || (bias->shape[0] != 1 && bias->shape[0] != p.B) ||
               (bias->shape[1] != 1 && bias->shape[1] != p.N) || bias->shape[2] != p.S || bias->shape[3] != p.total))
    fail("GroupQueryAttention attention_bias " + bias->describe() + " is not (batch or 1, num_heads or 1, " +
         std::to_string(p.S) + ", " + std::to_string(p.total) + ")");
  Bnsh K = bnsh(p.B, p.kvN, p.present_len, p.H), V = bnsh(p.B, p.kvN, p.present_len, p.H);
  Bnsh y = bnsh(p.B, p.N, p.S, p.H);
  const int64_t group = p.N / p.kvN;
  for (int64_t b = 0; b < p.B; ++b) {
    const int64_t T = p.seqlens[b], Q = std::min(p.S, T), P = T - Q;
    for (int64_t n = 0; n < p.kvN; ++n) {
      for (int64_t s = 0; s < P; ++s)
        for (int64_t h = 0; h < p.H; ++h) {
          K.at(b, n, s, h) = c.t(3).f[((b * p.kvN + n) * p.past_len + s) * p.H + h];
          V.at(b, n, s, h) = c.t(4).f[((b * p.kvN + n) * p.past_len + s) * p.H + h];
        }
      for (int64_t s = 0; s < p.S && P + s < p.present_len; ++s) {
        std::vector<double> kr = head_row(tk, b, s, k_col + n * p.H, p.H);
        const std::vector<double> vr = head_row(tv, b, s, v_col + n * p.H, p.H);
        if (p.rotary) rotate(kr.data(), P + s, p, *cs, *sn);
        for (int64_t h = 0; h < p.H; ++h) {
          K.at(b, n, P + s, h) = round_to(tk.dt, kr[h]);
          V.at(b, n, P + s, h) = vr[h];
        }
      }
    }
    std::vector<double> row(static_cast<size_t>(T));
    for (int64_t n = 0; n < p.N; ++n)
      for (int64_t s = 0; s < Q; ++s) {
        std::vector<double> qr = head_row(q, b, s, n * p.H, p.H);
        if (p.rotary) rotate(qr.data(), P + s, p, *cs, *sn);
        const int64_t pos = P + s;
        const int64_t last = p.causal ? pos : T - 1;
        // local_window_size keys end at the query's own position (ONNX Runtime's CPU kernel).
        const int64_t first = p.window > 0 ? std::max<int64_t>(0, pos - p.window + 1) : 0;
        for (int64_t j = 0; j < T; ++j) {
          if (j < first || j > last) {
            row[j] = kNegInf;
            continue;
          }
          double dot = 0;
          for (int64_t h = 0; h < p.H; ++h) dot += round_to(q.dt, qr[h]) * K.at(b, n / group, j, h);
          row[j] = softcap_of(dot * p.scale, p.cap);
          if (bias) {
            const int64_t bb = b % bias->shape[0], bn = n % bias->shape[1];
            row[j] += bias->f[((bb * bias->shape[1] + bn) * p.S + s) * p.total + j];
          }
        }
        softmax_row(row, false);
        for (int64_t j = first; j <= last; ++j)
          for (int64_t h = 0; h < p.H; ++h) y.at(b, n, s, h) += row[j] * V.at(b, n / group, j, h);
      }
  }
  c.set(0, merge_heads(y, q.dt));
  if (c.want(1)) c.set(1, as_tensor(K, q.dt));
  if (c.want(2)) c.set(2, as_tensor(V, q.dt));
}

}  // namespace

void register_attention_ops(KernelTable& t) {
  t["Attention"] = k_attention;
  t["com.microsoft.GroupQueryAttention"] = k_group_query_attention;
}

}  // namespace condlint::exec
