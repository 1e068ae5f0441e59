#!/usr/bin/env python3
"""Generates ONNX models with one If whose branches give different shapes, followed by a chain of consumers.

From a seed, one model (stdlib random, so a seed always gives the same model):

* the If's branches give shapes that differ in a chosen way (`shape_kind`): the same shape (a control), the same rank
  with other dims, other ranks, a scalar, an empty dim, or dims the graph inputs leave unknown (dim_param);
* each branch output is computed (Identity or Relu of a graph input) or a Constant; it is declared with its shape or
  with its type only, and the If output is declared in value_info with its type only, with symbolic dims, or not at all;
* the condition is a boolean graph input, or computed from data (ReduceSum(x) > 0), so both values select a branch;
* 1-3 consumer nodes follow (MatMul, Gemm, Add, Mul, Where, Concat, Reshape, Flatten, Transpose, Squeeze, Unsqueeze,
  Expand, Slice, Gather, Split, Softmax, ReduceSum, ArgMax, Tile, Pad, LayerNormalization, Relu), their other
  operands initializers sized from the shape one branch gives there (so some fit both branches, some only one);
* the last value goes out through SequenceConstruct (a sequence output needs no shape, so no declaration of the
  graph output contradicts a branch).

Every model is checked with onnx.checker.check_model(m, full_check=True); a draw that fails is skipped and counted.
The metadata of a model says what it is and which inputs select each branch (`runs`), for the oracle
(run_differential.py). As a script: writes the models of --seeds A:B to --out DIR with a meta.json beside them.
"""
import argparse
import json
import math
import os
import random
import sys

OPSET = 18
IR_VERSION = 9

SHAPE_KINDS = ["same", "same_rank_other_dims", "other_ranks", "scalar", "empty_dim", "unknown_dims"]
CONSUMERS = ["MatMul", "Gemm", "Add", "Mul", "Where", "Concat", "Reshape", "Flatten", "Transpose", "Squeeze",
             "Unsqueeze", "Expand", "Slice", "Gather", "Split", "Softmax", "ReduceSum", "ArgMax", "Tile", "Pad",
             "LayerNormalization", "Relu"]


class Fails(Exception):
    """A branch's shape the sizing model says the consumer rejects (for sizing only: the oracle is the runtime)."""


def prod(dims):
    return int(math.prod(dims)) if dims else 1


def broadcast(*shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        dims = {s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0}
        dims.discard(1)
        if len(dims) > 1:
            raise Fails("broadcast")
        out.append(dims.pop() if dims else 1)
    return out


def norm_axis(axis, rank):
    a = axis + rank if axis < 0 else axis
    if not 0 <= a < rank:
        raise Fails("axis")
    return a


def factorize(n, rng, rank):
    """A list of `rank` dims whose product is n."""
    dims = [1] * rank
    if n == 0:
        dims[rng.randrange(rank)] = 0
        return dims
    f, m = 2, n
    while m > 1:
        while m % f == 0:
            dims[rng.randrange(rank)] *= f
            m //= f
        f += 1
    return dims


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, stem):
        self.count += 1
        return f"{stem}_{self.count}"

    def init(self, stem, dims, dtype="float"):
        import numpy as np
        from onnx import numpy_helper
        n = self.name(stem)
        if dtype == "float":
            arr = np.array([self.rng.uniform(-1, 1) for _ in range(prod(dims))], dtype=np.float32).reshape(dims)
        elif dtype == "bool":
            arr = np.array([self.rng.random() < 0.5 for _ in range(prod(dims))], dtype=bool).reshape(dims)
        else:
            arr = np.array(dims if dtype == "dims" else dtype, dtype=np.int64)
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def zero(self):
        import numpy as np
        from onnx import numpy_helper
        n = self.name("zero")
        self.inits.append(numpy_helper.from_array(np.array(0, dtype=np.float32), n))
        return n

    def ints(self, stem, values):
        import numpy as np
        from onnx import numpy_helper
        n = self.name(stem)
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=np.int64), n))
        return n

    def node(self, op, inputs, n_out=1, **attrs):
        from onnx import helper
        outs = [self.name(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name(op), **attrs))
        return outs[0] if n_out == 1 else outs


