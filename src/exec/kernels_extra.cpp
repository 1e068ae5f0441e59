// Less common kernels: Einsum, Unique, NonMaxSuppression, MaxUnpool, StringNormalizer, training optimizers,
// BatchNormalization in training mode.
#include <cmath>
#include <map>
#include <numeric>

#include "exec/kernel_util.hpp"

namespace condlint::exec {
namespace {

void k_einsum(OpCtx& c) {
  std::string eq;
  for (char ch : c.attr_s("equation", ""))
    if (ch != ' ') eq += ch;
  const auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t p = 0;;) {
    const auto q = lhs.find(',', p);
    terms.push_back(lhs.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  if (terms.size() != c.n_in())
    fail("Einsum equation has " + std::to_string(terms.size()) + " operands, the node " + std::to_string(c.n_in()));
  // Expand "..." into letters from a reserved range.
  size_t ell_rank = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const auto p = terms[k].find("...");
    if (p != std::string::npos) {
      if (terms[k].size() - 3 > c.t(k).rank())
        fail("Einsum term '" + terms[k] + "' has more letters than its operand has dimensions");
      ell_rank = std::max(ell_rank, c.t(k).rank() - (terms[k].size() - 3));
    }
  }
  if (ell_rank > 20) throw ExecError(ErrKind::Unsupported, "Einsum with more than 20 broadcast dimensions");
  std::string ell;
  for (size_t k = 0; k < ell_rank; ++k) ell += static_cast<char>('A' + k);
  auto expand = [&](std::string t, size_t rank) {
    const auto p = t.find("...");
    if (p == std::string::npos) return t;
    const size_t n = rank - (t.size() - 3);
    if (n > ell_rank) fail("Einsum ellipsis does not fit");
    return t.substr(0, p) + ell.substr(ell_rank - n) + t.substr(p + 3);
  };
  std::map<char, int64_t> size;
  for (size_t k = 0; k < terms.size(); ++k) {
    terms[k] = expand(terms[k], c.t(k).rank());
    if (terms[k].size() != c.t(k).rank()) fail("Einsum term '" + terms[k] + "' does not match operand rank");
    for (size_t a = 0; a < terms[k].size(); ++a) {
      auto [it, fresh] = size.emplace(terms[k][a], c.t(k).shape[a]);
      if (!fresh && it->second != c.t(k).shape[a]) {
        if (it->second == 1) it->second = c.t(k).shape[a];
        else if (c.t(k).shape[a] != 1) fail("Einsum dimension mismatch for '" + std::string(1, terms[k][a]) + "'");
      }
    }
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    const auto p = out.find("...");
    if (p != std::string::npos) out = out.substr(0, p) + ell + out.substr(p + 3);
  } else {
    std::map<char, int> cnt;
    for (auto& t : terms)
      for (char ch : t) cnt[ch]++;
    out = ell;
    for (auto& [ch, n] : cnt)
      if (n == 1 && !(ch >= 'A' && ch < 'A' + static_cast<int>(ell_rank))) out += ch;
  }
  std::string all = out;
  for (auto& [ch, n] : size)
    if (out.find(ch) == std::string::npos) all += ch;
  Dims od, full;
  for (char ch : out) {
    if (!size.count(ch)) fail("Einsum output letter not in the inputs");
    od.push_back(size[ch]);
  }
  for (char ch : all) full.push_back(size[ch]);
  const DT dt = c.t(0).dt;
  Tensor y(dt, od);
  std::vector<Dims> st(terms.size());
  for (size_t k = 0; k < terms.size(); ++k) {
    const Dims own = strides_of(c.t(k).shape);
    st[k].assign(all.size(), 0);
    for (size_t a = 0; a < terms[k].size(); ++a) {
      const size_t pos = all.find(terms[k][a]);
      if (c.t(k).shape[a] != 1) st[k][pos] += own[a];
    }
  }
  const int64_t n_out = checked_numel(od);
  const int64_t n_all = checked_numel(full);
  const int64_t inner = n_out ? n_all / n_out : 0;
  std::vector<int64_t> idx(all.size(), 0);
  std::vector<double> acc(n_out, 0.0);
  for (int64_t k = 0; k < n_all; ++k) {
    double p = 1;
    for (size_t t = 0; t < terms.size(); ++t) {
      int64_t off = 0;
      for (size_t a = 0; a < all.size(); ++a) off += idx[a] * st[t][a];
      p *= c.t(t).getf(off);
    }
    acc[inner ? k / inner : 0] += p;
    for (int a = static_cast<int>(all.size()) - 1; a >= 0; --a) {
      if (++idx[a] < full[a]) break;
      idx[a] = 0;
    }
  }
  for (int64_t k = 0; k < n_out; ++k) {
    if (is_float(dt)) y.f[k] = acc[k];
    else y.i[k] = static_cast<int64_t>(acc[k]);
  }
  normalize(y);
  c.set(0, std::move(y));
}

void k_unique(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (is_string(x.dt)) throw ExecError(ErrKind::Unsupported, "unsupported op Unique on strings at " + c.path);
  const bool sorted = c.attr_i("sorted", 1) != 0;
  const bool has_axis = c.has_attr("axis");
  const int64_t axis = has_axis ? norm_axis(c.attr_i("axis", 0), x.rank()) : 0;
  const Tensor flat = has_axis ? x : reshape_copy(x, {x.numel()});
  const int64_t len = flat.shape[axis];
  std::vector<Tensor> slices;
  for (int64_t k = 0; k < len; ++k) slices.push_back(take_index(flat, axis, k));
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t e = 0; e < slices[a].numel(); ++e) {
      const double u = slices[a].getf(e), v = slices[b].getf(e);
      if (u != v) return u < v;
    }
    return false;
  };
  auto same = [&](int64_t a, int64_t b) { return !less(a, b) && !less(b, a); };
  std::vector<int64_t> firsts;  // first occurrence of each distinct slice
  std::vector<int64_t> inverse(len);
  for (int64_t k = 0; k < len; ++k) {
    int64_t found = -1;
    for (size_t u = 0; u < firsts.size(); ++u)
      if (same(firsts[u], k)) {
        found = static_cast<int64_t>(u);
        break;
      }
    if (found < 0) {
      firsts.push_back(k);
      found = static_cast<int64_t>(firsts.size()) - 1;
    }
    inverse[k] = found;
  }
  std::vector<int64_t> order(firsts.size());
  std::iota(order.begin(), order.end(), 0);
  if (sorted)
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return less(firsts[a], firsts[b]); });
  std::vector<int64_t> rank_of(order.size());
  for (size_t r = 0; r < order.size(); ++r) rank_of[order[r]] = static_cast<int64_t>(r);
  std::vector<TensorP> ys;
  std::vector<int64_t> idx, inv(len), counts(order.size(), 0);
  for (int64_t o : order) {
    ys.push_back(std::make_shared<const Tensor>(slices[firsts[o]]));
    idx.push_back(firsts[o]);
  }
  for (int64_t k = 0; k < len; ++k) {
    inv[k] = rank_of[inverse[k]];
    counts[inv[k]]++;
  }
  Dims elem = slices.empty() ? Dims{} : slices[0].shape;
  c.set(0, stack(ys, axis, x.dt, elem));
  const int64_t n = static_cast<int64_t>(order.size());
  if (c.want(1)) c.set(1, i64_tensor(idx, {n}));
  if (c.want(2)) c.set(2, i64_tensor(inv, {len}));
  if (c.want(3)) c.set(3, i64_tensor(counts, {n}));
}

