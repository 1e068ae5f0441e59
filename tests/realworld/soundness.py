#!/usr/bin/python3
"""Differential test: is condlint's type inference SOUND?

For every value a node produces, `condlint lint --dump-types` writes the type condlint holds (element type,
rank, dims; null = unknown). A type may be less precise than the truth but must never contradict it. Two
judges:
  (a) onnx:  onnx.shape_inference.infer_shapes (non-strict); value_info, inputs and outputs of every graph,
             subgraphs included (If branches, Loop/Scan bodies). A symbolic dim (dim_param) is not a known value.
             onnx 1.12 knows IR <= 8 and opset <= 17: for newer models its schemas are wrong, so (a) is skipped.
  (b) ONNX Runtime, through the project's adapter tools/ort/ort_run.js: a copy of the model exposes every
      main-graph value condlint types as a tensor as an extra graph output (name only; ORT fills the type),
      and runs on random inputs (or the model's test_data_set_0/input_K.pb when present). Besides the model as
      given, one variant per main-graph If and branch has that If's condition pinned to a constant true/false;
      a variant ORT fails to run is counted as skipped ("not run"), never as a failure. A pinned variant whose
      outputs break the model's own declared types (graph outputs / value_info in the file) reached a state the
      model never reaches; it is reported as "infeasible" and its contradictions are shown but not counted,
      since condlint may rightly trust the file's declarations. Values inside subgraphs cannot be graph outputs
      and are judged by (a) only.
A contradiction: both sides know the element type and differ, or both know the rank and differ, or a dim both
know differs (or one says tensor, the other sequence/optional/map). onnx may itself be wrong in rare cases:
(b) is the ground truth, but (a)'s contradictions are reported too.

Run with Debian's python3 (it has onnx 1.12 and numpy):
  /usr/bin/python3 tests/realworld/soundness.py --condlint build/condlint [--no-ort] [--seed S] \\
      [--input-shape NAME:d0,d1,...] [--dim PARAM=V] [--value NAME=V] [--config FILE.json] [--sample N] MODEL.onnx...
Options apply to every model; --config maps a model's basename (or dir/basename, or path) to
{"input_shapes": {NAME: [dims]}, "dims": {PARAM: V}, "values": {NAME: V}}, overriding them.
`--input-shape sr:` (or sr:[]) is a scalar; symbolic or unknown dims default to 1; --value fills the whole
input with V; a model's own test_data_set_0 inputs win over all of these. For the Silero VAD models:
  --input-shape input:1,512 --input-shape state:2,1,128 --input-shape sr: --value sr=16000 --dim batch=1
Exit: 0 no contradiction, 1 some contradiction (or condlint failed on a model), 2 usage error.
The last line is `soundness: N passed, M failed` (models without / with a contradiction).
"""
import argparse
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
    import onnx
except ImportError:  # ctest counts exit code 77 as a skip
    print("soundness: skipped: Debian's python3-onnx is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)
from onnx import AttributeProto as AP
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper

ORT_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "ort", "ort_run.js")
# ONNX element type enum -> condlint's spelling of it
ELEM = {TP.FLOAT: "f32", TP.UINT8: "u8", TP.INT8: "i8", TP.UINT16: "u16", TP.INT16: "i16", TP.INT32: "i32",
        TP.INT64: "i64", TP.STRING: "string", TP.BOOL: "boolean", TP.FLOAT16: "f16", TP.DOUBLE: "f64",
        TP.UINT32: "u32", TP.UINT64: "u64", TP.COMPLEX64: "complex64", TP.COMPLEX128: "complex128",
        TP.BFLOAT16: "bf16"}
# element types ort_run.js can feed (it has no bf16 / complex)
FEEDABLE = {TP.FLOAT, TP.DOUBLE, TP.FLOAT16, TP.BOOL, TP.STRING, TP.INT8, TP.INT16, TP.INT32, TP.INT64,
            TP.UINT8, TP.UINT16, TP.UINT32, TP.UINT64}
KINDS = {"tensor_type": "tensor", "sequence_type": "sequence", "optional_type": "optional", "map_type": "map",
         "sparse_tensor_type": "sparse_tensor"}


class UsageError(Exception):
    pass


# ---------------------------------------------------------------- types: (kind, elem, dims), None = unknown


