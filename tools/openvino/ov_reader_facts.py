#!/usr/bin/env python3
"""What OpenVINO's IR reader does with the corpus cases the README's "Why" section names: `ov_reader_facts.py
CORPUS_DIR` prints one JSON object whose members are the facts tests/live_targets_test.cpp checks
(LiveTargets.OpenVinoReaderClaims). Each case is read with openvino.Core().read_model and compiled for CPU; a
refusal is recorded with OpenVINO's words, never raised. Exit 2 when openvino is not installed."""
import json
import os
import sys


def main(argv):
    if len(argv) != 2:
        print("usage: ov_reader_facts.py CORPUS_DIR", file=sys.stderr)
        return 2
    try:
        import openvino as ov
    except ImportError as e:
        print(f"ov_reader_facts: openvino is not installed: {e}", file=sys.stderr)
        return 2
    core = ov.Core()
    ir = os.path.join(argv[1], "ir", "invalid")
    facts = {"version": ov.get_version()}

    def load(name):
        """The model, its first If, and what compile_model on CPU says ("" when it compiles)."""
        model = core.read_model(os.path.join(ir, name))
        op = next(o for o in model.get_ops() if o.get_type_name() == "If")
        try:
            core.compile_model(model, "CPU")
            compiled = ""
        except Exception as e:  # a refusal is a fact here
            compiled = str(e)
        return model, op, compiled

    def guarded(key, fn):
        try:
            facts[key] = fn()
        except Exception as e:  # read_model refused: the fact is the refusal
            facts[key] = {"read_model_refuses": str(e)}

    def duplicate_port_map():
        _, op, compiled = load("IR009_duplicate_input.xml")
        then = op.get_function(0)
        return {
            "then_parameters": [p.get_friendly_name() for p in then.get_parameters()],
            "then_bound": [then.get_parameters()[d.body_parameter_index].get_friendly_name()
                           for d in op.get_input_descriptions(0)],
            "compile": compiled,
        }

    def parameter_type():
        _, op, compiled = load("C008_input_type.xml")
        return {
            "outer_type": op.input(1).get_element_type().get_type_name(),
            "then_parameter_type": op.get_function(0).get_parameters()[0].get_element_type().get_type_name(),
            "compile": compiled,
        }

    def else_more_outputs():
        _, op, compiled = load("C005_else_more_outputs.xml")
        return {
            "if_outputs": op.get_output_size(),
            "then_results": len(op.get_function(0).get_results()),
            "else_results": len(op.get_function(1).get_results()),
            "else_output_descriptions": len(op.get_output_descriptions(1)),
            "compile": compiled,
        }

    def then_more_outputs():
        _, op, compiled = load("C005_output_count.xml")
        return {"if_outputs": op.get_output_size(), "compile": compiled}

    def condition_type():
        _, op, compiled = load("C002_cond_f32.xml")
        return {"condition_type": op.input(0).get_element_type().get_type_name(), "compile": compiled}

    guarded("duplicate_port_map", duplicate_port_map)
    guarded("parameter_type", parameter_type)
    guarded("else_more_outputs", else_more_outputs)
    guarded("then_more_outputs", then_more_outputs)
    guarded("condition_type", condition_type)
    print(json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