void k_nms(OpCtx& c) {
  const Tensor& boxes = c.t(0);
  const Tensor& scores = c.t(1);
  const int64_t max_out = c.has(2) && c.t(2).numel() ? c.t(2).geti(0) : 0;
  const double iou_th = c.has(3) && c.t(3).numel() ? c.t(3).getf(0) : 0.0;
  const bool has_score_th = c.has(4) && c.t(4).numel();
  const double score_th = has_score_th ? c.t(4).getf(0) : 0.0;
  const bool center = c.attr_i("center_point_box", 0) != 0;
  if (boxes.rank() != 3 || scores.rank() != 3 || boxes.shape[2] != 4 || boxes.shape[0] != scores.shape[0] ||
      boxes.shape[1] != scores.shape[2])
    fail("NonMaxSuppression boxes/scores shapes do not agree");
  const int64_t B = boxes.shape[0], N = boxes.shape[1], C = scores.shape[1];
  auto corners = [&](int64_t b, int64_t i, double out[4]) {
    const int64_t o = (b * N + i) * 4;
    double a = boxes.getf(o), bb = boxes.getf(o + 1), cc = boxes.getf(o + 2), d = boxes.getf(o + 3);
    if (center) {
      out[0] = bb - d / 2;
      out[2] = bb + d / 2;  // y
      out[1] = a - cc / 2;
      out[3] = a + cc / 2;  // x
    } else {
      out[0] = std::min(a, cc);
      out[2] = std::max(a, cc);
      out[1] = std::min(bb, d);
      out[3] = std::max(bb, d);
    }
  };
  auto iou = [&](int64_t b, int64_t i, int64_t j) {
    double p[4], q[4];
    corners(b, i, p);
    corners(b, j, q);
    const double ih = std::max(0.0, std::min(p[2], q[2]) - std::max(p[0], q[0]));
    const double iw = std::max(0.0, std::min(p[3], q[3]) - std::max(p[1], q[1]));
    const double inter = ih * iw;
    const double uni = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter;
    return uni > 0 ? inter / uni : 0.0;
  };
  std::vector<int64_t> sel;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t cl = 0; cl < C; ++cl) {
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < N; ++i)
        if (!has_score_th || scores.getf((b * C + cl) * N + i) > score_th) cand.push_back(i);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t i, int64_t j) {
        return scores.getf((b * C + cl) * N + i) > scores.getf((b * C + cl) * N + j);
      });
      std::vector<int64_t> kept;
      for (int64_t i : cand) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        bool ok = true;
        for (int64_t j : kept)
          if (iou(b, i, j) > iou_th) {
            ok = false;
            break;
          }
        if (ok) kept.push_back(i);
      }
      for (int64_t i : kept) sel.insert(sel.end(), {b, cl, i});
    }
  c.set(0, i64_tensor(sel, {static_cast<int64_t>(sel.size() / 3), 3}));
}

