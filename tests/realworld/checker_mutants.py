#!/usr/bin/python3
"""Differential test: is condlint's ONNX linting a superset of onnx's own checker?

Each valid seed model is mutated many times, one small, labelled defect per mutant (a dangling input name,
a broken SSA rule, a wrong elem_type, a missing required attribute, a bad opset, a malformed If/Loop ...).
Mutations land at random in the main graph or in any subgraph (If then/else branches, Loop bodies).
Every mutant is judged twice:
  * onnx:     onnx.checker.check_model(path, full_check=True), run in a helper subprocess so that a crash or
              hang of the checker costs one mutant, not the whole run;
  * condlint: `condlint lint --format json --fail-on never -j 2 FILE...` (one process per ~200 mutants);
              a mutant is "rejected" when its report entry has an error-level finding or an "error" field.
The table counts, per mutation kind: both reject, MISSED (onnx rejects, condlint silent), EXTRA (condlint
rejects, onnx accepts), both accept. MISSED mutants are what condlint still lacks; the test fails on them.
Mutants that crash condlint, or that its report leaves out, fail the test too (listed as CRASHED).

Run with Debian's python3 (it has onnx 1.12):
  /usr/bin/python3 tests/realworld/checker_mutants.py --condlint build/condlint \\
      corpus/onnx/valid/*.onnx [--per-seed 40] [--seed 1] [--keep DIR] [--json out.json]
Exit: 0 nothing missed, 1 something missed (or condlint crashed / failed), 2 usage error.
The last line is `checker_mutants: N passed, M failed`.
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile

try:
    import onnx
except ImportError:  # ctest counts exit code 77 as a skip
    print("checker_mutants: skipped: Debian's python3-onnx is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)
from onnx import AttributeProto as AP
from onnx import TensorProto as TP
from onnx import helper as h

CHECK_TIMEOUT_S = 60  # per mutant; the worker dies of SIGALRM past this
CHUNK = 200  # mutants per condlint process
ELEM_TYPES = [TP.FLOAT, TP.INT64, TP.BOOL, TP.DOUBLE, TP.INT32, TP.FLOAT16, TP.UINT8, TP.STRING]


class Skip(Exception):
    """The mutation does not apply to this model (nothing to mutate)."""


# ---------------------------------------------------------------- walking the model


def graphs(model):
    """Every graph of the model, main graph first: [(graph, label)]; label is a path such as main/If_0.then_branch."""
    out = []

    def walk(g, label):
        out.append((g, label))
        for i, n in enumerate(g.node):
            for a in n.attribute:
                sub = [a.g] if a.HasField("g") else []
                for k, sg in enumerate(sub + list(a.graphs)):
                    walk(sg, "%s/%s.%s" % (label, n.name or "%s_%d" % (n.op_type, i), a.name) + ("[%d]" % k if a.graphs else ""))

    walk(model.graph, "main")
    return out


def pick_graph(model, rng, want):
    """A random graph among those for which want(graph) is true (uniform over graphs, so subgraphs get hit)."""
    cands = [(g, lbl) for g, lbl in graphs(model) if want(g)]
    if not cands:
        raise Skip("no graph qualifies")
    return rng.choice(cands)


def pick_node(model, rng, want=lambda n: True):
    """A random node matching want(): graph chosen first, then a node in it. Returns (graph, index, node, label)."""
    g, lbl = pick_graph(model, rng, lambda g: any(want(n) for n in g.node))
    idx = rng.choice([i for i, n in enumerate(g.node) if want(n)])
    return g, idx, g.node[idx], "%s/%s" % (lbl, g.node[idx].name or g.node[idx].op_type)


def tensor_type(tp):
    """The innermost tensor type of a TypeProto (through sequence/optional), or None."""
    while True:
        which = tp.WhichOneof("value")
        if which == "tensor_type":
            return tp.tensor_type
        if which == "sequence_type":
            tp = tp.sequence_type.elem_type
        elif which == "optional_type":
            tp = tp.optional_type.elem_type
        else:
            return None


def other_elem(rng, cur):
    return rng.choice([t for t in ELEM_TYPES if t != cur])


def default_opset(model):
    return next((o for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


def attr_named(node, name):
    return next((a for a in node.attribute if a.name == name), None)


# ---------------------------------------------------------------- mutations
# Each takes (model, rng), mutates the model in place and returns a one-line description; Skip if it can't apply.


def m_drop_input(m, r):
    g, _, n, where = pick_node(m, r, lambda n: any(n.input))
    k = r.choice([k for k, s in enumerate(n.input) if s])
    old, n.input[k] = n.input[k], "__cm_missing"
    return "%s input %d '%s' -> '__cm_missing'" % (where, k, old)


def m_read_later_value(m, r):
    """A node reads a value that a later node of the same graph defines (breaks topological order)."""
    g, lbl = pick_graph(m, r, lambda g: len(g.node) >= 2 and any(g.node[i].input for i in range(len(g.node) - 1)))
    i = r.choice([i for i in range(len(g.node) - 1) if g.node[i].input])
    later = [(j, o) for j in range(i + 1, len(g.node)) for o in g.node[j].output if o]
    if not later:
        raise Skip("no later output")
    j, name = r.choice(later)
    k = r.randrange(len(g.node[i].input))
    g.node[i].input[k] = name
    return "%s node %d reads '%s' defined by node %d" % (lbl, i, name, j)


def m_swap_nodes(m, r):
    """Swap two nodes, preferring a producer/consumer pair so that the order really breaks."""
    g, lbl = pick_graph(m, r, lambda g: len(g.node) >= 2)
    pairs = [(i, j) for i in range(len(g.node)) for j in range(i + 1, len(g.node))
             if set(g.node[i].output) & set(g.node[j].input)]
    i, j = r.choice(pairs) if pairs else tuple(sorted(r.sample(range(len(g.node)), 2)))
    a = onnx.NodeProto()
    a.CopyFrom(g.node[i])
    g.node[i].CopyFrom(g.node[j])
    g.node[j].CopyFrom(a)
    return "%s swapped nodes %d and %d" % (lbl, i, j)


def m_dup_output(m, r):
    """A node's output takes a name already defined in its graph (second definition: SSA violation)."""
    g, lbl = pick_graph(m, r, lambda g: len(g.node) >= 2 or (g.node and (g.input or g.initializer)))
    j = r.choice([j for j, n in enumerate(g.node) if any(n.output)] or [None])
    if j is None:
        raise Skip("no outputs")
    names = [o for k, n in enumerate(g.node) if k != j for o in n.output if o]
    names += [v.name for v in g.input] + [t.name for t in g.initializer]
    if not names:
        raise Skip("no other name")
    k = r.choice([k for k, o in enumerate(g.node[j].output) if o])
    g.node[j].output[k] = r.choice(names)
    return "%s node %d output %d -> '%s'" % (lbl, j, k, g.node[j].output[k])


