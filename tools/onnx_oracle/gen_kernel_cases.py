#!/usr/bin/env python3
"""One-node ONNX models for the kernels of src/exec/kernels_norm.cpp and kernels_attention.cpp, with ONNX Runtime's outputs as golden data.

Each case is corpus-modern/kernels/<op>_<variant>/model.onnx with test_data_set_0/{input,output}_K.pb: inputs drawn
from numpy's default_rng(SEED + case index), outputs computed by ONNX Runtime (CPUExecutionProvider,
ORT_DISABLE_ALL). ai.onnx ops are checked with onnx.checker.check_model(full_check=True) first; ONNX Runtime's own
ops (SimplifiedLayerNormalization, which ORT registers in the ai.onnx domain, and com.microsoft ones) are unknown
to onnx's checker and are checked only by ONNX Runtime loading them.

    tools/venv/bin/python tools/onnx_oracle/gen_kernel_cases.py [--out corpus-modern/kernels]
"""
import argparse
import os
import shutil

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

SEED = 47
MS = "com.microsoft"

F32, F16, F64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE
I32, BOOL = TensorProto.INT32, TensorProto.BOOL
NP = {F32: np.float32, F16: np.float16, F64: np.float64, TensorProto.INT64: np.int64, I32: np.int32, BOOL: np.bool_}


def case(op, variant, inputs, outputs, attrs=None, opset=23, domain="", ms=False):
    """inputs: [(name, elem_type, shape or ndarray (fixed values))], outputs: [(name or '', elem_type)]."""
    return dict(op=op, variant=variant, inputs=inputs, outputs=outputs, attrs=attrs or {}, opset=opset,
                domain=domain, ms=ms)


def rms_cases():
    out = []
    for v, x, s, attrs, t in [
        ("last_axis", [2, 3, 8], [8], {}, F32),
        ("axis1_eps", [2, 3, 4], [3, 4], {"axis": 1, "epsilon": 1e-3}, F32),
        ("axis_neg2_scale_broadcast", [2, 3, 4], [1, 4], {"axis": -2}, F32),
        ("rank1", [6], [6], {"epsilon": 0.1}, F32),
        ("f64", [3, 5], [5], {}, F64),
        ("f16_stash_f32", [2, 6], [6], {"stash_type": 1}, F16),
    ]:
        out.append(case("RMSNormalization", v, [("X", t, x), ("scale", t, s)], [("Y", t)], attrs, opset=23))
    return out


def sln_cases():
    out = []
    for v, x, s, attrs, outs in [
        ("last_axis", [2, 3, 8], [8], {}, [("Y", F32)]),
        ("inv_std_var", [2, 3, 4], [4], {"epsilon": 1e-6}, [("Y", F32), ("inv_std_var", F32)]),
        ("axis1", [2, 3, 4], [3, 4], {"axis": 1}, [("Y", F32), ("inv_std_var", F32)]),
        ("axis_neg2", [2, 2, 3, 4], [3, 4], {"axis": -2, "epsilon": 1e-2}, [("Y", F32)]),
    ]:
        out.append(case("SimplifiedLayerNormalization", v, [("X", F32, x), ("scale", F32, s)], outs, attrs,
                        opset=17, ms=True))
    return out


def sksln_cases():
    out = []
    H = 8
    for v, x, skip, bias, outs, attrs in [
        ("bias_all_outputs", [2, 3, H], [2, 3, H], True,
         [("output", F32), ("mean", F32), ("inv_std_var", F32), ("input_skip_bias_sum", F32)], {"epsilon": 1e-5}),
        ("no_bias_skip_broadcast", [2, 3, H], [3, H], False,
         [("output", F32), ("", F32), ("", F32), ("input_skip_bias_sum", F32)], {"epsilon": 1e-6}),
        ("tokens_2d_default_eps", [5, H], [5, H], True, [("output", F32)], {}),
        ("inv_std_var_only", [1, 4, H], [1, 4, H], False, [("output", F32), ("", F32), ("inv_std_var", F32)],
         {"epsilon": 1e-2}),
    ]:
        ins = [("input", F32, x), ("skip", F32, skip), ("gamma", F32, [H])] + ([("bias", F32, [H])] if bias else [])
        out.append(case("SkipSimplifiedLayerNormalization", v, ins, outs, attrs, opset=17, domain=MS, ms=True))
    return out


