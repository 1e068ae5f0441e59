"""Makes corpus-tflite/: real TFLite models with IF / WHILE made by TensorFlow's converter, golden data from the
LiteRT interpreter (ai_edge_litert), and flatbuffer-edited mutants judged by the same interpreter.

    bash tools/tflite_corpus/setup.sh && tools/tflite_corpus/.venv/bin/python tools/tflite_corpus/gen.py [OUT]

OUT defaults to corpus-tflite/ of this checkout. Random weights with fixed seeds; nothing is downloaded.
Every interpreter run happens in a subprocess (judge.py), so an abort or a crash is recorded, not fatal.
"""
import os
import sys

# This folder holds inspect.py, which would shadow the standard library's inspect: drop the folder from sys.path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
import copy  # noqa: E402
import hashlib  # noqa: E402
import importlib.metadata  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("PYTHONHASHSEED", "0")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

def _local(name):
    """Imports tools/tflite_corpus/<name>.py (the folder is kept off sys.path, see above)."""
    import importlib.util
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


M = _local("models")
tfl = _local("tfl")
S = tfl.S

ROOT = os.path.dirname(os.path.dirname(HERE))
TF_VERSION = tf.__version__
LITERT_VERSION = importlib.metadata.version("ai-edge-litert")
NP_TYPES = {S.TensorType.FLOAT32: np.float32, S.TensorType.INT32: np.int32, S.TensorType.BOOL: np.bool_,
            S.TensorType.INT64: np.int64, S.TensorType.FLOAT16: np.float16, S.TensorType.INT8: np.int8,
            S.TensorType.UINT8: np.uint8}
JUDGE_TIMEOUT = 60


def convert(fn):
    cf = fn.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([cf], fn)
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]   # no Flex / select TF ops
    return conv.convert()