def fmt(t):
    """A type as text: tensor(f32)[2,?,128]; [*] is an unknown rank."""
    kind, elem, dims = t
    if kind != "tensor":
        return kind or "unknown"
    shape = "[*]" if dims is None else "[%s]" % ",".join("?" if d is None else str(d) for d in dims)
    return "tensor(%s)%s" % (elem or "?", shape)


def condlint_type(v):
    """A --dump-types entry as (kind, elem, dims)."""
    kind = v["type"].split("(")[0]
    kind = {"seq": "sequence", "unknown": None}.get(kind, kind)
    return kind, v["elem"], v["shape"]


def proto_type(tp):
    """An onnx TypeProto as (kind, elem, dims)."""
    which = tp.WhichOneof("value")
    if which != "tensor_type":
        return KINDS.get(which), None, None
    tt = tp.tensor_type
    dims = None
    if tt.HasField("shape"):  # a dim_param or an empty dim is unknown
        dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
    return "tensor", ELEM.get(tt.elem_type), dims


def contradiction(cl, other):
    """Why condlint's type cl contradicts the other side's type, or None."""
    (ck, ce, cd), (ok, oe, od) = cl, other
    if ck and ok and ck != ok:
        return "kind"
    if ck != "tensor" or ok != "tensor":
        return None
    if ce and oe and ce != oe:
        return "element type"
    if cd is not None and od is not None:
        if len(cd) != len(od):
            return "rank"
        for i, (a, b) in enumerate(zip(cd, od)):
            if a is not None and b is not None and a != b:
                return "dim %d" % i
    return None


# ---------------------------------------------------------------- condlint


def run_condlint(exe, paths, tmp):
    """{realpath: [dump entries]} for the models condlint typed."""
    out = os.path.join(tmp, "types.json")
    r = subprocess.run([exe, "lint", "--fail-on", "never", "-j", "2", "--dump-types", out] + paths,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(out):
        raise RuntimeError("condlint wrote no types (exit %d): %s" % (r.returncode, r.stderr.strip()[:500]))
    with open(out) as f:
        doc = json.load(f)
    return {os.path.realpath(f["path"]): f["values"] for f in doc["files"]}


# ---------------------------------------------------------------- (a) onnx's shape inference


def onnx_types(model):
    """{value name: [(kind, elem, dims), ...]} from infer_shapes, over every graph (subgraphs included)."""
    inferred = onnx.shape_inference.infer_shapes(model)  # non-strict: a node it cannot infer is left alone
    out = {}

    def walk(g):
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            if vi.HasField("type"):
                out.setdefault(vi.name, []).append(proto_type(vi.type))
        for n in g.node:
            for a in n.attribute:
                if a.type == AP.GRAPH:
                    walk(a.g)
                elif a.type == AP.GRAPHS:
                    for sg in a.graphs:
                        walk(sg)

    walk(inferred.graph)
    return out


def onnx_too_new(model):
    """Why onnx's own inference cannot judge this model, or None."""
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if model.ir_version > onnx.IR_VERSION or opset > onnx.defs.onnx_opset_version():
        return "onnx %s knows IR <= %d and opset <= %d; the model has IR %d, opset %d" % (
            onnx.__version__, onnx.IR_VERSION, onnx.defs.onnx_opset_version(), model.ir_version, opset)
    return None


# ---------------------------------------------------------------- (b) ONNX Runtime


def ort_missing():
    """Why the ORT part cannot run here, or None."""
    if not shutil.which("node"):
        return "node is not on PATH"
    if not os.path.isdir(os.path.join(os.path.dirname(ORT_RUN), "node_modules", "onnxruntime-node")):
        return "onnxruntime-node is not installed in tools/ort/node_modules (scripts/install-deps.sh installs it)"
    return None


def feed_inputs(model, path, cfg, rng, indir):
    """Writes indir/input_K.pb for the K-th real graph input; returns the directory to use, or raises RuntimeError.
    The model's own test_data_set_0 is used when it has exactly one file per input."""
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    golden = os.path.join(os.path.dirname(path), "test_data_set_0")

    def have(k):
        return os.path.exists(os.path.join(golden, "input_%d.pb" % k))

    if inputs and all(have(k) for k in range(len(inputs))) and not have(len(inputs)):
        return golden, "test_data_set_0"
    os.makedirs(indir, exist_ok=True)
    for k, vi in enumerate(inputs):
        kind, _, dims = proto_type(vi.type)
        elem = vi.type.tensor_type.elem_type
        if kind != "tensor":
            raise RuntimeError("input %s is a %s: onnxruntime-node cannot pass it" % (vi.name, kind))
        if elem not in FEEDABLE:
            raise RuntimeError("input %s has element type %s, which ort_run.js cannot feed"
                               % (vi.name, ELEM.get(elem, elem)))
        if vi.name in cfg["input_shapes"]:
            shape = cfg["input_shapes"][vi.name]
        elif dims is None:
            shape = [1]  # unknown rank: a 1-element vector unless --input-shape says otherwise
        else:  # dim_param -> --dim value, default 1; an empty dim -> 1
            shape = [d if d is not None else cfg["dims"].get(sd.dim_param, 1)
                     for d, sd in zip(dims, vi.type.tensor_type.shape.dim)]
        np_type = (h.tensor_dtype_to_np_dtype(elem) if hasattr(h, "tensor_dtype_to_np_dtype")  # onnx >= 1.13
                   else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem])
        if vi.name in cfg["values"]:
            v = str(cfg["values"][vi.name])
            if elem != TP.STRING:  # ints exactly (an int64 may not fit a float), floats as floats
                v = int(v) if np.issubdtype(np_type, np.integer) or elem == TP.BOOL else float(v)
            arr = np.full(shape, v, dtype=object if elem == TP.STRING else np_type)
        elif elem == TP.BOOL:
            arr = rng.random(shape) < 0.5
        elif elem == TP.STRING:
            arr = np.array(["s%d" % i for i in rng.integers(0, 5, shape).flat], dtype=object).reshape(shape)
        elif np.issubdtype(np_type, np.integer):
            arr = rng.integers(0, 3, shape).astype(np_type)  # small and non-negative: indices, counts
        else:
            arr = rng.standard_normal(shape).astype(np_type)
        with open(os.path.join(indir, "input_%d.pb" % k), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(arr), vi.name).SerializeToString())
    return indir, "random"


