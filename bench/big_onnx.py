#!/usr/bin/env python3
"""Big ONNX models: generators (sparse files, made in no time) and the peak RSS and time of `condlint lint` on them
against onnx's `check_model(full_check=True)` on the same file and `cat FILE > /dev/null` (page cache warm).
Never run by the tests; the figures go in bench/README.md ("Big files").

    tools/venv/bin/python bench/big_onnx.py single OUT.onnx [--bytes 1900000000] [--kind float|int64|int32]
    tools/venv/bin/python bench/big_onnx.py external DIR [--bytes 20000000000] [--tensors 10]
    tools/venv/bin/python bench/big_onnx.py measure FILE... [--condlint build/condlint] [--runs 3]

The models are valid: inputs c (bool) and x (float[2]), one If (then x + one, else x - one), and weights that no
node reads: --tensors float initializers in the file (single), or in DIR/weights.bin (external). `run` never turns
them into tensors (no node reads them), so it works on any of them. --kind int64 or int32: the initializers are INT64
or INT32 [N / 1024, 1024] tensors whose values are a packed int64_data or int32_data run of varints (the hole reads as
N zeros of one byte each: the most values a run of that size holds, what protobuf's copy costs most for: 8 bytes of
int64 per byte of the file).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_rss import varint  # noqa: E402  (the protobuf varint the hostile-input bench writes with)


def if_model():
    from onnx import TensorProto, helper

    def branch(name, op):
        return helper.make_graph([helper.make_node(op, ["x", "one"], [name + "_out"])], name, [],
                                 [helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, [2])])

    node = helper.make_node("If", ["c"], ["y"], then_branch=branch("then", "Add"), else_branch=branch("else", "Sub"))
    graph = helper.make_graph([node], "main", [
        helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    ], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
                              [helper.make_tensor("one", TensorProto.FLOAT, [2], [1.0, 1.0])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)


def single(path, size, tensors=1, kind="float"):
    """The model with `tensors` initializers w0, w1, ... of `size` bytes together at the end of the file, their
    payloads left as holes (a sparse file): float raw_data, or an int64_data / int32_data run of zeros."""
    from onnx import TensorProto
    model = if_model()
    graph = model.graph.SerializeToString()
    model.ClearField("graph")
    heads = []
    for k in range(tensors):
        if kind == "float":
            each = size // tensors // 4 * 4
            w = TensorProto(name="w%d" % k, data_type=TensorProto.FLOAT, dims=[each // 4]).SerializeToString()
            tag = b"\x4a"  # raw_data
        else:
            each = size // tensors // 1024 * 1024
            data_type, tag = (TensorProto.INT64, b"\x3a") if kind == "int64" else (TensorProto.INT32, b"\x2a")
            w = TensorProto(name="w%d" % k, data_type=data_type, dims=[each // 1024, 1024]).SerializeToString()
        tensor = w + tag + varint(each)  # the payload's field; its bytes follow
        heads.append(b"\x2a" + varint(len(tensor) + each) + tensor)  # GraphProto.initializer
    body = len(graph) + sum(len(h) + each for h in heads)
    with open(path, "wb") as f:
        f.write(model.SerializeToString() + b"\x3a" + varint(body) + graph)  # ModelProto.graph
        for h in heads:
            f.write(h)
            f.seek(each, os.SEEK_CUR)
        f.truncate(f.tell())
        return f.tell()


def external(directory, size, tensors):
    """The model with `tensors` float initializers in DIR/weights.bin (sparse), `size` bytes together."""
    from onnx import TensorProto
    os.makedirs(directory, exist_ok=True)
    model = if_model()
    each = size // tensors // 4 * 4
    for k in range(tensors):
        t = model.graph.initializer.add()
        t.name, t.data_type = "w%d" % k, TensorProto.FLOAT
        t.dims.append(each // 4)
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", "weights.bin"), ("offset", str(k * each)), ("length", str(each))):
            e = t.external_data.add()
            e.key, e.value = key, value
    with open(os.path.join(directory, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    with open(os.path.join(directory, "weights.bin"), "wb") as f:
        f.truncate(each * tensors)
    return each * tensors


def run(cmd, stdout=subprocess.DEVNULL):
    """Wall time (s) and peak RSS (MiB) of one child process, and its exit code."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return time.monotonic() - start, ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def measure(files, condlint, runs):
    checker = ("import sys, onnx; onnx.checker.check_model(sys.argv[1], full_check=True)")
    tools = [
        ("cat > /dev/null", lambda f: ["sh", "-c", 'cat "$1" > /dev/null', "sh", f]),
        ("condlint lint", lambda f: [condlint, "lint", f]),
        ("onnx check_model(full_check=True)", lambda f: [sys.executable, "-c", checker, f]),
    ]
    for f in files:
        size = os.path.getsize(f)
        run(tools[0][1](f))  # the page cache warm
        print("%s (%.2f GB)" % (f, size / 1e9))
        base = None
        for name, cmd in tools:
            times, rss, codes = [], [], set()
            for _ in range(runs):
                t, r, code = run(cmd(f))
                times.append(t)
                rss.append(r)
                codes.add(code)
            t, r = statistics.median(times), max(rss)
            if base is None:
                base = (t, r)
            print("  %-36s %8.2f s %9.0f MiB  exit %s   x cat: %.1f time, %.1f RSS" %
                  (name, t, r, ",".join(map(str, sorted(codes))), t / base[0], r / base[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("single")
    s.add_argument("out")
    s.add_argument("--bytes", type=int, default=1_900_000_000)
    s.add_argument("--tensors", type=int, default=1)
    s.add_argument("--kind", choices=("float", "int64", "int32"), default="float")
    e = sub.add_parser("external")
    e.add_argument("dir")
    e.add_argument("--bytes", type=int, default=20_000_000_000)
    e.add_argument("--tensors", type=int, default=10)
    m = sub.add_parser("measure")
    m.add_argument("files", nargs="+")
    m.add_argument("--condlint", default=os.path.join(ROOT, "build", "condlint"))
    m.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if a.cmd == "single":
        print("%s: %d bytes" % (a.out, single(a.out, a.bytes, a.tensors, a.kind)))
    elif a.cmd == "external":
        print("%s: %d bytes of external data" % (a.dir, external(a.dir, a.bytes, a.tensors)))
    else:
        measure(a.files, a.condlint, a.runs)


if __name__ == "__main__":
    main()