def judge(model_path, inputs, outputs, save=None, details=None):
    """inputs: [(tensor index, np array, resize dims or None)]. Returns {stage: (ok, msg)}, plus 'signal', and with
    details ([[subgraph, tensor]]) 'details': {stage: [[subgraph, tensor, shape, shape_signature]]} (judge.py)."""
    with tempfile.TemporaryDirectory() as td:
        job = {"model": model_path, "inputs": [], "outputs": outputs, "save": save}
        if details:
            job["details"] = details
        for k, (idx, arr, resize) in enumerate(inputs):
            p = os.path.join(td, f"in{k}.npy")
            np.save(p, arr)
            job["inputs"].append({"index": idx, "npy": p, "resize": resize})
        jp = os.path.join(td, "job.json")
        json.dump(job, open(jp, "w"))
        res = {}
        try:
            r = subprocess.run([sys.executable, os.path.join(HERE, "judge.py"), jp], capture_output=True, text=True,
                               timeout=JUDGE_TIMEOUT, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0"))
            rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = "timeout", (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")
        for line in out.splitlines():
            if line.startswith("STAGE "):
                _, stage, verdict, *msg = line.split(" ", 3) + [""]
                res[stage] = (verdict == "ok", (msg[0] if msg else "").strip())
            elif line.startswith("DETAILS "):
                _, stage, js = line.split(" ", 2)
                res.setdefault("details", {})[stage] = json.loads(js)
        err_lines = [l for l in err.splitlines() if l.strip() and "XNNPACK delegate" not in l
                     and "absl::InitializeLog" not in l]
        res["stderr"] = " | ".join(" ".join(l.split()) for l in err_lines)[:600]
        if rc == "timeout":
            res["signal"] = f"timeout after {JUDGE_TIMEOUT} s"
        elif rc < 0:
            res["signal"] = f"killed by signal {signal.Signals(-rc).name}"
        elif rc != 0:
            res["signal"] = f"exit code {rc}"
        return res


def verdict_of(res):
    """One-word-ish verdict for a judge result: ok, or the first failing stage and its message."""
    for st in ("constructor", "allocate_tensors", "set_inputs", "invoke", "get_outputs"):
        if st not in res:
            return f"{st}: no answer ({res.get('signal', 'no output')}){'; stderr: ' + res['stderr'] if res['stderr'] else ''}"
        ok, msg = res[st]
        if not ok:
            return f"{st} FAILED: {msg}"
    return "ok"


def io_plan(m, arrays):
    """Main subgraph's inputs in subgraph 0 order: [(tensor index, array, resize)], declared dims for each."""
    sg = m.subgraphs[0]
    plan = []
    for ti in tfl.lst(sg.inputs):
        t = sg.tensors[ti]
        a = arrays[ti]
        shape = tfl.lst(t.shape)
        plan.append((ti, a, list(a.shape) if list(a.shape) != shape else None))
    return plan


def fmt_t(sg, ti):
    """'t2 [1, 1] sig [1, -1]' (no 'sig' when the converter wrote no shape_signature)."""
    t = sg.tensors[ti]
    sig = f" sig {tfl.lst(t.shapeSignature)}" if t.shapeSignature is not None else ""
    return f"t{ti} {tfl.lst(t.shape)}{sig}"


def control_flow_shapes(m):
    """What the converter wrote for every IF / WHILE: its outputs and its branch / body outputs (shape and
    shape_signature); and the [subgraph, tensor] list to ask the interpreter about."""
    facts, want = [], []
    for si, oi, op in tfl.ops(m):
        o = op.builtinOptions
        sg = m.subgraphs[si]
        outs = tfl.lst(op.outputs)
        if isinstance(o, S.IfOptionsT):
            th, el = m.subgraphs[o.thenSubgraphIndex], m.subgraphs[o.elseSubgraphIndex]
            facts.append(f"converter: IF (subgraph {si} op {oi}) outputs " + ", ".join(fmt_t(sg, t) for t in outs)
                         + f"; then subgraph {o.thenSubgraphIndex} outputs " + ", ".join(fmt_t(th, t) for t in tfl.lst(th.outputs))
                         + f"; else subgraph {o.elseSubgraphIndex} outputs " + ", ".join(fmt_t(el, t) for t in tfl.lst(el.outputs)))
            want += [[si, t] for t in outs] + [[o.thenSubgraphIndex, t] for t in tfl.lst(th.outputs)] + \
                [[o.elseSubgraphIndex, t] for t in tfl.lst(el.outputs)]
        elif isinstance(o, S.WhileOptionsT):
            body = m.subgraphs[o.bodySubgraphIndex]
            cond = m.subgraphs[o.condSubgraphIndex]
            facts.append(f"converter: WHILE (subgraph {si} op {oi}) inputs " + ", ".join(fmt_t(sg, t) for t in tfl.lst(op.inputs))
                         + "; outputs " + ", ".join(fmt_t(sg, t) for t in outs)
                         + f"; cond subgraph {o.condSubgraphIndex} inputs " + ", ".join(fmt_t(cond, t) for t in tfl.lst(cond.inputs))
                         + f"; body subgraph {o.bodySubgraphIndex} inputs " + ", ".join(fmt_t(body, t) for t in tfl.lst(body.inputs))
                         + "; body outputs " + ", ".join(fmt_t(body, t) for t in tfl.lst(body.outputs)))
            want += [[si, t] for t in outs] + [[o.bodySubgraphIndex, t] for t in tfl.lst(body.outputs)]
    return facts, want


def interpreter_shapes(per_ds):
    """per_ds: [judge 'details' dict per data set] -> one note: shape / shape_signature per tensor after
    allocate_tensors (once if the same in every data set) and after invoke (per data set)."""
    fmt = lambda e: f"sg{e[0]} t{e[1]} " + ("not listed" if e[2] is None else f"shape {e[2]} sig {e[3]}")
    alloc = [tuple(fmt(e) for e in d.get("allocate_tensors", [])) for d in per_ds]
    parts = []
    if alloc and all(a == alloc[0] for a in alloc):
        parts.append("after allocate_tensors (every data set): " + ", ".join(alloc[0]))
    else:
        parts.append("after allocate_tensors: " + " / ".join(f"{k}: " + ", ".join(a) for k, a in enumerate(alloc)))
    parts.append("after invoke: " + " / ".join(f"{k}: " + ", ".join(fmt(e) for e in d.get("invoke", []))
                                                for k, d in enumerate(per_ds)))
    return "LiteRT get_tensor_details(subgraph) " + "; ".join(parts)


def convert_saved_model(fn):
    mod = tf.Module()
    mod.f = fn
    with tempfile.TemporaryDirectory() as td:
        tf.saved_model.save(mod, td, signatures=fn)
        conv = tf.lite.TFLiteConverter.from_saved_model(td)
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
        return conv.convert()


def short_error(e):
    lines = [" ".join(l.split()) for l in str(e).splitlines() if l.strip()]
    keep = [l for l in lines if "error" in l.lower() or "failed" in l.lower()] or lines
    return f"{type(e).__name__}: " + " / ".join(keep[:3])[:500]


def write_model(out, spec):
    try:
        b = convert(spec.fn)
    except Exception as e:  # noqa: BLE001 - a model the converter refuses is a finding, recorded in the MANIFEST
        errs = [f"from_concrete_functions: {short_error(e)}"]
        try:
            convert_saved_model(spec.fn)
            errs.append("from_saved_model: converted (not used)")
        except Exception as e2:  # noqa: BLE001
            errs.append(f"from_saved_model: {short_error(e2)}")
        print(f"{spec.name}: NOT CONVERTED {errs}", flush=True)
        shutil.rmtree(os.path.join(out, spec.name), ignore_errors=True)
        return ([spec.name, "-", "-", f"models.{spec.name}", TF_VERSION, LITERT_VERSION, "-", "-", "-", "-",
                 "not converted (TFLITE_BUILTINS only)", spec.notes + "; " + "; ".join(errs)], None, None)
    m = tfl.load(b)
    d = os.path.join(out, spec.name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    path = os.path.join(d, spec.name + ".tflite")
    open(path, "wb").write(b)
    sg = m.subgraphs[0]
    in_names = [tfl.tname(sg.tensors[i]) for i in tfl.lst(sg.inputs)]
    argnames = list(inspect.signature(spec.fn.python_function).parameters)
    notes = [spec.notes]
    if any(n.split(":")[0] not in argnames for n in in_names):
        raise SystemExit(f"{spec.name}: subgraph 0 input names {in_names} do not match {argnames}")
    if in_names != argnames:
        notes.append(f"subgraph-0 input order {in_names} differs from the tf.function's {argnames}")
    ds_labels, verdicts, diffs, per_ds = [], [], [], []
    cf_facts, want = control_flow_shapes(m) if spec.report_shapes else ([], None)
    for k, (label, feed) in enumerate(spec.datasets):
        dd = os.path.join(d, f"test_data_set_{k}")
        os.makedirs(dd)
        arrays = {ti: feed[tfl.tname(sg.tensors[ti]).split(":")[0]] for ti in tfl.lst(sg.inputs)}
        plan = io_plan(m, arrays)
        for j, (_, a, _) in enumerate(plan):
            np.save(os.path.join(dd, f"input_{j}.npy"), a)
        res = judge(path, plan, tfl.lst(sg.outputs), save=dd, details=want)
        per_ds.append(res.get("details", {}))
        v = verdict_of(res)
        verdicts.append(v)
        ds_labels.append(f"{k}:{label}")
        if v == "ok":   # the TensorFlow function on the same inputs, as a check of the converter (not stored)
            ref = spec.fn(**{a: tf.constant(feed[a]) for a in argnames})
            ref = [r.numpy() for r in (ref if isinstance(ref, (tuple, list)) else [ref])]
            got = [np.load(os.path.join(dd, f"output_{j}.npy")) for j in range(len(tfl.lst(sg.outputs)))]
            if len(ref) != len(got):
                diffs.append(f"{k}: {len(got)} outputs vs TF {len(ref)}")
            else:
                diffs.append(max(float(np.max(np.abs(g.astype(np.float64) - r.astype(np.float64)))) if g.size else 0.0
                                 for g, r in zip(got, ref)))
    names = tfl.code_names(m)
    n_if = sum(1 for _ in tfl.ops(m, tfl.IF))
    n_while = sum(1 for _ in tfl.ops(m, tfl.WHILE))
    sigs = [tfl.lst(sg.tensors[i].shapeSignature) for i in tfl.lst(sg.inputs) if sg.tensors[i].shapeSignature is not None]
    if any(-1 in s for s in sigs):
        notes.append("shape_signature " + " ".join(str(s) for s in sigs))
    if diffs:
        notes.append("max |LiteRT - TF| per data set: " + " ".join(d if isinstance(d, str) else f"{d:.3g}" for d in diffs))
    if not (n_if or n_while):
        notes.append("NO IF/WHILE in the converted model")
    if spec.report_shapes:
        notes += cf_facts + [interpreter_shapes(per_ds)]
        notes.append("output shapes per data set: " + " ".join(
            f"{k}:" + ",".join(str(list(np.load(os.path.join(d, f"test_data_set_{k}", f"output_{j}.npy")).shape))
                               for j in range(len(tfl.lst(sg.outputs)))) for k in range(len(spec.datasets))))
    notes.append(f"{len(b)} bytes")
    verdict = "ok" if all(v == "ok" for v in verdicts) else "; ".join(f"{k}: {v}" for k, v in enumerate(verdicts))
    row = [spec.name, f"{spec.name}/{spec.name}.tflite", hashlib.md5(b).hexdigest(), f"models.{spec.name}",
           TF_VERSION, LITERT_VERSION, ",".join(names), str(n_if), str(n_while), " ".join(ds_labels), verdict,
           "; ".join(n for n in notes if n)]
    print(f"{spec.name}: {len(b)} B ops={names} IF={n_if} WHILE={n_while} verdict={verdict}", flush=True)
    return row, b, m


def tsv(path, header, rows):
    with open(path, "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(c).replace("\t", " ").replace("\n", " ") for c in r) + "\n")


# ---------------------------------------------------------------- mutants

def first(m, code, where=None):
    for si, oi, op in tfl.ops(m, code):
        if where is None or where(si, op):
            return si, oi, op
    raise LookupError(code)


def branch_out_tensor(m, sub, k=0):
    sg = m.subgraphs[sub]
    return sg.tensors[tfl.lst(sg.outputs)[k]]


def mut_then_oor(m):
    si, _, op = first(m, tfl.IF)
    op.builtinOptions.thenSubgraphIndex = len(m.subgraphs) + 5
    return f"IF (subgraph {si}) then_subgraph_index = {len(m.subgraphs) + 5} (model has {len(m.subgraphs)} subgraphs)"


def mut_else_main(m):
    si, _, op = first(m, tfl.IF)
    op.builtinOptions.elseSubgraphIndex = 0
    return f"IF (subgraph {si}) else_subgraph_index = 0 (the main graph, which holds the IF)"


def mut_then_self(m):
    si, _, op = first(m, tfl.IF, lambda si, op: si != 0)
    op.builtinOptions.thenSubgraphIndex = si
    return f"inner IF (in subgraph {si}) then_subgraph_index = {si} (its own subgraph: direct recursion)"


def mut_while_body_via_if(m):
    wsi, _, wop = first(m, tfl.WHILE)
    body = wop.builtinOptions.bodySubgraphIndex
    si, _, op = first(m, tfl.IF, lambda si, op: si == body)
    old = op.builtinOptions.thenSubgraphIndex
    op.builtinOptions.thenSubgraphIndex = body
    return (f"IF in the WHILE body (subgraph {body}) then_subgraph_index {old} -> {body}: "
            f"body -> IF -> body (indirect recursion through the IF)")


def mut_if_input_removed(m):
    si, _, op = first(m, tfl.IF)
    ins = tfl.lst(op.inputs)
    op.inputs = ins[:-1]
    then = op.builtinOptions.thenSubgraphIndex
    return (f"IF (subgraph {si}) inputs {ins} -> {ins[:-1]}: {len(ins) - 2} branch inputs vs "
            f"{len(tfl.lst(m.subgraphs[then].inputs))} inputs of the then subgraph {then}")


def mut_if_output_removed(m):
    si, _, op = first(m, tfl.IF)
    outs = tfl.lst(op.outputs)
    op.outputs = outs[:-1]
    sg = m.subgraphs[si]
    gout = tfl.lst(sg.outputs)
    sg.outputs = [t for t in gout if t != outs[-1]]
    return (f"IF (subgraph {si}) outputs {outs} -> {outs[:-1]} (the branches still return {len(outs)}); "
            f"tensor {outs[-1]} also dropped from subgraph {si}'s outputs {gout} -> {tfl.lst(sg.outputs)}")


def mut_branch_out_int32(m):
    si, _, op = first(m, tfl.IF)
    then = op.builtinOptions.thenSubgraphIndex
    t = branch_out_tensor(m, then)
    t.type = S.TensorType.INT32
    return f"then subgraph {then} output 0 tensor '{tfl.tname(t)}' type FLOAT32 -> INT32 (the IF's output stays FLOAT32)"


def mut_cond_float(m):
    si, _, op = first(m, tfl.IF)
    c = m.subgraphs[si].tensors[tfl.lst(op.inputs)[0]]
    c.type = S.TensorType.FLOAT32
    return f"IF condition tensor '{tfl.tname(c)}' (a main-graph input) type BOOL -> FLOAT32; judged with 1.0 / 0.0"


def mut_cond_shape2(m):
    si, _, op = first(m, tfl.IF)
    c = m.subgraphs[si].tensors[tfl.lst(op.inputs)[0]]
    c.shape = [2]
    c.shapeSignature = None
    return f"IF condition tensor '{tfl.tname(c)}' (a main-graph input) shape [] -> [2]; judged with [c, c]"


def mut_while_cond_float(m):
    _, _, op = first(m, tfl.WHILE)
    cs = op.builtinOptions.condSubgraphIndex
    t = branch_out_tensor(m, cs)
    t.type = S.TensorType.FLOAT32
    return f"WHILE cond subgraph {cs} output '{tfl.tname(t)}' (made by LESS) type BOOL -> FLOAT32"


def mut_while_cond_two(m):
    _, _, op = first(m, tfl.WHILE)
    cs = op.builtinOptions.condSubgraphIndex
    sg = m.subgraphs[cs]
    o = tfl.lst(sg.outputs)
    sg.outputs = o + o
    return f"WHILE cond subgraph {cs} outputs {o} -> {o + o} (the same BOOL tensor twice)"


def mut_while_body_fewer(m):
    _, _, op = first(m, tfl.WHILE)
    bs = op.builtinOptions.bodySubgraphIndex
    sg = m.subgraphs[bs]
    o = tfl.lst(sg.outputs)
    sg.outputs = o[:-1]
    return f"WHILE body subgraph {bs} outputs {o} -> {o[:-1]} ({len(tfl.lst(sg.inputs))} inputs)"


def mut_while_body_type(m):
    _, _, op = first(m, tfl.WHILE)
    bs = op.builtinOptions.bodySubgraphIndex
    sg = m.subgraphs[bs]
    o = tfl.lst(sg.outputs)
    k = next(j for j, ti in enumerate(o) if sg.tensors[ti].type == S.TensorType.FLOAT32)
    t = sg.tensors[o[k]]
    t.type = S.TensorType.INT32
    return f"WHILE body subgraph {bs} output {k} '{tfl.tname(t)}' type FLOAT32 -> INT32 (body input {k} stays FLOAT32)"


def mut_unused_subgraph(m):
    si, _, op = first(m, tfl.IF)
    then = op.builtinOptions.thenSubgraphIndex
    extra = copy.deepcopy(m.subgraphs[then])
    extra.name = (tfl.sname(extra) + "_unused_copy").encode()
    m.subgraphs.append(extra)
    return f"appended subgraph {len(m.subgraphs) - 1}: a copy of then subgraph {then}, referenced by no op"


def mut_if_out_shape(m):
    si, _, op = first(m, tfl.IF)
    t = m.subgraphs[si].tensors[tfl.lst(op.outputs)[0]]
    old = tfl.lst(t.shape)
    t.shape = old[:-1] + [old[-1] + 1]
    t.shapeSignature = None
    return (f"IF output 0 tensor '{tfl.tname(t)}' (also the main graph's output) declared {old} -> {tfl.lst(t.shape)}; "
            f"both branches still give {old}")


def mut_branch_out_shape(m):
    si, _, op = first(m, tfl.IF)
    then = op.builtinOptions.thenSubgraphIndex
    t = branch_out_tensor(m, then)
    old = tfl.lst(t.shape)
    t.shape = old[:-1] + [old[-1] + 1]
    t.shapeSignature = None
    return f"then subgraph {then} output 0 tensor '{tfl.tname(t)}' declared {old} -> {tfl.lst(t.shape)} (IF output stays {old})"


def new_tensor(m, si, like=None, type_=None, shape=None, name="", data=None):
    """Appends a tensor to subgraph si (a copy of `like`'s type and shape unless given), constant if data is given."""
    sg = m.subgraphs[si]
    t = S.TensorT()
    t.type = like.type if type_ is None else type_
    t.shape = tfl.lst(like.shape) if shape is None else list(shape)
    t.name = name.encode()
    t.buffer = 0
    if data is not None:
        buf = S.BufferT()
        buf.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8).copy()
        m.buffers.append(buf)
        t.buffer = len(m.buffers) - 1
    sg.tensors.append(t)
    return len(sg.tensors) - 1


def recurse_with_matching_counts(m, si, op, target):
    """Points both branches of the IF `op` (in subgraph si) at subgraph `target`, and gives the IF as many inputs and
    outputs as `target` has, so that no count check stops the recursion: inputs [condition] + si's own inputs
    (target == si) or tensors of si with the same types; outputs: the IF's old outputs where type and shape fit,
    new unused tensors for the rest."""
    sg, tg = m.subgraphs[si], m.subgraphs[target]
    cond = tfl.lst(op.inputs)[0]
    avail = tfl.lst(sg.inputs) + [i for i in range(len(sg.tensors)) if i not in tfl.lst(sg.inputs)]
    ins = []
    for ti in tfl.lst(tg.inputs):
        want = tg.tensors[ti]
        ins.append(next(a for a in avail if sg.tensors[a].type == want.type
                        and tfl.lst(sg.tensors[a].shape) == tfl.lst(want.shape) and a not in ins))
    old_out = tfl.lst(op.outputs)
    outs = []
    for ti in tfl.lst(tg.outputs):
        want = tg.tensors[ti]
        hit = [o for o in old_out if o not in outs and sg.tensors[o].type == want.type
               and tfl.lst(sg.tensors[o].shape) == tfl.lst(want.shape)]
        outs.append(hit[0] if hit else new_tensor(m, si, like=want, name=f"recursion_out_{len(outs)}"))
    op.inputs = [cond] + ins
    op.outputs = outs
    op.builtinOptions.thenSubgraphIndex = target
    op.builtinOptions.elseSubgraphIndex = target
    return f"IF inputs -> {op.inputs}, outputs {old_out} -> {outs}, then = else = subgraph {target}"


def mut_main_recursion_counts(m):
    si, _, op = first(m, tfl.IF)
    return "IF in the main graph calls the main graph (both branches), counts and types matching: " + \
        recurse_with_matching_counts(m, si, op, 0)


def mut_self_recursion_counts(m):
    si, _, op = first(m, tfl.IF, lambda si, op: si != 0)
    return f"inner IF (in subgraph {si}) calls its own subgraph (both branches), counts and types matching: " + \
        recurse_with_matching_counts(m, si, op, si)


def mut_while_body_via_if_counts(m):
    _, _, wop = first(m, tfl.WHILE)
    body = wop.builtinOptions.bodySubgraphIndex
    si, _, op = first(m, tfl.IF, lambda si, op: si == body)
    return f"IF in the WHILE body (subgraph {body}) calls the body (both branches), counts and types matching: " + \
        recurse_with_matching_counts(m, si, op, body)


def mut_branch_out_int32_const(m):
    si, _, op = first(m, tfl.IF)
    then = op.builtinOptions.thenSubgraphIndex
    old = branch_out_tensor(m, then)
    shape = tfl.lst(old.shape)
    t = new_tensor(m, then, type_=S.TensorType.INT32, shape=shape, name="int32_const_out",
                   data=np.arange(1, 1 + int(np.prod(shape)), dtype=np.int32))
    m.subgraphs[then].outputs = [t]
    return (f"then subgraph {then} output -> a new INT32 constant tensor {t} of shape {shape} (values 1..N) "
            f"instead of its FLOAT32 op result (no op can re-set its type); the IF's output stays FLOAT32")


def mut_while_cond_float_const(m):
    _, _, op = first(m, tfl.WHILE)
    cs = op.builtinOptions.condSubgraphIndex
    t = new_tensor(m, cs, type_=S.TensorType.FLOAT32, shape=[], name="float_const_cond",
                   data=np.array(0.0, np.float32))
    m.subgraphs[cs].outputs = [t]
    return (f"WHILE cond subgraph {cs} output -> a new FLOAT32 constant scalar {t} = 0.0 instead of the LESS result "
            f"(no op can re-set its type)")


def mut_while_body_swapped(m):
    _, _, op = first(m, tfl.WHILE)
    bs = op.builtinOptions.bodySubgraphIndex
    sg = m.subgraphs[bs]
    o = tfl.lst(sg.outputs)
    a = next(j for j, ti in enumerate(o) if sg.tensors[ti].type == S.TensorType.INT32)
    b = next(j for j, ti in enumerate(o) if sg.tensors[ti].type == S.TensorType.FLOAT32)
    o2 = list(o)
    o2[a], o2[b] = o2[b], o2[a]
    sg.outputs = o2
    return (f"WHILE body subgraph {bs} outputs {o} -> {o2}: output {a} (INT32) and {b} (FLOAT32) swapped, so each "
            f"differs in type (and shape) from the body input of its position")


def mut_if_no_options(m):
    si, _, op = first(m, tfl.IF)
    op.builtinOptionsType = S.BuiltinOptions.NONE
    op.builtinOptions = None
    return f"IF (subgraph {si}) written without its IfOptions (builtin_options_type NONE)"


def mut_if_input_index_oor(m):
    si, _, op = first(m, tfl.IF)
    ins = tfl.lst(op.inputs)
    n = len(m.subgraphs[si].tensors)
    op.inputs = ins[:1] + [n + 10] + ins[2:]
    return f"IF (subgraph {si}) inputs {ins} -> {tfl.lst(op.inputs)}: tensor {n + 10} of a subgraph with {n} tensors"


def mut_branch_output_index_oor(m):
    si, _, op = first(m, tfl.IF)
    then = op.builtinOptions.thenSubgraphIndex
    sg = m.subgraphs[then]
    n = len(sg.tensors)
    old = tfl.lst(sg.outputs)
    sg.outputs = [n + 10]
    return f"then subgraph {then} outputs {old} -> [{n + 10}] (it has {n} tensors)"


MUTANTS = [  # (file stem, source model, mutation, the condlint rule it is meant for)
    ("TFL002_then_out_of_range_cond_bool_input", "cond_bool_input", mut_then_oor, "TFL002 subgraph-index-invalid"),
    ("TFL002_else_is_main_cond_bool_input", "cond_bool_input", mut_else_main, "TFL002 subgraph-index-invalid (names subgraph 0)"),
    ("TFL003_then_is_own_subgraph_cond_nested", "cond_nested", mut_then_self, "TFL003 subgraph-recursion"),
    ("TFL003_while_body_via_if_while_with_cond", "while_with_cond", mut_while_body_via_if, "TFL003 subgraph-recursion"),
    ("TFL004_if_input_removed_cond_two_outputs", "cond_two_outputs", mut_if_input_removed, "TFL004 control-flow-input-count"),
    ("C005_if_output_removed_cond_two_outputs", "cond_two_outputs", mut_if_output_removed, "C005 output-count-mismatch"),
    ("C007_branch_output_int32_cond_bool_input", "cond_bool_input", mut_branch_out_int32, "C007 output-type-mismatch"),
    ("C002_cond_float32_cond_bool_input", "cond_bool_input", mut_cond_float, "C002 condition-type"),
    ("C003_cond_shape2_cond_bool_input", "cond_bool_input", mut_cond_shape2, "C003 condition-shape"),
    ("TFL005_while_cond_float32_while_counter", "while_counter", mut_while_cond_float, "TFL005 while-cond-output"),
    ("TFL005_while_cond_two_outputs_while_counter", "while_counter", mut_while_cond_two, "TFL005 while-cond-output"),
    ("TFL006_while_body_fewer_outputs_while_tensor_state", "while_tensor_state", mut_while_body_fewer, "TFL006 while-body-mismatch"),
    ("TFL006_while_body_output_int32_while_counter", "while_counter", mut_while_body_type, "TFL006 while-body-mismatch"),
    ("TFL007_unused_subgraph_cond_bool_input", "cond_bool_input", mut_unused_subgraph, "TFL007 subgraph-unused (should run)"),
    ("C011_if_output_shape_cond_bool_input", "cond_bool_input", mut_if_out_shape, "C011 branch-shape-differs"),
    ("C011_branch_output_shape_cond_bool_input", "cond_bool_input", mut_branch_out_shape, "C011 branch-shape-differs"),
    ("TFL003_main_via_if_counts_match_cond_bool_input", "cond_bool_input", mut_main_recursion_counts,
     "TFL003 subgraph-recursion"),
    ("TFL003_then_is_own_subgraph_counts_match_cond_nested", "cond_nested", mut_self_recursion_counts,
     "TFL003 subgraph-recursion"),
    ("TFL003_while_body_via_if_counts_match_while_with_cond", "while_with_cond", mut_while_body_via_if_counts,
     "TFL003 subgraph-recursion"),
    ("C007_branch_output_int32_const_cond_bool_input", "cond_bool_input", mut_branch_out_int32_const,
     "C007 output-type-mismatch"),
    ("TFL005_while_cond_float32_const_while_counter", "while_counter", mut_while_cond_float_const, "TFL005 while-cond-output"),
    ("TFL006_while_body_outputs_swapped_while_counter", "while_counter", mut_while_body_swapped,
     "TFL006 while-body-mismatch"),
    ("TFL002_if_without_options_cond_bool_input", "cond_bool_input", mut_if_no_options, "TFL002 subgraph-index-invalid"),
    ("TFL008_if_input_index_out_of_range_cond_bool_input", "cond_bool_input", mut_if_input_index_oor,
     "TFL008 index-out-of-range"),
    ("TFL008_branch_output_index_out_of_range_cond_bool_input", "cond_bool_input", mut_branch_output_index_oor,
     "TFL008 index-out-of-range"),
]


def fit_inputs(mm, orig_m, dd):
    """The original data set's inputs, fitted to the mutant's declared input types and shapes."""
    sg, osg = mm.subgraphs[0], orig_m.subgraphs[0]
    plan, notes = [], []
    for j, ti in enumerate(tfl.lst(sg.inputs)):
        a = np.load(os.path.join(dd, f"input_{j}.npy"))
        t = sg.tensors[ti]
        want = NP_TYPES.get(t.type)
        if want is not None and a.dtype != want:
            notes.append(f"input_{j} cast {a.dtype}->{np.dtype(want)}")
            a = a.astype(want)
        shape = tfl.lst(t.shape)
        sig = tfl.lst(t.shapeSignature) if t.shapeSignature is not None else shape
        resize = None
        if list(a.shape) != shape:
            if -1 in sig:
                resize = list(a.shape)
            else:
                notes.append(f"input_{j} broadcast {list(a.shape)}->{shape}")
                a = np.ascontiguousarray(np.broadcast_to(a.reshape(-1)[:1].reshape(()) if a.size else a, shape))
        plan.append((ti, a, resize))
    return plan, notes


def make_mutants(out, originals, labels):
    inv = os.path.join(out, "invalid")
    shutil.rmtree(inv, ignore_errors=True)
    os.makedirs(inv)
    rows = []
    # Control: every source re-serialised unchanged must run as the original does.
    for name in sorted({src for _, src, _, _ in MUTANTS}):
        b = originals[name]
        rb = tfl.dump(tfl.load(b))
        with tempfile.NamedTemporaryFile(suffix=".tflite") as tf_:
            tf_.write(rb)
            tf_.flush()
            m = tfl.load(rb)
            dd = os.path.join(out, name, "test_data_set_0")
            plan, _ = fit_inputs(m, m, dd)
            res = judge(tf_.name, plan, tfl.lst(m.subgraphs[0].outputs))
            print(f"control re-serialise {name}: {len(b)} -> {len(rb)} B, {verdict_of(res)}", flush=True)
            if verdict_of(res) != "ok":
                raise SystemExit(f"re-serialised {name} does not run: {verdict_of(res)}")
    for stem, src, fn, rule in MUTANTS:
        om = tfl.load(originals[src])
        mm = tfl.load(originals[src])
        desc = fn(mm)
        b = tfl.dump(mm)
        path = os.path.join(inv, stem + ".tflite")
        open(path, "wb").write(b)
        ndata = len([d for d in os.listdir(os.path.join(out, src)) if d.startswith("test_data_set_")])
        ctor = alloc = None
        invokes, msgs, adapt, outs_txt = [], [], [], []
        for k in range(ndata):
            dd = os.path.join(out, src, f"test_data_set_{k}")
            plan, notes = fit_inputs(mm, om, dd)
            if k == 0:
                adapt = notes
            with tempfile.TemporaryDirectory() as sd:
                res = judge(path, plan, tfl.lst(mm.subgraphs[0].outputs), save=sd)
                g = res.get("get_outputs")
                if g and g[0]:
                    cmp = []
                    for j in range(len(tfl.lst(mm.subgraphs[0].outputs))):
                        got = np.load(os.path.join(sd, f"output_{j}.npy"))
                        gp = os.path.join(dd, f"output_{j}.npy")
                        exp = np.load(gp) if os.path.exists(gp) else None
                        same = exp is not None and got.shape == exp.shape and got.dtype == exp.dtype and \
                            np.array_equal(got, exp)
                        cmp.append(f"output_{j} {got.dtype}{list(got.shape)} " +
                                   ("= golden" if same else f"!= golden {exp.dtype}{list(exp.shape)}: "
                                    f"{np.array2string(got.reshape(-1)[:8], precision=4)}" if exp is not None else ""))
                    outs_txt.append(f"ds{k}: " + ", ".join(cmp))
            c = res.get("constructor")
            a = res.get("allocate_tensors")
            sig = res.get("signal")
            stage_txt = lambda r: ("ok" if r[0] else "FAIL") if r else ("CRASH: " + sig if sig else "not reached")
            if k == 0:
                ctor, alloc = stage_txt(c), (stage_txt(a) if c and c[0] else "not reached")
            lab = labels[src][k].split(":", 1)[1] if k < len(labels[src]) else "?"
            k_ = f"{k}({lab})"
            if c and c[0] and a and a[0]:
                inv_r = res.get("invoke")
                si = res.get("set_inputs")
                if si and not si[0]:
                    invokes.append(f"{k_}:set_tensor FAIL")
                elif inv_r is None:
                    invokes.append(f"{k_}:CRASH ({sig})")
                else:
                    invokes.append(f"{k_}:{'ok' if inv_r[0] else 'FAIL'}")
            else:
                invokes.append(f"{k_}:not reached")
            for st in ("constructor", "allocate_tensors", "set_inputs", "invoke"):
                r = res.get(st)
                if r and not r[0] and r[1] not in msgs:
                    msgs.append(f"{st}: {r[1]}")
                    break
            if sig and sig not in " ".join(msgs):
                msgs.append(f"{sig}" + (f"; stderr: {res['stderr']}" if res["stderr"] else ""))
        msgs = list(dict.fromkeys(msgs))
        if outs_txt:
            msgs.append("ran: " + "; ".join(outs_txt))
        rows.append([f"invalid/{stem}.tflite", f"{src}/{src}.tflite", desc + (f" [rule: {rule}]"), ctor, alloc,
                     " ".join(invokes), " || ".join(msgs) + (f" (inputs: {', '.join(adapt)})" if adapt else "")])
        print(f"mutant {stem}: ctor={ctor} alloc={alloc} invoke={' '.join(invokes)} {' || '.join(msgs)[:300]}", flush=True)
    tsv(os.path.join(inv, "MANIFEST.tsv"),
        ["file", "derived from", "mutation", "constructor", "allocate_tensors", "invoke per data set", "message"], rows)


def main():
    out = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "corpus-tflite")
    os.makedirs(out, exist_ok=True)
    np.random.seed(0)
    tf.random.set_seed(0)
    tf.keras.utils.set_random_seed(0)
    rows, originals = [], {}
    for gen in M.ALL:
        spec = gen()
        row, b, _ = write_model(out, spec)
        rows.append(row)
        if b is not None:
            originals[spec.name] = b
    tsv(os.path.join(out, "MANIFEST.tsv"),
        ["id", "file", "md5", "generator function", "tensorflow version", "litert version", "op codes",
         "ifs", "whiles", "data sets", "interpreter verdict", "notes"], rows)
    make_mutants(out, originals, {r[0]: r[9].split(" ") for r in rows})


if __name__ == "__main__":
    main()