def m_delete_node(m, r):
    g, i, n, where = pick_node(m, r)
    del g.node[i]
    return "deleted %s (outputs %s)" % (where, list(n.output))


def _retype(vis, r, what):
    cands = [v for v in vis if v.HasField("type") and tensor_type(v.type) is not None]
    if not cands:
        raise Skip("no typed " + what)
    v = r.choice(cands)
    t = tensor_type(v.type)
    old, t.elem_type = t.elem_type, other_elem(r, t.elem_type)
    return "%s '%s' elem_type %s -> %s" % (what, v.name, TP.DataType.Name(old), TP.DataType.Name(t.elem_type))


def m_input_elem_type(m, r):
    g, lbl = pick_graph(m, r, lambda g: len(g.input) > 0)
    return lbl + " " + _retype(g.input, r, "input")


def m_value_info_elem_type(m, r):
    g, lbl = pick_graph(m, r, lambda g: len(g.value_info) > 0)
    return lbl + " " + _retype(g.value_info, r, "value_info")


def m_output_elem_type(m, r):
    g, lbl = pick_graph(m, r, lambda g: len(g.output) > 0)
    return lbl + " " + _retype(g.output, r, "output")


def m_untyped_main_io(m, r):
    """A main-graph input or output without a type (required at the top level)."""
    v = r.choice(list(m.graph.input) + list(m.graph.output))
    v.ClearField("type")
    return "main '%s' lost its type" % v.name


