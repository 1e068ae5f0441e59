#!/usr/bin/env python3
"""Cold runs of a C++ benchmark's steps, interleaved: the robust way to compare on a noisy VM.

    python3 bench/cold_ab.py ROUNDS BENCH FILE [NAME:VAR=VALUE;VAR=VALUE ...]

BENCH is build/condlint_bench_ir or build/condlint_bench_onnx; FILE a model they read (write one with
`condlint_bench_onnx 10000 --write DIR` or `condlint_bench_ir 2000 8 1 --write FILE`). Every round runs, for each
variant in turn (its environment added, e.g. `nopf:CONDLINT_NO_PREFAULT=1`; none given: one variant "default"),
the bare parse and the full lint, each in a fresh process (`BENCH --child STEP FILE`, bench/measure.hpp). The
machine's drift (a neighbour, the host reclaiming memory) then hits every variant alike. Prints, per variant,
every parse/lint pair in ms, the medians and the median of the per-round lint/parse ratios.
Standard library only.
"""
import os
import statistics
import struct
import subprocess
import sys


def child(bench, step, path, env):
    """One cold run of STEP; its milliseconds as the child reports them on fd 3."""
    r, w = os.pipe()
    keep = os.dup(r)
    os.close(r)
    if w != 3:
        os.dup2(w, 3)
        os.close(w)
    full = dict(os.environ)
    full.update(env)
    p = subprocess.Popen([bench, "--child", step, path], pass_fds=(3,), env=full,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(3)
    p.wait()
    data = os.read(keep, 24)
    os.close(keep)
    if p.returncode != 0 or len(data) != 24:
        sys.exit(f"{bench} --child {step} {path} failed (exit {p.returncode})")
    return struct.unpack("ddd", data)[0]  # ms, base RSS, peak RSS


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, bench, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    variants = []
    for v in sys.argv[4:] or ["default:"]:
        name, _, assigns = v.partition(":")
        variants.append((name, dict(a.split("=", 1) for a in assigns.split(";") if a)))
    runs = {name: [] for name, _ in variants}
    for _ in range(rounds):
        for name, env in variants:
            parse = child(bench, "parse", path, env)
            lint = child(bench, "lint", path, env)
            runs[name].append((parse, lint))
    for name, pairs in runs.items():
        parse = statistics.median(p for p, _ in pairs)
        lint = statistics.median(l for _, l in pairs)
        ratio = statistics.median(l / p for p, l in pairs)
        print(f"{name}: " + " ".join(f"{p:.0f}/{l:.0f}" for p, l in pairs))
        print(f"{name}: parse {parse:.1f} ms, lint {lint:.1f} ms (medians of {rounds}); "
              f"lint/parse {ratio:.2f}x (median of the rounds), {lint / parse:.2f}x (of the medians)")


if __name__ == "__main__":
    main()