def add_consumer(b, op, v, ref):
    """Appends consumer `op` of value `v` to builder b, its operands sized from `ref` (a shape one branch gives at v).
    Returns (output name, description, shape function: input shape -> output shape, raising Fails)."""
    rng = b.rng
    r = len(ref)
    if op == "MatMul":
        k = rng.randint(1, 4)
        if rng.random() < 0.6 or r == 0:
            K = ref[-1] if r else rng.randint(1, 3)
            w = b.init("w", [K, k])
            def fn(s):
                if not s or s[-1] != K:
                    raise Fails("matmul")
                return s[:-1] + [k]
            return b.node("MatMul", [v, w]), f"MatMul(v, f32[{K},{k}])", fn
        K = ref[-2] if r >= 2 else ref[0]
        w = b.init("w", [k, K])
        def fn(s):
            if not s:
                raise Fails("matmul")
            if len(s) == 1:
                if s[0] != K:
                    raise Fails("matmul")
                return [k]
            if s[-2] != K:
                raise Fails("matmul")
            return s[:-2] + [k, s[-1]]
        return b.node("MatMul", [w, v]), f"MatMul(f32[{k},{K}], v)", fn
    if op == "Gemm":
        ta, tb = rng.random() < 0.3, rng.random() < 0.3
        K = (ref[0] if ta else ref[1]) if r == 2 else (ref[-1] if r else 2)
        n = rng.randint(1, 4)
        w = b.init("w", [n, K] if tb else [K, n])
        ins = [v, w]
        c = rng.choice([None, [n], [1]])
        if c:
            ins.append(b.init("c", c))
        def fn(s):
            if len(s) != 2 or (s[0] if ta else s[1]) != K:
                raise Fails("gemm")
            return [s[1] if ta else s[0], n]
        return (b.node("Gemm", ins, transA=int(ta), transB=int(tb)),
                f"Gemm(v, f32{[n, K] if tb else [K, n]}, transA={int(ta)}, transB={int(tb)}, C={c})", fn)
    if op in ("Add", "Mul", "Where"):
        def operand():
            L = rng.randint(0, r)
            dims = list(ref[r - L:]) if L else []
            dims = [1 if rng.random() < 0.3 else d for d in dims]
            if rng.random() < 0.15:
                dims = [rng.randint(1, 3)] + dims
            return dims
        o = operand()
        if op != "Where":
            w = b.init("w", o)
            return b.node(op, [v, w]), f"{op}(v, f32{o})", lambda s: broadcast(s, o)
        c = operand()
        cond = b.init("m", c, "bool")
        w = b.init("w", o)
        return b.node("Where", [cond, v, w]), f"Where(bool{c}, v, f32{o})", lambda s: broadcast(c, s, o)
    if op == "Concat":
        if r == 0:
            a, o = 0, [2]
        else:
            a = rng.randrange(r)
            o = list(ref)
            o[a] = rng.randint(1, 3)
        axis = a - r if (r and rng.random() < 0.4) else a
        w = b.init("w", o)
        def fn(s):
            if len(s) != len(o):
                raise Fails("concat rank")
            x = norm_axis(axis, len(s))
            if any(s[k] != o[k] for k in range(len(s)) if k != x):
                raise Fails("concat dims")
            return [s[k] + o[k] if k == x else s[k] for k in range(len(s))]
        return b.node("Concat", [v, w], axis=axis), f"Concat(v, f32{o}, axis={axis})", fn
    if op == "Reshape":
        n = prod(ref)
        target = factorize(n, rng, rng.randint(1, 3))
        if n > 0 and rng.random() < 0.4:
            target[rng.randrange(len(target))] = -1
        elif rng.random() < 0.3:
            same = [k for k in range(min(r, len(target))) if target[k] == ref[k]]
            if same:
                target[rng.choice(same)] = 0
        t = b.ints("shape", target)
        def fn(s):
            out = []
            for k, d in enumerate(target):
                if d == 0:
                    if k >= len(s):
                        raise Fails("reshape 0")
                    out.append(s[k])
                else:
                    out.append(d)
            if -1 in out:
                rest = prod([d for d in out if d != -1])
                if rest == 0 or prod(s) % rest:
                    raise Fails("reshape")
                out[out.index(-1)] = prod(s) // rest
            elif prod(out) != prod(s):
                raise Fails("reshape")
            return out
        return b.node("Reshape", [v, t]), f"Reshape(v, {target})", fn
    if op == "Flatten":
        axis = rng.randint(-r, r) if r else rng.choice([0, 1])
        def fn(s):
            a = axis + len(s) if axis < 0 else axis
            if not 0 <= a <= len(s):
                raise Fails("flatten")
            return [prod(s[:a]), prod(s[a:])]
        return b.node("Flatten", [v], axis=axis), f"Flatten(v, axis={axis})", fn
    if op == "Transpose":
        if r and rng.random() < 0.7:
            perm = list(range(r))
            rng.shuffle(perm)
            def fn(s):
                if len(s) != len(perm):
                    raise Fails("perm")
                return [s[p] for p in perm]
            return b.node("Transpose", [v], perm=perm), f"Transpose(v, perm={perm})", fn
        return b.node("Transpose", [v]), "Transpose(v)", lambda s: list(reversed(s))
    if op == "Squeeze":
        ones = [k for k, d in enumerate(ref) if d == 1]
        if ones and rng.random() < 0.7:
            axes = [rng.choice(ones)]
        elif r and rng.random() < 0.5:
            axes = [rng.randrange(r)]
        else:
            axes = None
        if axes and rng.random() < 0.3:
            axes = [axes[0] - r]
        def fn(s):
            if axes is None:
                return [d for d in s if d != 1]
            x = norm_axis(axes[0], len(s))
            if s[x] != 1:
                raise Fails("squeeze")
            return s[:x] + s[x + 1:]
        ins = [v] + ([b.ints("axes", axes)] if axes is not None else [])
        return b.node("Squeeze", ins), f"Squeeze(v, axes={axes})", fn
    if op == "Unsqueeze":
        axis = rng.randint(-(r + 1), r)
        def fn(s):
            x = norm_axis(axis, len(s) + 1)
            return s[:x] + [1] + s[x:]
        return b.node("Unsqueeze", [v, b.ints("axes", [axis])]), f"Unsqueeze(v, axes=[{axis}])", fn
    if op == "Expand":
        shape = [rng.randint(2, 3) if d == 1 and rng.random() < 0.6 else d for d in ref]
        if rng.random() < 0.3:
            shape = [rng.randint(1, 3)] + shape
        if rng.random() < 0.2 and shape:
            shape = shape[1:]
        return (b.node("Expand", [v, b.ints("shape", shape)]), f"Expand(v, {shape})",
                lambda s: broadcast(s, shape))
    if op == "Slice":
        a = rng.randrange(r) if r else 0
        d = ref[a] if r else 1
        start = rng.randint(0, max(d - 1, 0))
        end = start + rng.randint(1, 2)
        axis = a - r if (r and rng.random() < 0.3) else a
        ins = [v, b.ints("starts", [start]), b.ints("ends", [end]), b.ints("axes", [axis])]
        def fn(s):
            x = norm_axis(axis, len(s))
            out = list(s)
            out[x] = max(0, min(end, s[x]) - min(start, s[x]))
            return out
        return b.node("Slice", ins), f"Slice(v, starts=[{start}], ends=[{end}], axes=[{axis}])", fn
    if op == "Gather":
        a = rng.randrange(r) if r else 0
        d = ref[a] if r else 1
        idx = [rng.randint(0, max(d - 1, 0)) for _ in range(rng.randint(1, 2))]
        axis = a - r if (r and rng.random() < 0.3) else a
        def fn(s):
            x = norm_axis(axis, len(s))
            if any(i >= s[x] for i in idx):
                raise Fails("gather index")
            return s[:x] + [len(idx)] + s[x + 1:]
        return (b.node("Gather", [v, b.ints("indices", idx)], axis=axis),
                f"Gather(v, indices={idx}, axis={axis})", fn)
    if op == "Split":
        a = rng.randrange(r) if r else 0
        d = ref[a] if r else 1
        split = [d] if d < 2 else (lambda k: [k, d - k])(rng.randint(1, d - 1))
        outs = b.node("Split", [v, b.ints("split", split)], n_out=len(split), axis=a)
        out = outs if isinstance(outs, str) else outs[0]
        def fn(s):
            x = norm_axis(a, len(s))
            if sum(split) != s[x]:
                raise Fails("split")
            return s[:x] + [split[0]] + s[x + 1:]
        return out, f"Split(v, split={split}, axis={a})[0]", fn
    if op == "Softmax":
        axis = rng.randint(-r, r - 1) if r else -1
        def fn(s):
            norm_axis(axis, len(s))
            return list(s)
        return b.node("Softmax", [v], axis=axis), f"Softmax(v, axis={axis})", fn
    if op == "ReduceSum":
        axes = sorted(rng.sample(range(r), rng.randint(1, r))) if r and rng.random() < 0.8 else []
        keep = rng.random() < 0.5
        ins = [v] + ([b.ints("axes", axes)] if axes else [])
        def fn(s):
            xs = {norm_axis(a, len(s)) for a in axes} if axes else set(range(len(s)))
            return [1 if k in xs else d for k, d in enumerate(s) if keep or k not in xs]
        return b.node("ReduceSum", ins, keepdims=int(keep)), f"ReduceSum(v, axes={axes}, keepdims={int(keep)})", fn
    if op == "ArgMax":
        axis = rng.randint(-r, r - 1) if r else 0
        keep = rng.random() < 0.5
        am = b.node("ArgMax", [v], axis=axis, keepdims=int(keep))
        out = b.node("Cast", [am], to=1)
        def fn(s):
            x = norm_axis(axis, len(s))
            if s[x] == 0:
                raise Fails("argmax of empty")
            return [1 if k == x else d for k, d in enumerate(s) if keep or k != x]
        return out, f"Cast(ArgMax(v, axis={axis}, keepdims={int(keep)}))", fn
    if op == "Tile":
        reps = [rng.randint(1, 2) for _ in range(r)] or [2]
        def fn(s):
            if len(s) != len(reps):
                raise Fails("tile")
            return [d * k for d, k in zip(s, reps)]
        return b.node("Tile", [v, b.ints("repeats", reps)]), f"Tile(v, {reps})", fn
    if op == "Pad":
        pads = [rng.randint(0, 1) for _ in range(2 * r)] or [1, 1]
        def fn(s):
            if len(pads) != 2 * len(s):
                raise Fails("pad")
            n = len(s)
            return [d + pads[k] + pads[n + k] for k, d in enumerate(s)]
        return b.node("Pad", [v, b.ints("pads", pads)]), f"Pad(v, {pads})", fn
    if op == "LayerNormalization":
        axis = rng.randint(-r, r - 1) if r else -1
        scale = list(ref[norm_axis(axis, r):]) if r else [1]
        ins = [v, b.init("scale", scale)]
        if rng.random() < 0.5:
            ins.append(b.init("bias", scale))
        def fn(s):
            x = norm_axis(axis, len(s))
            if s[x:] != scale:
                raise Fails("layernorm")
            return list(s)
        return b.node("LayerNormalization", ins, axis=axis), f"LayerNormalization(v, axis={axis}, scale=f32{scale})", fn
    if op == "Relu":
        return b.node("Relu", [v]), "Relu(v)", list
    raise ValueError(op)