def _tensors(m):
    """Initializers of every graph, and Constant-like tensor attributes: [(TensorProto, label)]."""
    out = [(t, "%s initializer '%s'" % (lbl, t.name)) for g, lbl in graphs(m) for t in g.initializer]
    for g, lbl in graphs(m):
        for n in g.node:
            for a in n.attribute:
                if a.type == AP.TENSOR and a.HasField("t"):
                    out.append((a.t, "%s/%s.%s" % (lbl, n.name or n.op_type, a.name)))
    return out


def m_initializer_dtype(m, r):
    ts = _tensors(m)
    if not ts:
        raise Skip("no tensors")
    t, where = r.choice(ts)
    old, t.data_type = t.data_type, other_elem(r, t.data_type)
    return "%s data_type %s -> %s" % (where, TP.DataType.Name(old), TP.DataType.Name(t.data_type))


def m_initializer_dims(m, r):
    ts = _tensors(m)
    if not ts:
        raise Skip("no tensors")
    t, where = r.choice(ts)
    old = list(t.dims)
    if t.dims:
        t.dims[0] = t.dims[0] * 2 + 1  # element count no longer matches the data
    else:
        t.dims.append(3)
    return "%s dims %s -> %s" % (where, old, list(t.dims))


def m_initializer_truncate(m, r):
    ts = [(t, w) for t, w in _tensors(m) if len(t.raw_data) >= 2]
    if not ts:
        raise Skip("no raw_data tensors")
    t, where = r.choice(ts)
    t.raw_data = t.raw_data[: len(t.raw_data) // 2]
    return "%s raw_data cut to %d bytes" % (where, len(t.raw_data))


def m_unknown_op(m, r):
    g, i, n, where = pick_node(m, r)
    n.op_type, n.domain = "CmNoSuchOp", ""
    return "%s op_type -> CmNoSuchOp" % where


def _required_attrs(m, n):
    """Names of the required attributes of n per onnx's schema at the model's default opset, present on n."""
    if n.domain not in ("", "ai.onnx"):
        return []
    op = default_opset(m)
    try:
        s = onnx.defs.get_schema(n.op_type, op.version if op else 1, "")
    except Exception:
        return []
    return [a.name for a in n.attribute if a.name in s.attributes and s.attributes[a.name].required]


def m_remove_required_attr(m, r):
    g, i, n, where = pick_node(m, r, lambda n: _required_attrs(m, n))
    name = r.choice(_required_attrs(m, n))
    n.attribute.remove(attr_named(n, name))
    return "%s lost required attribute '%s'" % (where, name)


def m_unknown_attr(m, r):
    g, i, n, where = pick_node(m, r)
    n.attribute.append(h.make_attribute("cm_no_such_attr", 1))
    return "%s gained attribute cm_no_such_attr" % where


def m_attr_type_field(m, r):
    """Change AttributeProto.type without touching the value (e.g. INT -> FLOAT, GRAPH -> INT)."""
    g, i, n, where = pick_node(m, r, lambda n: len(n.attribute) > 0)
    a = r.choice(list(n.attribute))
    choices = [AP.FLOAT, AP.INT, AP.STRING, AP.TENSOR, AP.GRAPH, AP.INTS, AP.FLOATS]
    old, a.type = a.type, r.choice([c for c in choices if c != a.type])
    return "%s attribute '%s' type %s -> %s" % (where, a.name, AP.AttributeType.Name(old), AP.AttributeType.Name(a.type))


def m_ir_version_2(m, r):
    m.ir_version = 2
    return "ir_version -> 2"


def m_ir3_no_opset(m, r):
    m.ir_version = 3
    del m.opset_import[:]
    return "ir_version -> 3, opset_import cleared"


def m_ir_version_future(m, r):
    m.ir_version = 99
    return "ir_version -> 99"


def m_drop_default_opset(m, r):
    op = default_opset(m)
    if op is None:
        raise Skip("no default opset")
    m.opset_import.remove(op)
    return "default-domain opset_import removed"


def m_opset_too_new(m, r):
    op = default_opset(m)
    if op is None:
        raise Skip("no default opset")
    op.version = 30
    return "default opset -> 30"


def m_dup_opset(m, r):
    op = default_opset(m)
    if op is None:
        raise Skip("no default opset")
    m.opset_import.append(h.make_opsetid("", op.version - 1))
    return "second default opset_import, version %d" % (op.version - 1)


def pick_op(m, r, op_type):
    return pick_node(m, r, lambda n: n.op_type == op_type and n.domain in ("", "ai.onnx"))


def m_if_extra_branch_attr(m, r):
    g, i, n, where = pick_op(m, r, "If")
    a = attr_named(n, r.choice(["then_branch", "else_branch"]))
    if a is None:
        raise Skip("no branch")
    n.attribute.append(a)  # protobuf copies it: the same attribute name twice
    return "%s has a second %s" % (where, a.name)


def m_if_remove_else(m, r):
    g, i, n, where = pick_op(m, r, "If")
    n.attribute.remove(attr_named(n, "else_branch"))
    return "%s lost else_branch" % where


def m_branch_formal_input(m, r):
    g, i, n, where = pick_op(m, r, "If")
    a = attr_named(n, r.choice(["then_branch", "else_branch"]))
    a.g.input.append(h.make_tensor_value_info("__cm_branch_in", TP.FLOAT, [1]))
    return "%s.%s gained a formal input" % (where, a.name)


def m_if_cond_float(m, r):
    """The If condition becomes a new float main-graph input (visible from every subgraph as outer scope)."""
    g, i, n, where = pick_op(m, r, "If")
    m.graph.input.append(h.make_tensor_value_info("__cm_cond_f", TP.FLOAT, []))
    n.input[0] = "__cm_cond_f"
    return "%s condition -> float input __cm_cond_f" % where


def m_branch_output_count(m, r):
    """One branch gains an extra output (an Identity of its first output), so the branches' counts differ."""
    g, i, n, where = pick_op(m, r, "If")
    a = attr_named(n, r.choice(["then_branch", "else_branch"]))
    if not a.g.output:
        raise Skip("branch has no outputs")
    first = a.g.output[0]
    a.g.node.append(h.make_node("Identity", [first.name], ["__cm_extra_out"], name="__cm_extra"))
    extra = a.g.output.add()
    extra.CopyFrom(first)
    extra.name = "__cm_extra_out"
    return "%s.%s has %d outputs" % (where, a.name, len(a.g.output))


def m_if_node_output_count(m, r):
    g, i, n, where = pick_op(m, r, "If")
    if len(n.output) > 1 and r.random() < 0.5:
        del n.output[-1]
    else:
        n.output.append("__cm_if_extra")
    return "%s has %d outputs" % (where, len(n.output))


def m_loop_body_drop_input(m, r):
    g, i, n, where = pick_op(m, r, "Loop")
    body = attr_named(n, "body").g
    k = r.randrange(len(body.input))
    del body.input[k]
    return "%s body lost input %d" % (where, k)


def m_undeclared_domain(m, r):
    g, i, n, where = pick_node(m, r)
    n.domain = "com.condlint.undeclared"
    return "%s domain -> com.condlint.undeclared" % where


def m_empty_outputs(m, r):
    g, i, n, where = pick_node(m, r, lambda n: len(n.output) > 0)
    del n.output[:]
    return "%s has no outputs" % where


def m_empty_input_name(m, r):
    g, i, n, where = pick_node(m, r, lambda n: len(n.input) > 0 and n.input[0])
    n.input[0] = ""
    return "%s first input -> '' (omitted)" % where


def m_graph_output_undefined(m, r):
    g, lbl = pick_graph(m, r, lambda g: len(g.output) > 0)
    v = r.choice(list(g.output))
    old, v.name = v.name, "__cm_undefined"
    return "%s output '%s' -> '__cm_undefined'" % (lbl, old)


def m_dup_graph_input(m, r):
    g, lbl = pick_graph(m, r, lambda g: len(g.input) > 0)
    v = r.choice(list(g.input))
    g.input.append(v)
    return "%s input '%s' listed twice" % (lbl, v.name)


def m_dup_node_name(m, r):
    g, lbl = pick_graph(m, r, lambda g: len(g.node) >= 2)
    i, j = r.sample(range(len(g.node)), 2)
    g.node[j].name = g.node[i].name or "__cm_same"
    g.node[i].name = g.node[j].name
    return "%s nodes %d and %d both named '%s'" % (lbl, i, j, g.node[i].name)


def m_output_shape(m, r):
    """A graph output claims a shape that contradicts shape inference (a fixed dim or an extra rank)."""
    g, lbl = pick_graph(m, r, lambda g: any(tensor_type(v.type) is not None for v in g.output))
    v = r.choice([v for v in g.output if tensor_type(v.type) is not None])
    t = tensor_type(v.type)
    if t.HasField("shape") and t.shape.dim and r.random() < 0.5:
        t.shape.dim[0].dim_value = 7777
    else:
        t.shape.dim.add().dim_value = 7777
    return "%s output '%s' shape -> %s" % (lbl, v.name, [d.dim_value or d.dim_param for d in t.shape.dim])


def m_empty_graph_name(m, r):
    g, lbl = pick_graph(m, r, lambda g: True)
    g.name = ""
    return "%s name cleared" % lbl


MUTATIONS = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("m_") and callable(fn)}


