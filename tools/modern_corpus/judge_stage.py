"""Judges the exports an exporter script staged and puts their rows into corpus-modern/MANIFEST.tsv, keeping the
rows of every other model: regenerates one exporter's models without the torch environments.

Runs in tools/venv (onnx 1.23.2, onnxruntime 1.32.0: the judges generate.py's .venv holds).

Usage: tools/venv/bin/python judge_stage.py STAGE OUT
"""

import os
import shutil
import sys
import warnings

from judging import init, judge_stage, read_manifest, write_manifest

warnings.filterwarnings("ignore")


def main():
    stage, out = sys.argv[1], sys.argv[2]
    init(out)
    new = judge_stage(stage)
    stems = {os.path.basename(os.path.dirname(r["file"].split(" ")[0])) for r in new}
    for stem in stems:  # a model that failed to export this time leaves no stale directory
        if not os.path.exists(os.path.join(stage, stem + ".onnx")):
            shutil.rmtree(os.path.join(out, "onnx", stem), ignore_errors=True)
    kept = [r for r in read_manifest(out) if os.path.basename(os.path.dirname(r["file"].split(" ")[0])) not in stems]
    write_manifest(out, kept + new)


if __name__ == "__main__":
    main()