def rois(rng, n, h, w, batch):
    """RoIs [x1, y1, x2, y2] in image coordinates (some past the edges, one degenerate) and their batch indices."""
    r = []
    for k in range(n):
        x1, y1 = rng.uniform(-2, w * 0.8), rng.uniform(-2, h * 0.8)
        r.append([x1, y1, x1 + rng.uniform(0.5, w), y1 + rng.uniform(0.5, h)])
    r[-1] = [3.0, 2.0, 3.2, 2.1]  # smaller than one pixel
    return np.array(r, np.float32), np.array([k % batch for k in range(n)], np.int64)


def roi_cases():
    out = []
    for v, opset, attrs, scale_img in [
        ("op16_avg_half_pixel", 16, {"output_height": 3, "output_width": 2, "sampling_ratio": 2,
                                     "spatial_scale": 0.5}, 2.0),
        ("op16_avg_adaptive", 16, {"output_height": 2, "output_width": 3, "sampling_ratio": 0}, 1.0),
        ("op16_avg_output_half_pixel", 16, {"output_height": 2, "output_width": 2, "sampling_ratio": 0,
                                            "coordinate_transformation_mode": "output_half_pixel",
                                            "spatial_scale": 0.25}, 4.0),
        ("op16_max", 16, {"mode": "max", "output_height": 2, "output_width": 2, "sampling_ratio": 2}, 1.0),
        ("op16_defaults", 16, {}, 1.0),
        ("op10_avg", 10, {"output_height": 3, "output_width": 3, "sampling_ratio": 0, "spatial_scale": 0.5}, 2.0),
        ("op10_max", 10, {"mode": "max", "output_height": 2, "output_width": 3, "sampling_ratio": 1}, 1.0),
    ]:
        out.append(case("RoiAlign", v, [("X", F32, [2, 3, 6, 7]), ("rois", F32, ("rois", scale_img)),
                                        ("batch_indices", TensorProto.INT64, ("batch_indices",))],
                        [("Y", F32)], attrs, opset=opset))
    return out


def attention_cases():
    """ai.onnx Attention (opset 23): 4-D and 3-D inputs, GQA head grouping, causal, masks, past/present, softcap,
    the qk_matmul_output modes, f16."""
    out = []
    Y3 = [("Y", F32)]
    for v, ins, outs, attrs in [
        ("4d_diff_v_head", [("Q", F32, [2, 2, 3, 4]), ("K", F32, [2, 2, 5, 4]), ("V", F32, [2, 2, 5, 6])], Y3, {}),
        ("4d_gqa_causal_scale", [("Q", F32, [1, 4, 4, 8]), ("K", F32, [1, 2, 4, 8]), ("V", F32, [1, 2, 4, 8])], Y3,
         {"is_causal": 1, "scale": 0.3}),
        ("3d_gqa_bool_mask", [("Q", F32, [2, 3, 16]), ("K", F32, [2, 5, 8]), ("V", F32, [2, 5, 8]),
                              ("attn_mask", BOOL, [3, 5])], Y3, {"q_num_heads": 4, "kv_num_heads": 2}),
        ("4d_past_present_causal_float_mask",
         [("Q", F32, [1, 2, 2, 4]), ("K", F32, [1, 2, 2, 4]), ("V", F32, [1, 2, 2, 4]), ("attn_mask", F32, [1, 1, 2, 5]),
          ("past_key", F32, [1, 2, 3, 4]), ("past_value", F32, [1, 2, 3, 4])],
         [("Y", F32), ("present_key", F32), ("present_value", F32)], {"is_causal": 1}),
        ("3d_past_present", [("Q", F32, [1, 2, 8]), ("K", F32, [1, 2, 8]), ("V", F32, [1, 2, 8]), ("", F32, None),
                             ("past_key", F32, [1, 2, 3, 4]), ("past_value", F32, [1, 2, 3, 4])],
         [("Y", F32), ("present_key", F32), ("present_value", F32)], {"q_num_heads": 2, "kv_num_heads": 2}),
        ("4d_softcap_qk_mode1", [("Q", F32, [1, 2, 3, 4]), ("K", F32, [1, 2, 3, 4]), ("V", F32, [1, 2, 3, 4])],
         [("Y", F32), ("", F32), ("", F32), ("qk_matmul_output", F32)], {"softcap": 2.0, "qk_matmul_output_mode": 1,
                                                                         "scale": 1.5}),
        ("4d_qk_mode0", [("Q", F32, [1, 2, 3, 4]), ("K", F32, [1, 2, 3, 4]), ("V", F32, [1, 2, 3, 4])],
         [("Y", F32), ("", F32), ("", F32), ("qk_matmul_output", F32)], {"qk_matmul_output_mode": 0}),
        ("4d_mask_qk_mode2", [("Q", F32, [1, 2, 3, 4]), ("K", F32, [1, 2, 3, 4]), ("V", F32, [1, 2, 3, 4]),
                              ("attn_mask", F32, [2, 3, 3])],
         [("Y", F32), ("", F32), ("", F32), ("qk_matmul_output", F32)], {"qk_matmul_output_mode": 2}),
        ("4d_causal_qk_mode3", [("Q", F32, [1, 2, 3, 4]), ("K", F32, [1, 2, 3, 4]), ("V", F32, [1, 2, 3, 4])],
         [("Y", F32), ("", F32), ("", F32), ("qk_matmul_output", F32)], {"qk_matmul_output_mode": 3, "is_causal": 1}),
        ("4d_f16_causal", [("Q", F16, [1, 2, 4, 8]), ("K", F16, [1, 2, 4, 8]), ("V", F16, [1, 2, 4, 8])], [("Y", F16)],
         {"is_causal": 1}),
    ]:
        out.append(case("Attention", v, ins, outs, attrs, opset=23))
    return out