def draw_shapes(rng, kind):
    def rshape(rank):
        return [rng.randint(1, 4) for _ in range(rank)]
    if kind == "same":
        t = rshape(rng.randint(1, 3))
        e = list(t)
    elif kind == "same_rank_other_dims":
        t = rshape(rng.randint(1, 3))
        e = list(t)
        k = rng.randrange(len(t))
        e[k] = rng.choice([d for d in range(1, 6) if d != t[k]])
    elif kind == "other_ranks":
        r1, r2 = rng.sample([1, 2, 3], 2)
        t = rshape(r1)
        if rng.random() < 0.5:  # sharing the trailing dims (broadcasts like a rank change)
            e = t[-r2:] if r2 <= r1 else rshape(r2 - r1) + t
        else:
            e = rshape(r2)
    elif kind == "scalar":
        t, e = [], rshape(rng.randint(1, 2))
    elif kind == "empty_dim":
        t = rshape(rng.randint(1, 3))
        e = list(t)
        e[rng.randrange(len(e))] = 0
    else:  # unknown_dims: drawn like one of the others, the inputs then leave dims unknown
        t, e = draw_shapes(rng, rng.choice(["same", "same_rank_other_dims", "other_ranks"]))
    if rng.random() < 0.5:
        t, e = e, t
    return t, e


