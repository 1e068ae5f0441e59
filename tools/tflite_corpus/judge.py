"""Runs one .tflite model on one data set with the LiteRT interpreter (ai_edge_litert), stage by stage.

Run in a subprocess by gen.py (the interpreter may abort or crash on a broken model):
    python judge.py JOB.json
JOB: {"model": path, "inputs": [{"index": tensor index, "npy": path, "resize": [dims] or null}],
      "outputs": [tensor index], "save": dir or null, "details": [[subgraph, tensor index]] (optional)}
Prints one line per stage as it finishes: `STAGE <name> ok` or `STAGE <name> FAIL <one-line message>`, names
constructor, allocate_tensors, set_inputs, invoke, get_outputs. With "details", also prints
`DETAILS <after stage> <json>` after allocate_tensors and after invoke: for each [subgraph, tensor] the 'shape' and
'shape_signature' that the public `Interpreter.get_tensor_details(subgraph_index)` reports. Imports no TensorFlow.
"""
import json
import os
import sys

# This folder holds inspect.py, which would shadow the standard library's inspect: drop the folder from sys.path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
import numpy as np  # noqa: E402


def say(stage, ok, msg=""):
    msg = " ".join(str(msg).split())
    print(f"STAGE {stage} {'ok' if ok else 'FAIL'}{(' ' + msg) if msg else ''}", flush=True)


def details(it, stage, want):
    """Prints shape and shape_signature from get_tensor_details(subgraph) for each [subgraph, tensor] in want."""
    if not want:
        return
    got = []
    for si, ti in want:
        d = {t["index"]: t for t in it.get_tensor_details(si)}.get(ti)
        got.append([si, ti, None if d is None else [int(v) for v in d["shape"]],
                    None if d is None else [int(v) for v in d["shape_signature"]]])
    print(f"DETAILS {stage} {json.dumps(got)}", flush=True)


def main():
    job = json.load(open(sys.argv[1]))
    from ai_edge_litert.interpreter import Interpreter
    try:
        it = Interpreter(model_path=job["model"])
    except Exception as e:  # noqa: BLE001 - the message is the oracle
        say("constructor", False, f"{type(e).__name__}: {e}")
        return
    say("constructor", True)
    try:
        for inp in job["inputs"]:
            if inp.get("resize") is not None:
                it.resize_tensor_input(inp["index"], inp["resize"])
        it.allocate_tensors()
    except Exception as e:  # noqa: BLE001
        say("allocate_tensors", False, f"{type(e).__name__}: {e}")
        return
    say("allocate_tensors", True)
    details(it, "allocate_tensors", job.get("details"))
    try:
        for inp in job["inputs"]:
            it.set_tensor(inp["index"], np.load(inp["npy"]))
    except Exception as e:  # noqa: BLE001
        say("set_inputs", False, f"{type(e).__name__}: {e}")
        return
    say("set_inputs", True)
    try:
        it.invoke()
    except Exception as e:  # noqa: BLE001
        say("invoke", False, f"{type(e).__name__}: {e}")
        return
    say("invoke", True)
    details(it, "invoke", job.get("details"))
    try:
        outs = [np.array(it.get_tensor(i)) for i in job["outputs"]]
    except Exception as e:  # noqa: BLE001
        say("get_outputs", False, f"{type(e).__name__}: {e}")
        return
    if job.get("save"):
        os.makedirs(job["save"], exist_ok=True)
        for k, o in enumerate(outs):
            np.save(os.path.join(job["save"], f"output_{k}.npy"), o)
    say("get_outputs", True, " ".join(f"{o.dtype}{list(o.shape)}" for o in outs))


if __name__ == "__main__":
    main()