def gqa_cases():
    """com.microsoft GroupQueryAttention: separate and packed QKV, first prompt and decoding with a KV cache, rotary
    (halves and interleaved, full and partial), softcap, local window, attention_bias, a batch of two lengths,
    bidirectional (causal=0)."""
    out = []

    def cache(rng_seed, rows, half):
        pos = np.arange(rows)[:, None] * (1.0 / (10000 ** (np.arange(half) / half)))[None, :]
        return np.cos(pos).astype(np.float32), np.sin(pos).astype(np.float32)

    def gqa(v, B, S, P, N, kvN, H, attrs, packed=False, rotary_half=None, seqlens=None, bias=False, total=None):
        T = P + S
        seqlens = np.array(seqlens if seqlens is not None else [T - 1] * B, np.int32)
        total = T if total is None else total
        if packed:
            ins = [("query", F32, [B, S, (N + 2 * kvN) * H]), ("", F32, None), ("", F32, None)]
        else:
            ins = [("query", F32, [B, S, N * H]), ("key", F32, [B, S, kvN * H]), ("value", F32, [B, S, kvN * H])]
        ins += [("past_key", F32, [B, kvN, P, H]), ("past_value", F32, [B, kvN, P, H]), ("seqlens_k", I32, seqlens),
                ("total_sequence_length", I32, np.array(total, np.int32))]
        if rotary_half:
            cs, sn = cache(0, 16, rotary_half)
            ins += [("cos_cache", F32, cs), ("sin_cache", F32, sn)]
        elif bias:
            ins += [("", F32, None), ("", F32, None)]
        if bias:
            ins += [("", F32, None), ("attention_bias", F32, [B, 1, S, total])]
        outs = [("output", F32), ("present_key", F32), ("present_value", F32)]
        out.append(case("GroupQueryAttention", v, ins, outs, dict(num_heads=N, kv_num_heads=kvN, **attrs), opset=17,
                        domain=MS, ms=True))

    gqa("prompt_gqa", 1, 4, 0, 4, 2, 8, {})
    gqa("prompt_packed_rotary_scale", 1, 5, 0, 2, 1, 16, {"do_rotary": 1, "scale": 0.25}, packed=True, rotary_half=8)
    gqa("decode_past_rotary_interleaved", 2, 1, 3, 2, 2, 16, {"do_rotary": 1, "rotary_interleaved": 1},
        rotary_half=8)
    gqa("decode_partial_rotary_softcap", 1, 1, 4, 4, 1, 32, {"do_rotary": 1, "softcap": 1.5}, rotary_half=8)
    gqa("continued_prompt_past", 1, 3, 2, 2, 1, 16, {"do_rotary": 1}, packed=True, rotary_half=8)
    gqa("prompt_local_window", 1, 6, 0, 2, 2, 8, {"local_window_size": 2})
    gqa("decode_attention_bias", 2, 1, 3, 2, 1, 8, {}, bias=True)
    gqa("decode_batch_two_lengths", 2, 1, 4, 2, 1, 16, {"do_rotary": 1}, rotary_half=8, seqlens=[4, 2])
    gqa("prompt_bidirectional", 1, 4, 0, 2, 1, 8, {"causal": 0})
    return out