def generate(seed):
    """(ModelProto or None, meta). None: the draw failed onnx's full check (meta['skip'] says why)."""
    import onnx
    from onnx import TensorProto, helper

    rng = random.Random(seed)
    kind = rng.choice(SHAPE_KINDS)
    shapes = dict(zip(("then", "else"), draw_shapes(rng, kind)))
    cond_kind = rng.choice(["input", "data"])
    b = Builder(rng)
    graph_inputs = []
    feeds = {}           # input name -> (dims, dtype)
    symbolic = {}        # input name -> {axis: dim_param}
    branches = {}
    branch_desc = {}
    for br in ("then", "else"):
        dims = shapes[br]
        src = rng.choice(["Identity", "Relu", "Constant"]) if kind != "unknown_dims" else rng.choice(["Identity", "Relu"])
        out = f"{br}_out"
        if src == "Constant":
            import numpy as np
            from onnx import numpy_helper
            val = np.array([rng.uniform(-1, 1) for _ in range(prod(dims))], dtype=np.float32).reshape(dims)
            node = helper.make_node("Constant", [], [out], value=numpy_helper.from_array(val, f"{br}_value"))
            decl_dims = dims
        else:
            x = "a" if br == "then" else "b"
            decl_dims = list(dims)
            if kind == "unknown_dims":
                syms = {k: f"{x}{k}" for k in range(len(dims)) if rng.random() < 0.7} or (
                    {0: f"{x}0"} if dims else {})
                symbolic[x] = syms
                decl_dims = [syms.get(k, d) for k, d in enumerate(dims)]
            graph_inputs.append(helper.make_tensor_value_info(x, TensorProto.FLOAT, decl_dims))
            feeds[x] = dims
            node = helper.make_node(src, [x], [out])
        decl = rng.choice(["shape", "type"])
        out_vi = (helper.make_tensor_value_info(out, TensorProto.FLOAT, decl_dims) if decl == "shape"
                  else helper.make_tensor_value_info(out, TensorProto.FLOAT, None))
        branches[br] = helper.make_graph([node], f"{br}_branch", [], [out_vi])
        branch_desc[br] = {"dims": dims, "declared": [str(d) for d in decl_dims] if decl == "shape" else "type only",
                           "source": src}
    if cond_kind == "input":
        graph_inputs.insert(0, helper.make_tensor_value_info("cond", TensorProto.BOOL, []))
        cond = "cond"
        select = {"then": {"cond": True}, "else": {"cond": False}}
    else:
        graph_inputs.insert(0, helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]))
        s = b.node("ReduceSum", ["x"], keepdims=0)
        cond = b.node("Greater", [s, b.zero()])
        select = {"then": {"x": 1.0}, "else": {"x": -1.0}}
    b.nodes.append(helper.make_node("If", [cond], ["y"], name="pick", then_branch=branches["then"],
                                    else_branch=branches["else"]))
    y_decl = rng.choice(["none", "type", "symbolic"])
    value_info = []
    if y_decl == "type":
        value_info.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, None))
    elif y_decl == "symbolic":
        if len(shapes["then"]) == len(shapes["else"]):
            value_info.append(helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                            [f"y{k}" for k in range(len(shapes["then"]))]))
        else:
            y_decl = "none"
    # The consumers, each sized from the shape one branch (still running in the sizing model) gives there.
    current = {"then": list(shapes["then"]), "else": list(shapes["else"])}
    v = "y"
    chain = []
    for _ in range(rng.randint(1, 3)):
        alive = [br for br in ("then", "else") if current[br] is not None]
        if not alive:
            break
        sized_from = rng.choice(alive)
        op = rng.choice(CONSUMERS)
        v, desc, fn = add_consumer(b, op, v, current[sized_from])
        for br in ("then", "else"):
            try:
                current[br] = fn(current[br]) if current[br] is not None else None
            except Fails:
                current[br] = None
        chain.append({"op": op, "desc": desc, "sized_from": sized_from})
    seq = b.node("SequenceConstruct", [v])
    graph = helper.make_graph(b.nodes, f"if_consumers_{seed}", graph_inputs,
                              [helper.make_tensor_sequence_value_info(seq, TensorProto.FLOAT, None)],
                              initializer=b.inits, value_info=value_info)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION,
                              producer_name="gen_if_consumers")
    # The inputs of each run: the values that select each branch; with unknown dims, the drawn sizes and sizes one
    # larger (a failure under every size is the branch's; one under some sizes only depends on the sizes).
    variants = [0, 1] if symbolic else [0]
    runs = []
    for br in ("then", "else"):
        for var in variants:
            f = {}
            for name, dims in feeds.items():
                f[name] = {"dims": [d + var if k in symbolic.get(name, {}) else d for k, d in enumerate(dims)],
                           "dtype": "float32"}
            for name, value in select[br].items():
                f[name] = ({"dims": [], "dtype": "bool", "value": value} if name == "cond"
                           else {"dims": [3], "dtype": "float32", "value": value})
            runs.append({"branch": br, "variant": var, "feeds": f})
    meta = {"seed": seed, "shape_kind": kind, "cond": cond_kind, "branches": branch_desc, "if_output_declared": y_decl,
            "chain": chain, "sizing_model": current, "runs": runs}
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as e:  # noqa: BLE001 - any rejection skips the draw
        meta["skip"] = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        return None, meta
    return model, meta


def parse_seeds(text):
    a, _, b = text.partition(":")
    return range(int(a), int(b)) if b else range(int(a), int(a) + 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", required=True, help="A:B (seeds A..B-1) or one seed")
    ap.add_argument("--out", required=True, help="directory for seed_N.onnx and meta.json")
    args = ap.parse_args()
    import onnx
    os.makedirs(args.out, exist_ok=True)
    metas = []
    for seed in parse_seeds(args.seeds):
        model, meta = generate(seed)
        if model is not None:
            meta["path"] = os.path.join(args.out, f"seed_{seed}.onnx")
            onnx.save(model, meta["path"])
        metas.append(meta)
    with open(os.path.join(args.out, "meta.json"), "w") as f:
        json.dump(metas, f, indent=1)
    skipped = sum(1 for m in metas if "skip" in m)
    print(f"gen_if_consumers: {len(metas) - skipped} models, {skipped} draws skipped (onnx's full check)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
