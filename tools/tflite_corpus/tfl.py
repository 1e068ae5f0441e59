"""Reading, editing and writing .tflite flatbuffers with TensorFlow's own generated object API
(tensorflow.lite.python.schema_py_generated, made by flatc --python --gen-object-api from TFLite's schema.fbs)."""
import flatbuffers
from tensorflow.lite.python import schema_py_generated as S

OP_NAMES = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_") and isinstance(v, int)}
TYPE_NAMES = {v: k for k, v in vars(S.TensorType).items() if not k.startswith("_") and isinstance(v, int)}
IF, WHILE = S.BuiltinOperator.IF, S.BuiltinOperator.WHILE


def load(data: bytes):
    return S.ModelT.InitFromObj(S.Model.GetRootAsModel(bytearray(data), 0))


def dump(m) -> bytes:
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def opcode(m, op):
    c = m.operatorCodes[op.opcodeIndex]
    return max(c.builtinCode, c.deprecatedBuiltinCode)


def opname(m, op):
    code = opcode(m, op)
    if code == S.BuiltinOperator.CUSTOM:
        return "CUSTOM:" + m.operatorCodes[op.opcodeIndex].customCode.decode()
    return OP_NAMES.get(code, str(code))


def code_names(m):
    out = []
    for c in m.operatorCodes:
        code = max(c.builtinCode, c.deprecatedBuiltinCode)
        out.append("CUSTOM:" + c.customCode.decode() if code == S.BuiltinOperator.CUSTOM else OP_NAMES.get(code, str(code)))
    return out


def ops(m, code=None):
    """(subgraph index, op index, op) for every operator, optionally of one builtin code."""
    for si, sg in enumerate(m.subgraphs):
        for oi, op in enumerate(sg.operators or []):
            if code is None or opcode(m, op) == code:
                yield si, oi, op


def lst(a):
    return [] if a is None else [int(v) for v in a]


def sname(sg):
    return sg.name.decode() if sg.name else ""


def tname(t):
    return t.name.decode() if t.name else ""
