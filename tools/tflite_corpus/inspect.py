"""Prints what a .tflite file holds: operator codes, signature defs, and per subgraph its inputs, outputs, tensors
(index, name, type, shape, shape_signature, constant or not) and operators (name, inputs, outputs, and the subgraph
indices of IF / WHILE / CALL_ONCE ops).

    tools/tflite_corpus/.venv/bin/python tools/tflite_corpus/inspect.py MODEL.tflite [--no-tensors]
"""
import os
import sys

# This folder holds inspect.py, which would shadow the standard library's inspect: drop the folder from sys.path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


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


tfl = _local("tfl")
S = tfl.S


def describe(path, tensors=True, out=sys.stdout):
    m = tfl.load(open(path, "rb").read())
    p = lambda *a: print(*a, file=out)
    p(f"{os.path.basename(path)}: version {m.version}, {len(m.subgraphs)} subgraphs, {len(m.buffers)} buffers")
    p("operator codes: " + ", ".join(f"{i}:{n}" for i, n in enumerate(tfl.code_names(m))))
    for sd in m.signatureDefs or []:
        p(f"signature '{sd.signatureKey.decode()}' subgraph {sd.subgraphIndex}: inputs "
          + ", ".join(f"{t.name.decode()}->t{t.tensorIndex}" for t in sd.inputs or [])
          + "; outputs " + ", ".join(f"{t.name.decode()}->t{t.tensorIndex}" for t in sd.outputs or []))
    for si, sg in enumerate(m.subgraphs):
        p(f"subgraph {si} '{tfl.sname(sg)}': inputs {tfl.lst(sg.inputs)} outputs {tfl.lst(sg.outputs)}")
        if tensors:
            for ti, t in enumerate(sg.tensors or []):
                const = t.buffer and m.buffers[t.buffer].data is not None and len(m.buffers[t.buffer].data) > 0
                sig = tfl.lst(t.shapeSignature) if t.shapeSignature is not None else None
                p(f"  t{ti:<3} {tfl.TYPE_NAMES.get(t.type, t.type):8} {str(tfl.lst(t.shape)):14}"
                  f"{(' sig ' + str(sig)) if sig is not None else '':14} {'const ' if const else ''}{tfl.tname(t)}")
        for oi, op in enumerate(sg.operators or []):
            extra = ""
            o = op.builtinOptions
            if isinstance(o, S.IfOptionsT):
                extra = f"  then={o.thenSubgraphIndex} else={o.elseSubgraphIndex}"
            elif isinstance(o, S.WhileOptionsT):
                extra = f"  cond={o.condSubgraphIndex} body={o.bodySubgraphIndex}"
            elif isinstance(o, getattr(S, "CallOnceOptionsT", ())):
                extra = f"  init={o.initSubgraphIndex}"
            p(f"  op{oi:<2} {tfl.opname(m, op):16} in {tfl.lst(op.inputs)} out {tfl.lst(op.outputs)}{extra}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        raise SystemExit(__doc__)
    for a in args:
        describe(a, tensors="--no-tensors" not in sys.argv)


if __name__ == "__main__":
    main()