def variants(model, exposed):
    """[(label, model)]: the model with every name in `exposed` added as a graph output, as given and with one
    main-graph If at a time pinned to a constant true / false condition."""
    base = copy.deepcopy(model)
    for name in exposed:
        base.graph.output.append(onnx.ValueInfoProto(name=name))  # no type: ORT infers it
    out = [("as given", base)]
    for i, n in enumerate(model.graph.node):
        if n.op_type != "If" or n.domain not in ("", "ai.onnx"):
            continue
        for flag in (True, False):
            v = copy.deepcopy(base)
            cname = "__soundness_cond_%d" % i
            v.graph.node[i].input[0] = cname
            v.graph.node.insert(0, h.make_node("Constant", [], [cname], name=cname,
                                               value=h.make_tensor(cname + "_v", TP.BOOL, [], [flag])))
            out.append(("%s := %s" % (n.name or "If_%d" % i, str(flag).lower()), v))
    return out


def ort_runs(model, path, cfg, rng, cl_main, tmp):
    """Runs the variants in ORT. Returns a dict: done / skipped / infeasible runs, checks (values compared over
    all runs), notes (lines to print), bad (counted contradictions: (label, name, actual type))."""
    inits = {i.name for i in model.graph.initializer}
    inputs = {i.name for i in model.graph.input} - inits
    outputs = [o.name for o in model.graph.output]
    exposed = [n for n, v in cl_main.items() if v["type"].startswith("tensor")
               and n not in outputs and n not in inputs and n not in inits]
    # what the file itself declares for main-graph values (before any inference): the model's own contract
    declared = {vi.name: proto_type(vi.type) for vi in list(model.graph.output) + list(model.graph.value_info)
                if vi.HasField("type")}
    indir, source = feed_inputs(model, path, cfg, rng, os.path.join(tmp, "in"))
    jobs = []
    for k, (label, v) in enumerate(variants(model, exposed)):
        mpath, odir = os.path.join(tmp, "v%d.onnx" % k), os.path.join(tmp, "out%d" % k)
        onnx.save(v, mpath)
        jobs.append((label, mpath, odir, [o.name for o in v.graph.output]))
    with open(os.path.join(tmp, "jobs.tsv"), "w") as f:
        f.writelines("%s\t%s\t%s\n" % (m, indir, o) for _, m, o, _ in jobs)
    # batch mode: one node process loads ORT once for all variants
    try:
        subprocess.run(["node", ORT_RUN, "--batch", os.path.join(tmp, "jobs.tsv")], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=120 + 60 * len(jobs))
    except subprocess.TimeoutExpired:
        pass  # jobs without `done` count as not run
    r = {"done": 0, "skipped": 0, "infeasible": 0, "checks": 0, "notes": ["inputs: " + source], "bad": []}
    for label, _, odir, outs in jobs:
        if not os.path.exists(os.path.join(odir, "done")):
            r["skipped"] += 1
            err = os.path.join(odir, "error.txt")
            why = open(err).read().strip() if os.path.exists(err) else "no result (ORT crashed or timed out)"
            r["notes"].append("not run (%s): %s" % (label, why.splitlines()[0][:300] if why else "?"))
            continue
        actual = {}  # name -> the type ORT produced
        for k, name in enumerate(outs):
            pb = os.path.join(odir, "output_%d.pb" % k)
            if os.path.exists(pb):
                t = TP()
                with open(pb, "rb") as f:
                    t.ParseFromString(f.read())
                actual[name] = ("tensor", ELEM.get(t.data_type), list(t.dims))
        bad = [(label, n, a) for n, a in actual.items() if n in cl_main and contradiction(condlint_type(cl_main[n]), a)]
        broken = [n for n, a in actual.items() if n in declared and contradiction(declared[n], a)]
        if not any(n in cl_main for n in actual):
            r["skipped"] += 1
            r["notes"].append("not run (%s): no output to compare (onnxruntime-node returns no sequence/optional/map)"
                              % label)
        elif broken and label != "as given":
            # Pinning the condition reached a state the model never reaches: its outputs break the file's own
            # declared types, which condlint may rightly rely on. Shown, not counted.
            r["infeasible"] += 1
            n = broken[0]
            r["notes"].append("infeasible (%s): ORT's '%s' is %s but the model declares %s; %d contradiction(s) "
                              "in this run not counted:" % (label, n, fmt(actual[n]), fmt(declared[n]), len(bad)))
            r["notes"] += ["  " + describe("ORT " + label, path, n, cl_main[n], a) for _, n, a in bad]
        else:
            r["done"] += 1
            r["checks"] += sum(n in cl_main for n in actual)
            r["bad"] += bad
    return r