# ---------------------------------------------------------------- generating mutants


def load_seed(path):
    """The seed with external data pulled in (mutants are written elsewhere); None (and why) when unusable."""
    if not os.path.isfile(path):
        return None, "no such file"
    try:
        m = onnx.load(path)  # loads external data beside the file and marks tensors as internal
        onnx.checker.check_model(m, full_check=True)
        return m, None
    except Exception as e:
        return None, first_line(e)


def make_mutants(seed_path, model, per_seed, base_seed, outdir):
    """Write about per_seed mutants of model to outdir; round-robin over a shuffled list of kinds.
    Returns [{path, seed, kind, detail}]."""
    stem = os.path.splitext(os.path.basename(seed_path))[0]
    rng = random.Random("%s:%s" % (base_seed, stem))  # str seeds are hashed deterministically
    kinds = sorted(MUTATIONS)
    rng.shuffle(kinds)
    original = model.SerializeToString()
    out, attempt, seen = [], 0, {original}
    while len(out) < per_seed and attempt < per_seed * 6:
        kind = kinds[attempt % len(kinds)]
        attempt += 1
        mutant = onnx.ModelProto()
        mutant.CopyFrom(model)
        try:
            detail = MUTATIONS[kind](mutant, rng)
            data = mutant.SerializeToString()
        except Exception:  # Skip, or a mutation the protobuf refuses: this kind does not apply here
            continue
        if data in seen:  # a no-op or a repeat: not worth a row
            continue
        seen.add(data)
        path = os.path.join(outdir, "%s__%s__%d.onnx" % (stem, kind, len(out)))
        with open(path, "wb") as f:
            f.write(data)
        out.append({"path": os.path.abspath(path), "seed": seed_path, "kind": kind, "detail": detail})
    return out


