#!/usr/bin/env python3
"""Writes an OpenVINO IR (stdout) with N nested If layers (argument N), each in the then body of the one above:
the probe of data/targets.json's ir_if_nesting_enforced row (write an empty .bin beside it and read it with
openvino.Core().read_model)."""
import sys
sys.setrecursionlimit(100000)
def param(i, name, et, shape, indent):
    p = ""
    prec = "BOOL" if et == "boolean" else "FP32"
    dims = "".join(f"\n{p}            <dim>{d}</dim>" for d in shape)
    close = f"\n{p}        </port>" if shape else ""
    port = f'<port id="0" precision="{prec}">{dims}{close}' if shape else f'<port id="0" precision="{prec}"/>'
    return (f'{p}<layer id="{i}" name="{name}" type="Parameter" version="opset1">\n'
            f'{p}    <data element_type="{et}" shape="{",".join(map(str, shape))}"/>\n'
            f'{p}    <output>\n{p}        {port}\n{p}    </output>\n{p}</layer>\n')
def result(i, name, indent):
    p = ""
    return (f'{p}<layer id="{i}" name="{name}" type="Result" version="opset1">\n'
            f'{p}    <input>\n{p}        <port id="0" precision="FP32">\n{p}            <dim>2</dim>\n'
            f'{p}        </port>\n{p}    </input>\n{p}</layer>\n')
def edge(a, ap, b, bp, indent):
    return f'<edge from-layer="{a}" from-port="{ap}" to-layer="{b}" to-port="{bp}"/>\n'
def if_layer(i, level, n, indent):
    # If(cond, x) at nesting level `level` (1 = outermost); its then body nests the next If.
    p = ""
    s = f'{p}<layer id="{i}" name="if_{level}" type="If" version="opset8">\n'
    s += f'{p}    <input>\n{p}        <port id="0"/>\n{p}        <port id="1">\n{p}            <dim>2</dim>\n{p}        </port>\n{p}    </input>\n'
    s += f'{p}    <output>\n{p}        <port id="2" precision="FP32">\n{p}            <dim>2</dim>\n{p}        </port>\n{p}    </output>\n'
    if level < n:
        s += f'{p}    <then_port_map>\n{p}        <input external_port_id="0" internal_layer_id="0"/>\n{p}        <input external_port_id="1" internal_layer_id="1"/>\n{p}        <output external_port_id="0" internal_layer_id="3"/>\n{p}    </then_port_map>\n'
    else:
        s += f'{p}    <then_port_map>\n{p}        <input external_port_id="1" internal_layer_id="0"/>\n{p}        <output external_port_id="0" internal_layer_id="1"/>\n{p}    </then_port_map>\n'
    s += f'{p}    <else_port_map>\n{p}        <input external_port_id="1" internal_layer_id="0"/>\n{p}        <output external_port_id="0" internal_layer_id="1"/>\n{p}    </else_port_map>\n'
    q = indent + 8
    s += f'{p}    <then_body>\n{p}        <layers>\n'
    if level < n:
        s += param(0, "c", "boolean", [], q + 4) + param(1, "a", "f32", [2], q + 4) + if_layer(2, level + 1, n, q + 4) + result(3, "r", q + 4)
        s += f'{p}        </layers>\n{p}        <edges>\n' + edge(0, 0, 2, 0, q + 4) + edge(1, 0, 2, 1, q + 4) + edge(2, 2, 3, 0, q + 4)
    else:
        s += param(0, "a", "f32", [2], q + 4) + result(1, "r", q + 4)
        s += f'{p}        </layers>\n{p}        <edges>\n' + edge(0, 0, 1, 0, q + 4)
    s += f'{p}        </edges>\n{p}    </then_body>\n'
    s += f'{p}    <else_body>\n{p}        <layers>\n' + param(0, "a", "f32", [2], q + 4) + result(1, "r", q + 4)
    s += f'{p}        </layers>\n{p}        <edges>\n' + edge(0, 0, 1, 0, q + 4) + f'{p}        </edges>\n{p}    </else_body>\n'
    s += f'{p}</layer>\n'
    return s
n = int(sys.argv[1])
out = '<?xml version="1.0"?>\n<net name="nested_ifs" version="11">\n    <layers>\n'
out += param(0, "cond", "boolean", [], 8) + param(1, "x", "f32", [2], 8) + if_layer(2, 1, n, 8) + result(3, "out", 8)
out += '    </layers>\n    <edges>\n' + edge(0, 0, 2, 0, 8) + edge(1, 0, 2, 1, 8) + edge(2, 2, 3, 0, 8) + '    </edges>\n</net>\n'
sys.stdout.write(out)