def build(c, out_shapes=None):
    node = helper.make_node(c["op"], [n for n, _, _ in c["inputs"]], [n for n, _ in c["outputs"]],
                            domain=c["domain"], **c["attrs"])
    ins = []
    for n, t, s in c["inputs"]:
        if not n:
            continue
        shape = [None] if isinstance(s, tuple) and s[0] == "batch_indices" else (
            [None, 4] if isinstance(s, tuple) else list(s.shape) if isinstance(s, np.ndarray) else s)
        ins.append(helper.make_tensor_value_info(n, t, shape))
    named = [(n, t) for n, t in c["outputs"] if n]
    outs = [helper.make_tensor_value_info(n, t, out_shapes[k] if out_shapes else None) for k, (n, t) in enumerate(named)]
    graph = helper.make_graph([node], f"{c['op']}_{c['variant']}", ins, outs)
    opsets = [helper.make_opsetid("", c["opset"])] + ([helper.make_opsetid(MS, 1)] if c["domain"] == MS else [])
    ir = 10 if c["opset"] >= 21 else 8
    model = helper.make_model(graph, opset_imports=opsets, ir_version=ir, producer_name="gen_kernel_cases.py")
    if not c["ms"] and out_shapes is not None:
        onnx.checker.check_model(model, full_check=True)
    return model


def feeds(c, rng):
    f = {}
    x_shape = None
    for n, t, s in c["inputs"]:
        if not n:
            continue
        if isinstance(s, tuple) and s[0] == "rois":
            _, _, h, w = x_shape
            r, b = rois(rng, 5, h * s[1], w * s[1], x_shape[0])
            f[n], f["batch_indices"] = r, b
        elif isinstance(s, tuple):
            continue
        elif isinstance(s, np.ndarray):
            f[n] = s.astype(NP[t])
        elif t == BOOL:
            f[n] = rng.random(s) < 0.7
        else:
            f[n] = rng.standard_normal(s).astype(NP[t])
            if n in ("scale", "gamma"):
                f[n] = (1 + 0.5 * f[n]).astype(NP[t])
            x_shape = x_shape or s
    return f


def run_ort(model, f):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, f)


def write(c, model, f, res, root):
    d = os.path.join(root, f"{c['op']}_{c['variant']}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, n in enumerate(n for n, _, _ in c["inputs"] if n):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(f[n], n).SerializeToString())
    names = [n for n, _ in c["outputs"] if n]
    for k, (n, v) in enumerate(zip(names, res)):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(v, n).SerializeToString())


def write_onnx_node_tests(root):
    """onnx's own node tests of Attention (onnx.backend.test.case.node, the models and the reference's outputs; the
    installed onnx ships no data for them), without the _expanded function-body variants."""
    from onnx.backend.test.case import node as node_cases
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [t for t in node_cases.collect_testcases("Attention") if not t.name.endswith("_expanded")]
    shutil.rmtree(root, ignore_errors=True)
    for t in cases:
        d = os.path.join(root, t.name)
        os.makedirs(d)
        onnx.save(t.model, os.path.join(d, "model.onnx"))
        ins = [i.name for i in t.model.graph.input]
        outs = [o.name for o in t.model.graph.output]
        for k, (inputs, outputs) in enumerate(t.data_sets):
            ds = os.path.join(d, f"test_data_set_{k}")
            os.makedirs(ds)
            for j, (n, v) in enumerate(zip(ins, inputs)):
                with open(os.path.join(ds, f"input_{j}.pb"), "wb") as fh:
                    fh.write(numpy_helper.from_array(v, n).SerializeToString())
            for j, (n, v) in enumerate(zip(outs, outputs)):
                with open(os.path.join(ds, f"output_{j}.pb"), "wb") as fh:
                    fh.write(numpy_helper.from_array(v, n).SerializeToString())
    print(f"{len(cases)} onnx node tests of Attention in {root}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "corpus-modern", "kernels"))
    a = ap.parse_args()
    cases = rms_cases() + sln_cases() + sksln_cases() + roi_cases() + attention_cases() + gqa_cases()
    for k, c in enumerate(cases):
        rng = np.random.default_rng(SEED + k)
        f = feeds(c, rng)
        res = run_ort(build(c), f)
        model = build(c, [list(r.shape) for r in res])  # declared output shapes as ORT computed them; checked
        res = run_ort(model, f)
        write(c, model, f, res, a.out)
        print(f"{c['op']}_{c['variant']}: " + ", ".join(f"{r.dtype}{list(r.shape)}" for r in res))
    write_onnx_node_tests(os.path.join(a.out, "onnx_node_tests"))
    print(f"{len(cases)} cases; onnx {onnx.__version__}, onnxruntime {ort.__version__}, numpy {np.__version__}")


if __name__ == "__main__":
    main()