void k_max_unpool(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& ind = c.t(1);
  const auto ks = c.attr_ints("kernel_shape");
  auto strides = c.attr_ints("strides");
  auto pads = c.attr_ints("pads");
  const size_t nd = x.rank() >= 2 ? x.rank() - 2 : 0;
  if (ks.size() != nd) fail("MaxUnpool kernel_shape does not match the spatial rank");
  if (strides.empty()) strides.assign(nd, 1);
  if (pads.empty()) pads.assign(2 * nd, 0);
  Dims od{x.shape[0], x.shape[1]};
  for (size_t d = 0; d < nd; ++d) od.push_back((x.shape[2 + d] - 1) * strides[d] + ks[d] - pads[d] - pads[d + nd]);
  const Dims def = od;  // indices address the tensor MaxPool saw, which has the default shape
  if (c.has(2)) od = to_i64s(c.t(2));
  if (od.size() != def.size()) fail("MaxUnpool output_shape has the wrong rank");
  Tensor y(x.dt, od);
  const Dims ds = strides_of(def), os = strides_of(od);
  for (int64_t k = 0; k < x.numel(); ++k) {
    int64_t rem = ind.geti(k), dst = 0;
    if (rem < 0 || rem >= checked_numel(def)) fail("MaxUnpool index out of range");
    for (size_t a = 0; a < def.size(); ++a) {
      const int64_t co = rem / ds[a];
      rem %= ds[a];
      if (co >= od[a]) fail("MaxUnpool index outside output_shape");
      dst += co * os[a];
    }
    copy_elem(x, k, y, dst);
  }
  c.set(0, std::move(y));
}

void k_string_normalizer(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (!is_string(x.dt)) fail("StringNormalizer needs strings");
  const std::string action = c.attr_s("case_change_action", "NONE");
  const bool cs = c.attr_i("is_case_sensitive", 0) != 0;
  const auto* sw = c.attr("stopwords");
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  auto upper = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
  };
  std::vector<std::string> kept;
  for (int64_t k = 0; k < x.numel(); ++k) {
    bool stop = false;
    if (sw)
      for (const auto& w : sw->strings())
        if (cs ? w == x.s[k] : lower(w) == lower(x.s[k])) stop = true;
    if (stop) continue;
    kept.push_back(action == "LOWER" ? lower(x.s[k]) : action == "UPPER" ? upper(x.s[k]) : x.s[k]);
  }
  const bool two_d = x.rank() == 2;
  if (kept.empty()) kept.push_back("");
  Tensor y(DT::Str, two_d ? Dims{1, static_cast<int64_t>(kept.size())} : Dims{static_cast<int64_t>(kept.size())});
  for (size_t k = 0; k < kept.size(); ++k) y.s[k] = kept[k];
  c.set(0, std::move(y));
}

// Training optimizers (ai.onnx.preview.training). Inputs: R, T, then groups of n tensors.
size_t groups(const OpCtx& c, size_t per) {
  if (c.n_in() < 2 || (c.n_in() - 2) % per) fail("optimizer input count does not fit");
  for (size_t k = 2; k < c.n_in(); ++k)
    if (!is_float(c.t(k).dt)) fail("optimizer inputs must be floating point");
  return (c.n_in() - 2) / per;
}

