"""What every exporter of the modern corpus writes into the stage directory (standard library only: each exporter
runs in a virtual environment of its own). generate.py judges what is staged."""
import json
import os
import traceback


def stage_export(stage, stem, meta, export):
    """Runs export(path) for STAGE/STEM.onnx and writes STAGE/STEM.json with `meta` (stem, source, exporter, ...). A
    failed export is recorded there as `export_error`, its partial file removed: one model's failure never stops the
    others."""
    path = os.path.join(stage, stem + ".onnx")
    try:
        export(path)
    except Exception as e:  # a failed export is recorded, not fatal
        meta["export_error"] = f"{type(e).__name__}: {str(e).splitlines()[-1] if str(e) else ''}"[:500]
        traceback.print_exc(limit=2)
        if os.path.exists(path):
            os.remove(path)
    with open(os.path.join(stage, stem + ".json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(stem, "FAILED: " + meta["export_error"] if "export_error" in meta else "ok", flush=True)
