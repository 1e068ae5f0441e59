#!/usr/bin/env python3
"""Writes a large NNAPI model for timing `condlint lint`: N chained IF operations in main that all
share one then graph and one else graph (shared subgraphs must not be duplicated or walked twice).
Usage: python3 bench/nnapi_big_if.py [N] > /tmp/big_if.nnapi.json
       /usr/bin/time -f "%e s %M KB" ./build/condlint lint /tmp/big_if.nnapi.json"""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
operands = [
    {"type": "TENSOR_BOOL8", "dimensions": [1], "lifetime": "SUBGRAPH_INPUT"},
    {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": 0}},
    {"type": "SUBGRAPH", "lifetime": "SUBGRAPH", "location": {"offset": 1}},
    {"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_INPUT"},
]
ops = []
prev = 3
for i in range(n):
    operands.append({"type": "TENSOR_FLOAT32", "dimensions": [2],
                     "lifetime": "SUBGRAPH_OUTPUT" if i == n - 1 else "TEMPORARY_VARIABLE"})
    ops.append({"type": "IF", "inputs": [0, 1, 2, prev], "outputs": [len(operands) - 1]})
    prev = len(operands) - 1


def branch(op):
    return {"operands": [{"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_INPUT"},
                         {"type": "TENSOR_FLOAT32", "dimensions": [2], "lifetime": "SUBGRAPH_OUTPUT"}],
            "operations": [{"type": op, "inputs": [0], "outputs": [1]}],
            "inputIndexes": [0], "outputIndexes": [1]}


json.dump({"format": "nnapi-model", "version": 1,
           "main": {"operands": operands, "operations": ops, "inputIndexes": [0, 3], "outputIndexes": [prev]},
           "referenced": [branch("RELU"), branch("TANH")]}, sys.stdout, indent=1)