def short(path):
    """dir/file.onnx: enough to tell the models apart (the ONNX test data has hundreds of model.onnx)."""
    return os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))


def describe(side, path, name, v, other):
    """One contradiction, as printed."""
    return "CONTRADICTION [%s] model %s value '%s' node %s: condlint %s, %s %s (%s differs)" % (
        side, short(path), name, v["node"], fmt(condlint_type(v)), side.split()[0], fmt(other),
        contradiction(condlint_type(v), other))


# ---------------------------------------------------------------- per model


def model_config(args, config, path):
    """The input shapes, dim values and fixed values for one model: command line, then --config's entry."""
    cfg = {"input_shapes": dict(args.input_shape), "dims": dict(args.dim), "values": dict(args.value)}
    per = next((config[k] for k in (path, short(path), os.path.basename(path)) if k in config), {})
    for key in cfg:
        cfg[key].update(per.get(key, {}))
    return cfg


def check_model(path, values, args, config, ort_why, tmp):
    """Prints the model's results; returns its number of contradictions."""
    print("== %s: %d values typed by condlint" % (path, len(values)))
    model = onnx.load(path)  # external data loaded: the copies written later are self-contained
    names = {}
    for v in values:
        names.setdefault(v["name"], []).append(v)
    dup = sorted(n for n, vs in names.items() if len(vs) > 1)
    if dup:  # invalid models may reuse a name: which entry is which is then unclear
        print("   %d names appear more than once and are left out: %s" % (len(dup), ", ".join(dup[:5])))
    cl = {n: vs[0] for n, vs in names.items() if len(vs) == 1}
    failures = 0

    # (a) onnx
    why = onnx_too_new(model)
    if why:
        print("   onnx: skipped (%s)" % why)
    else:
        try:
            ot = onnx_types(model)
        except Exception as e:  # pylint: disable=broad-except
            ot, why = {}, "infer_shapes failed: %s" % str(e).splitlines()[0][:200]
            print("   onnx: skipped (%s)" % why)
        compared = 0
        for name in cl:
            for other in ot.get(name, []):
                compared += 1
                if contradiction(condlint_type(cl[name]), other):
                    failures += 1
                    print("   " + describe("onnx", path, name, cl[name], other))
        if not why:
            print("   onnx: %d values compared, %d contradictions" % (compared, failures))

    # (b) ONNX Runtime: main-graph values only
    if ort_why:
        return failures
    main_outputs = {o for n in model.graph.node for o in n.output if o}
    cl_main = {n: v for n, v in cl.items() if n in main_outputs}
    rng = np.random.default_rng([args.seed, zlib.crc32(os.path.basename(path).encode())])
    sub = tempfile.mkdtemp(dir=tmp)
    try:
        r = ort_runs(model, path, model_config(args, config, path), rng, cl_main, sub)
    except (RuntimeError, ValueError, KeyError) as e:  # an input ort_run.js cannot feed, a bad --input-shape...
        print("   ORT: skipped (%s)" % e)
        return failures
    finally:
        shutil.rmtree(sub, ignore_errors=True)  # model copies can be large
    print("   ORT: %d runs done, %d skipped, %d infeasible, %d value checks, %d contradictions" % (
        r["done"], r["skipped"], r["infeasible"], r["checks"], len(r["bad"])))
    for n in r["notes"]:
        print("      " + n)
    for label, name, actual in r["bad"]:
        print("   " + describe("ORT " + label, path, name, cl_main[name], actual))
    return failures + len(r["bad"])