# ---------------------------------------------------------------- onnx's verdict


def first_line(e, limit=200):
    lines = [s.strip() for s in str(e).splitlines() if s.strip()]
    return ("%s: %s" % (type(e).__name__, lines[0] if lines else ""))[:limit]


def check_worker(list_file):
    """Hidden mode: check every path listed in list_file, one JSON line per path, flushed as it goes.
    SIGALRM with its default action ends the process when one check hangs."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    with open(list_file) as f:
        paths = [s.rstrip("\n") for s in f if s.strip()]
    for p in paths:
        signal.alarm(CHECK_TIMEOUT_S)
        try:
            with open(p, "rb") as f:
                onnx.load_model_from_string(f.read())  # does it even parse back?
        except Exception as e:
            res = {"path": p, "ok": False, "reason": "parse failed: " + first_line(e)}
        else:
            try:
                onnx.checker.check_model(p, full_check=True)
                res = {"path": p, "ok": True, "reason": ""}
            except Exception as e:
                res = {"path": p, "ok": False, "reason": first_line(e)}
        signal.alarm(0)
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


def onnx_verdicts(paths, tmpdir):
    """{path: (ok, reason)}. Runs the worker; when it dies (crash, timeout) the path it was on is recorded as
    rejected with the cause, and a fresh worker carries on with the rest."""
    verdicts, pending = {}, list(paths)
    while pending:
        lst = os.path.join(tmpdir, "check_list.txt")
        with open(lst, "w") as f:
            f.write("\n".join(pending) + "\n")
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--_check-worker", lst],
                                stdout=subprocess.PIPE, text=True)
        for line in proc.stdout:
            res = json.loads(line)
            verdicts[res["path"]] = (res["ok"], res["reason"])
        proc.wait()
        pending = [p for p in pending if p not in verdicts]
        if pending:
            why = "timed out" if proc.returncode == -signal.SIGALRM else "exit %d" % proc.returncode
            verdicts[pending[0]] = (False, "onnx checker died (%s)" % why)
            pending = pending[1:]
    return verdicts


# ---------------------------------------------------------------- condlint's verdict


def condlint_verdicts(condlint, paths):
    """{realpath: {"reject": bool, "rules": [...], "message": str, "crash": str|None}}; raises RuntimeError
    when condlint fails as a whole (usage / I/O error without per-file entries)."""
    out = {}
    for c in range(0, len(paths), CHUNK):
        chunk = paths[c:c + CHUNK]
        proc = subprocess.run([condlint, "lint", "--format", "json", "--fail-on", "never", "-j", "2"] + chunk,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            report = json.loads(proc.stdout)
        except ValueError:
            report = None
        if proc.returncode < 0 or report is None:
            if len(chunk) == 1:
                out[os.path.realpath(chunk[0])] = {"reject": False, "rules": [], "message": "", "crash":
                                                   "condlint exit %d: %s" % (proc.returncode, proc.stderr.strip()[:200])}
                continue
            for p in chunk:  # find the culprit(s) one file at a time
                out.update(condlint_verdicts(condlint, [p]))
            continue
        for entry in report.get("files", []):
            errs = [f for f in entry.get("findings", []) if f.get("level") == "error"]
            msg = entry["error"] if "error" in entry else (errs[0].get("message", "") if errs else "")
            out[os.path.realpath(entry["path"])] = {
                "reject": bool(errs) or "error" in entry, "rules": sorted({f.get("rule", "?") for f in errs}),
                "message": str(msg)[:200], "crash": None}
        missing = [p for p in chunk if os.path.realpath(p) not in out]
        if proc.returncode not in (0, 1) and missing:
            raise RuntimeError("condlint exit %d, report lacks %d file(s): %s" %
                               (proc.returncode, len(missing), proc.stderr.strip()[:300]))
        for p in missing:
            out[os.path.realpath(p)] = {"reject": False, "rules": [], "message": "", "crash": "absent from report"}
    return out


# ---------------------------------------------------------------- table


COLS = ["both reject", "MISSED", "EXTRA", "both accept", "CRASHED"]


def classify(onnx_ok, cl):
    if cl["crash"]:
        return "CRASHED"
    if not onnx_ok:
        return "both reject" if cl["reject"] else "MISSED"
    return "EXTRA" if cl["reject"] else "both accept"


def print_table(rows):
    kinds = sorted({r["kind"] for r in rows})
    w = max([len(k) for k in kinds] + [5])
    print("%-*s  %11s  %6s  %5s  %11s  %7s" % ((w, "kind") + tuple(COLS)))
    print("  (MISSED = onnx rejects, condlint silent; EXTRA = condlint rejects, onnx accepts)")
    for k in kinds + ["TOTAL"]:
        sel = [r for r in rows if k in ("TOTAL", r["kind"])]
        print("%-*s  %11d  %6d  %5d  %11d  %7d" % ((w, k) + tuple(sum(r["class"] == c for r in sel) for c in COLS)))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--_check-worker":
        check_worker(sys.argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--condlint", required=True, help="path of the condlint binary")
    ap.add_argument("--per-seed", type=int, default=40, help="mutants per seed model (default 40)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--keep", help="write mutants to DIR and keep them (default: a temp dir, removed)")
    ap.add_argument("--json", help="also write the results as JSON to this file")
    ap.add_argument("--min-error-share", type=float, default=1.0,
                    help="pass when condlint errs on at least this share of the mutants onnx rejects (default 1.0:"
                         " every one); MISSED mutants then fail the test only below it")
    ap.add_argument("seeds", nargs="+", help="valid seed .onnx models")
    a = ap.parse_args()  # exits 2 on usage errors
    if not (os.path.isfile(a.condlint) and os.access(a.condlint, os.X_OK)):
        print("checker_mutants: condlint binary not found: %s" % a.condlint, file=sys.stderr)
        return 2

    tmp = tempfile.TemporaryDirectory(prefix="checker_mutants_")
    outdir = a.keep or os.path.join(tmp.name, "mutants")
    os.makedirs(outdir, exist_ok=True)
    mutants, skipped = [], []
    for sp in a.seeds:
        model, why = load_seed(sp)
        if model is None:
            print("skipping seed %s: %s" % (sp, why))
            skipped.append({"seed": sp, "reason": why})
            continue
        mutants += make_mutants(sp, model, a.per_seed, a.seed, outdir)
    if not mutants:
        print("checker_mutants: no mutants (no usable seed)", file=sys.stderr)
        return 2
    print("%d mutants of %d seed(s) in %s" % (len(mutants), len(a.seeds) - len(skipped), outdir))

    paths = [m["path"] for m in mutants]
    verdicts = onnx_verdicts(paths, tmp.name)
    try:
        cl = condlint_verdicts(os.path.abspath(a.condlint), paths)
    except RuntimeError as e:
        print("checker_mutants: %s" % e)
        print("checker_mutants: 0 passed, %d failed" % len(mutants))
        return 1
    for m in mutants:
        m["onnx_ok"], m["onnx_reason"] = verdicts[m["path"]]
        c = cl[os.path.realpath(m["path"])]
        m.update(condlint_reject=c["reject"], condlint_rules=c["rules"], condlint_message=c["message"],
                 condlint_crash=c["crash"], **{"class": classify(m["onnx_ok"], c)})

    print()
    print_table(mutants)
    for cls, fmt in (("MISSED", lambda m: "onnx: " + m["onnx_reason"]),
                     ("EXTRA", lambda m: "condlint: %s %s" % (",".join(m["condlint_rules"]), m["condlint_message"])),
                     ("CRASHED", lambda m: "condlint: " + m["condlint_crash"])):
        sel = [m for m in mutants if m["class"] == cls]
        if sel:
            print("\n%s (%d):" % (cls, len(sel)))
        for m in sorted(sel, key=lambda m: (m["kind"], m["path"])):
            print("  [%s] %s  (%s)\n      %s" % (m["kind"], os.path.basename(m["path"]), m["detail"], fmt(m)[:200]))

    rejected = sum(m["class"] in ("both reject", "MISSED") for m in mutants)
    caught = sum(m["class"] == "both reject" for m in mutants)
    share = caught / rejected if rejected else 1.0
    print("\nerrors on %d of the %d mutants onnx %s rejects (%.1f%%; goal %.0f%%)" %
          (caught, rejected, onnx.__version__, 100 * share, 100 * a.min_error_share))
    missed = sum(m["class"] == "MISSED" for m in mutants)
    failed = sum(m["class"] == "CRASHED" for m in mutants) + (missed if share < a.min_error_share else 0)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"skipped_seeds": skipped, "mutants": mutants,
                       "totals": {c: sum(m["class"] == c for m in mutants) for c in COLS}}, f, indent=1)
    tmp.cleanup()  # the check list, and the mutants unless --keep put them elsewhere
    print("checker_mutants: %d passed, %d failed" % (len(mutants) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
