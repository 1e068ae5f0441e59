#!/usr/bin/env python3
"""Peak RSS of `condlint lint` on files that declare huge shapes, per format, against the bound of
docs/hardening.md (16 x the file + 64 MiB). Prints one line per file; never run by the tests (figures go in the
issue notes).

    /usr/bin/python3 bench/hostile_rss.py [--condlint build/condlint] [--dims 5000000]
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    return key + varint(len(payload)) + payload if wire == 2 else key + payload


def onnx_file(path, dims):
    """A ModelProto whose graph input 'x' declares `dims` dimensions of 1 (written as protobuf bytes directly)."""
    shape = field(1, 2, field(1, 0, varint(1))) * dims
    tensor = field(1, 0, varint(1)) + field(2, 2, shape)
    vi_in = field(1, 2, b"x") + field(2, 2, field(1, 2, tensor))
    out_tensor = field(1, 0, varint(1)) + field(2, 2, field(1, 2, field(1, 0, varint(1))))
    vi_out = field(1, 2, b"y") + field(2, 2, field(1, 2, out_tensor))
    node = field(1, 2, b"x") + field(2, 2, b"y") + field(4, 2, b"Identity")
    graph = field(1, 2, node) + field(2, 2, b"g") + field(11, 2, vi_in) + field(12, 2, vi_out)
    model = field(1, 0, varint(8)) + field(7, 2, graph) + field(8, 2, field(1, 2, b"") + field(2, 0, varint(17)))
    with open(path, "wb") as f:
        f.write(model)


def corpus_file_with_dims(template, before, after):
    """A writer of the corpus file `template` whose text `before` + "<dims>" + `after` replaces the first
    `before` ... `after` span: the shape it declares becomes `dims` ones."""
    def write(path, dims):
        text = open(os.path.join(ROOT, template)).read()
        start = text.index(before)
        end = text.index(after, start + len(before)) + len(after)
        text = text[:start] + before + ",".join(["1"] * dims) + after + text[end:]
        with open(path, "w") as f:
            f.write(text)
    return write


nnapi_file = corpus_file_with_dims("corpus/nnapi/valid/if_add_or_sub.nnapi.json",
                                   '{"name": "x", "type": "TENSOR_FLOAT32", "dimensions": [', "]")
ir_file = corpus_file_with_dims("corpus/ir/valid/dynamic_shapes.xml", '<data element_type="f32" shape="', '"/>')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--condlint", default=os.path.join(ROOT, "build/condlint"))
    ap.add_argument("--dims", type=int, default=5_000_000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        print(f"{'file':<24} {'MB':>7} {'exit':>4} {'peak MiB':>9} {'RSS/file':>9} {'bound MiB':>10}")
        for name, make in (("huge.onnx", onnx_file), ("huge.nnapi.json", nnapi_file), ("huge.xml", ir_file)):
            p = os.path.join(d, name)
            make(p, a.dims)
            size = os.path.getsize(p)
            # A fresh Python per measurement: ru_maxrss of children is the largest child so far.
            out = subprocess.run([sys.executable, "-c",
                                  "import resource,subprocess,sys;"
                                  "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
                                  "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
                                  a.condlint, "lint", p], capture_output=True, text=True).stdout.split()
            code, kib = int(out[0]), int(out[1])
            bound = 16 * size / 2**20 + 64
            print(f"{name:<24} {size / 1e6:7.1f} {code:>4} {kib / 1024:9.0f} {kib * 1024 / size:8.1f}x {bound:10.0f}"
                  f"{'' if kib / 1024 <= bound else '  OVER'}")


if __name__ == "__main__":
    main()