# ---------------------------------------------------------------- command line


def parse_shape(s):
    """NAME:d0,d1,... or NAME:[d0,d1] (Polygraphy); NAME: is a scalar."""
    name, sep, dims = s.rpartition(":")
    if not sep or not name:
        raise argparse.ArgumentTypeError("expected NAME:d0,d1,... not %r" % s)
    dims = dims.strip().strip("[]")
    try:
        return name, [int(d) for d in dims.split(",") if d.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("bad dims in %r" % s) from None


def parse_assign(conv):
    def parse(s):
        name, sep, v = s.partition("=")
        if not sep or not name:
            raise argparse.ArgumentTypeError("expected NAME=VALUE, not %r" % s)
        try:
            return name, conv(v)
        except ValueError:
            raise argparse.ArgumentTypeError("bad value in %r" % s) from None
    return parse


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--condlint", required=True, help="path of the condlint binary")
    ap.add_argument("--no-ort", action="store_true", help="skip part (b), the ONNX Runtime runs")
    ap.add_argument("--input-shape", type=parse_shape, action="append", default=[], metavar="NAME:d0,d1,...")
    ap.add_argument("--dim", type=parse_assign(int), action="append", default=[], metavar="PARAM=V",
                    help="value of a symbolic dim in random inputs (default 1)")
    ap.add_argument("--value", type=parse_assign(str), action="append", default=[], metavar="NAME=V",
                    help="fill input NAME with V instead of random data")
    ap.add_argument("--config", help="JSON: model basename (or dir/basename) -> {input_shapes, dims, values}")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--sample", type=int, help="check only a random sample of N of the given models")
    ap.add_argument("models", nargs="+", help=".onnx models")
    args = ap.parse_args()  # exits 2 on usage errors
    try:
        config = {}
        if args.config:
            with open(args.config) as f:
                config = json.load(f)
        if not (os.path.isfile(args.condlint) and os.access(args.condlint, os.X_OK)):
            raise UsageError("condlint binary not found: %s" % args.condlint)
        missing = [m for m in args.models if not os.path.isfile(m)]
        if missing:
            raise UsageError("no such model: %s" % ", ".join(missing))
    except (OSError, ValueError, UsageError) as e:
        print("soundness: %s" % e, file=sys.stderr)
        return 2
    models = list(dict.fromkeys(os.path.realpath(m) for m in args.models))
    if args.sample and args.sample < len(models):
        models = sorted(random.Random(args.seed).sample(models, args.sample))

    ort_why = "--no-ort" if args.no_ort else ort_missing()
    if ort_why:
        print("soundness: ORT part skipped: %s" % ort_why)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="soundness_") as tmp:
        try:
            typed = run_condlint(os.path.abspath(args.condlint), models, tmp)
        except (RuntimeError, ValueError) as e:
            print("soundness: %s" % e)
            print("soundness: 0 passed, %d failed" % len(models))
            return 1
        for path in models:
            if path not in typed:
                print("== %s: condlint gave no types (it could not read the model)" % path)
                failed += 1
                continue
            bad = check_model(path, typed[path], args, config, ort_why, tmp)
            passed, failed = passed + (bad == 0), failed + (bad > 0)
    print("soundness: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