void k_adagrad(OpCtx& c) {
  const size_t n = groups(c, 3);
  const double R = c.t(0).getf(0), T = c.t(1).getf(0);
  const double decay = c.attr_f("decay_factor", 0), eps = c.attr_f("epsilon", 1e-6f),
               norm = c.attr_f("norm_coefficient", 0);
  const double r = R / (1 + T * decay);
  for (size_t g = 0; g < n; ++g) {
    const Tensor &X = c.t(2 + g), &G = c.t(2 + n + g), &H = c.t(2 + 2 * n + g);
    Tensor xo(X.dt, X.shape), ho(H.dt, H.shape);
    for (int64_t k = 0; k < X.numel(); ++k) {
      const double gr = norm * X.getf(k) + G.getf(k);
      const double h = H.getf(k) + gr * gr;
      ho.f[k] = h;
      xo.f[k] = X.getf(k) - r * gr / (std::sqrt(h) + eps);
    }
    normalize(xo);
    normalize(ho);
    c.set(g, std::move(xo));
    c.set(n + g, std::move(ho));
  }
}

void k_momentum(OpCtx& c) {
  const size_t n = groups(c, 3);
  const double R = c.t(0).getf(0), T = c.t(1).getf(0);
  const double alpha = c.attr_f("alpha", 0), beta = c.attr_f("beta", 0), norm = c.attr_f("norm_coefficient", 0);
  const bool nesterov = c.attr_s("mode", "standard") == "nesterov";
  const double b = T > 0 ? beta : 1.0;
  for (size_t g = 0; g < n; ++g) {
    const Tensor &X = c.t(2 + g), &G = c.t(2 + n + g), &V = c.t(2 + 2 * n + g);
    Tensor xo(X.dt, X.shape), vo(V.dt, V.shape);
    for (int64_t k = 0; k < X.numel(); ++k) {
      const double gr = norm * X.getf(k) + G.getf(k);
      const double v = alpha * V.getf(k) + b * gr;
      vo.f[k] = v;
      xo.f[k] = nesterov ? X.getf(k) - R * (gr + alpha * v) : X.getf(k) - R * v;
    }
    normalize(xo);
    normalize(vo);
    c.set(g, std::move(xo));
    c.set(n + g, std::move(vo));
  }
}

void k_adam(OpCtx& c) {
  const size_t n = groups(c, 4);
  const double R = c.t(0).getf(0), T = c.t(1).getf(0);
  const double alpha = c.attr_f("alpha", 0.9f), beta = c.attr_f("beta", 0.999f), eps = c.attr_f("epsilon", 1e-6f);
  const double norm = c.attr_f("norm_coefficient", 0), post = c.attr_f("norm_coefficient_post", 0);
  const double Ra = T > 0 ? R * std::sqrt(1 - std::pow(beta, T)) / (1 - std::pow(alpha, T)) : R;
  for (size_t g = 0; g < n; ++g) {
    const Tensor &X = c.t(2 + g), &G = c.t(2 + n + g), &V = c.t(2 + 2 * n + g), &H = c.t(2 + 3 * n + g);
    Tensor xo(X.dt, X.shape), vo(V.dt, V.shape), ho(H.dt, H.shape);
    for (int64_t k = 0; k < X.numel(); ++k) {
      const double gr = norm * X.getf(k) + G.getf(k);
      const double v = alpha * V.getf(k) + (1 - alpha) * gr;
      const double h = beta * H.getf(k) + (1 - beta) * gr * gr;
      vo.f[k] = v;
      ho.f[k] = h;
      xo.f[k] = (1 - post) * (X.getf(k) - Ra * v / (std::sqrt(h) + eps));
    }
    normalize(xo);
    normalize(vo);
    normalize(ho);
    c.set(g, std::move(xo));
    c.set(n + g, std::move(vo));
    c.set(2 * n + g, std::move(ho));
  }
}

}  // namespace

void register_extra_ops(KernelTable& t) {
  t["Einsum"] = k_einsum;
  t["Unique"] = k_unique;
  t["NonMaxSuppression"] = k_nms;
  t["MaxUnpool"] = k_max_unpool;
  t["StringNormalizer"] = k_string_normalizer;
  t["ai.onnx.preview.training.Adagrad"] = k_adagrad;
  t["ai.onnx.preview.training.Momentum"] = k_momentum;
  t["ai.onnx.preview.training.Adam"] = k_adam;
}

}  // namespace condlint::exec
