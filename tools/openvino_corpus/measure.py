#!/usr/bin/env python3
"""Measures condlint on corpus-openvino/ (issue 45, item 1): for every IR, `condlint lint --format json` and
`condlint run --format json` and, for every IR with golden data, `condlint diff --runtime ref --runtime openvino`
(when this Python has OpenVINO), joined with OpenVINO's own verdicts (corpus-openvino/MANIFEST.tsv), and writes
docs/openvino-corpus.md (figures, then the table).

    tools/venv/bin/python tools/openvino_corpus/measure.py [--condlint build/condlint] [--corpus corpus-openvino]
                                                           [--doc docs/openvino-corpus.md] [--json FILE]

Standard library only (any python3). One condlint process at a time (`lint -j 1`). An IR without golden data beside
it (OpenVINO did not compile or run it, so generate.py wrote none) is run with `--random 1` instead, which says
whether the executor has its ops. IRs under corpus-openvino/local/ (not committed: licence or size) are measured
too when they are there, and marked.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def find_irs(corpus):
    out = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        if dirpath == corpus and "ops" in dirnames:
            dirnames.remove("ops")  # op_oracle.py's one-op cases, not the converter's IRs
        dirnames.sort()
        if "model.xml" in filenames:
            out.append(os.path.join(dirpath, "model.xml"))
    return sorted(out)


def ir_id(corpus, xml):
    rel = os.path.relpath(os.path.dirname(xml), corpus).split(os.sep)
    local = rel[0] == "local"
    if local:
        rel = rel[1:]
    return "/".join(rel[:-1]), rel[-1], local


def manifest(corpus):
    rows = {}
    path = os.path.join(corpus, "MANIFEST.tsv")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    cols = lines[0].split("\t")
    for line in lines[1:]:
        r = dict(zip(cols, line.split("\t")))
        rows[(r["id"], r["variant"])] = r
    return rows, [dict(zip(cols, l.split("\t"))) for l in lines[1:]]


def run_cmd(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"


def op_census(xml):
    """Op types of every layer at any depth (If bodies and Loop/TensorIterator bodies are nested <layers>)."""
    import xml.etree.ElementTree as ET

    types = collections.Counter()
    for layer in ET.parse(xml).getroot().iter("layer"):
        t = layer.get("type")
        if t:
            types[t] += 1
    return types


PRECISION = {"f64": "FP64", "f32": "FP32", "f16": "FP16", "bf16": "BF16", "i64": "I64", "i32": "I32", "i16": "I16",
             "i8": "I8", "u64": "U64", "u32": "U32", "u16": "U16", "u8": "U8", "boolean": "BOOL", "u1": "BIN"}


def convert_port_mismatches(xml):
    """Convert layers whose output port precision is not their destination_type (at any depth): (in a body?,
    decompression?) for each."""
    import xml.etree.ElementTree as ET

    out = []

    def walk(layers, depth):
        for l in layers.findall("layer"):
            if l.get("type") == "Convert":
                data, port = l.find("data"), l.find("output/port")
                dt = data.get("destination_type") if data is not None else None
                if dt and port is not None and PRECISION.get(dt, dt.upper()) != port.get("precision"):
                    dec = l.find("rt_info/attribute[@name='decompression']") is not None
                    out.append((depth > 0, dec))
            for b in ("then_body", "else_body", "body"):
                e = l.find(b)
                if e is not None and e.find("layers") is not None:
                    walk(e.find("layers"), depth + 1)

    walk(ET.parse(xml).getroot().find("layers"), 0)
    return out


def executor_ops():
    """The IR op types condlint's executor has (src/exec/ir_exec.cpp's handler table and exec/ir_onnx_ops.cpp);
    empty when the sources are not there."""
    ops = set()
    try:
        with open(os.path.join(ROOT, "src", "exec", "ir_exec.cpp"), encoding="utf-8") as f:
            ops |= set(re.findall(r'\{"([A-Za-z0-9_]+)",\s*&IrRunner::', f.read()))
        with open(os.path.join(ROOT, "src", "exec", "ir_onnx_ops.cpp"), encoding="utf-8") as f:
            ops |= set(re.findall(r'\{"([A-Za-z0-9_]+)",\s*"', f.read()))
    except OSError:
        pass
    return ops


def lint(condlint, xml):
    rc, out, err = run_cmd([condlint, "lint", "--format", "json", "--fail-on", "never", "-j", "1", xml], 600)
    if rc is None or rc == 2:
        return {"error": (err or out).strip()[:300] or f"exit {rc}"}
    try:
        rep = json.loads(out)
    except ValueError:
        return {"error": "no JSON report: " + (err or out)[:200]}
    findings = [f for file in rep.get("files", []) for f in file.get("findings", [])]
    by = collections.Counter((f["level"], f["rule"], f.get("name", "")) for f in findings)
    return {"findings": findings, "by": by}


def unsupported_op(message):
    m = re.match(r"unsupported op (\S+)", message or "")
    return m.group(1) if m else None


def run(condlint, xml):
    has_data = any(n.startswith("test_data_set_") for n in os.listdir(os.path.dirname(xml)))
    cmd = [condlint, "run", "--format", "json", "--timeout", "300", xml] + ([] if has_data else ["--random", "1"])
    rc, out, err = run_cmd(cmd, 900)
    res = {"data": "golden" if has_data else "random 1", "rc": rc}
    if rc is None:
        res.update(status="failed", detail=err)
        return res
    try:
        rep = json.loads(out)
    except ValueError:
        res.update(status="failed" if rc != 2 else "usage error", detail=" ".join((err or out).split())[:300])
        return res
    cases = rep.get("cases", [])
    s = rep.get("summary", {})
    unsup = [c for c in cases if c.get("status") == "unsupported"]
    failed = [c for c in cases if c.get("status") not in ("passed", "unsupported")]
    res["summary"] = s
    res["branches"] = s.get("branches", {})
    if unsup:
        ops = sorted({unsupported_op(c.get("message")) or "?" for c in unsup})
        res.update(status="unsupported", ops=ops, detail=unsup[0].get("message", ""))
    elif failed or rc != 0:
        c = failed[0] if failed else {}
        msg = c.get("message") or ""
        if not msg:
            bad = [o for o in c.get("outputs", []) if not o.get("ok", True)]
            if bad:
                msg = (f"output '{bad[0].get('name')}' differs: max abs err {bad[0].get('max_abs_error')}, "
                       f"max rel err {bad[0].get('max_rel_error')} ({bad[0].get('tolerance')})")
            elif c.get("branch_problems"):
                msg = "branch problem: " + json.dumps(c["branch_problems"][0])[:200]
        res.update(status="failed", detail=(msg or err.strip() or f"exit {rc}")[:300])
    else:
        res.update(status="passed", detail=f"{s.get('passed', 0)} run(s)")
    return res


def diff(condlint, xml):
    """`condlint diff --runtime ref --runtime openvino` of an IR with golden data (the reference executor runs the IR
    itself, OpenVINO reads the same files, in f32), when this Python has OpenVINO; None otherwise."""
    if not os.path.isdir(os.path.join(os.path.dirname(xml), "test_data_set_0")):
        return None
    try:
        import openvino  # noqa: F401  (the runtime the adapter runs in this interpreter)
    except ImportError:
        return None
    env = dict(os.environ, CONDLINT_PYTHON=sys.executable)
    try:
        p = subprocess.run([condlint, "diff", "--runtime", "ref", "--runtime", "openvino", "--format", "json", xml],
                           capture_output=True, text=True, timeout=900, env=env)
        rep = json.loads(p.stdout)
        m = rep["models"][0]
    except (subprocess.TimeoutExpired, ValueError, KeyError, IndexError) as e:
        return {"error": str(e)[:200]}
    if m.get("error"):
        return {"error": m["error"][:200]}
    s = m.get("summary", {})
    return {k: s.get(k, 0) for k in ("runs", "agree", "diverge", "failed", "not_comparable")}


def esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--condlint", default=os.path.join(ROOT, "build", "condlint"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpus-openvino"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "openvino-corpus.md"))
    ap.add_argument("--json", help="also write the measurements as JSON to FILE")
    a = ap.parse_args()
    if not os.access(a.condlint, os.X_OK):
        print(f"measure: {a.condlint} is not there (build condlint first)", file=sys.stderr)
        return 2
    version = subprocess.run([a.condlint, "--version"], capture_output=True, text=True).stdout.strip()
    mrows, mall = manifest(a.corpus)
    have = executor_ops()
    irs = find_irs(a.corpus)
    results = []
    for n, xml in enumerate(irs):
        sid, variant, local = ir_id(a.corpus, xml)
        print(f"[{n + 1}/{len(irs)}] {sid} {variant}", flush=True)
        m = mrows.get((sid, variant), {})
        ov_ok = m.get("compile") == "ok" and m.get("run", "").startswith("ok")
        lr = lint(a.condlint, xml)
        rr = run(a.condlint, xml)
        dr = diff(a.condlint, xml)
        census = op_census(xml)
        results.append({"id": sid, "variant": variant, "local": local, "xml": os.path.relpath(xml, ROOT),
                        "ov_read": m.get("read", "?"), "ov_compile": m.get("compile", "?"), "ov_run": m.get("run", "?"),
                        "ov_ok": ov_ok, "lint": lr, "run": rr, "diff": dr, "ops": census,
                        "convert_mismatch": convert_port_mismatches(xml),
                        "lacking": sorted(t for t in census if have and t not in have)})

    # ---- figures
    total = len(results)
    n_ov = sum(r["ov_ok"] for r in results)
    clean = [r for r in results if "by" in r["lint"] and not any(l in ("error", "warning") for l, _, _ in r["lint"]["by"])]
    passed = [r for r in results if r["run"]["status"] == "passed"]
    passed_golden = [r for r in passed if r["run"]["data"] == "golden"]
    unsup = collections.Counter()
    for r in results:
        for op in r["run"].get("ops", []):
            unsup[op] += 1
    lacking = collections.Counter()
    for r in results:
        for op in r["lacking"]:
            lacking[op] += 1
    blocked_only_by = collections.Counter(r["lacking"][0] for r in results if len(r["lacking"]) == 1)
    false_by_rule = collections.defaultdict(lambda: [0, 0, "", ""])  # rule -> [IRs, findings, level, name]
    for r in results:
        if not r["ov_ok"] or "by" not in r["lint"]:
            continue
        seen = set()
        for (level, rule, name), k in r["lint"]["by"].items():
            if level not in ("error", "warning"):
                continue
            e = false_by_rule[rule]
            e[1] += k
            e[2], e[3] = level, name
            if rule not in seen:
                e[0] += 1
                seen.add(rule)
    notes_by_rule = collections.Counter()
    for r in results:
        for (level, rule, name), k in r["lint"].get("by", {}).items():
            if level == "note":
                notes_by_rule[(rule, name)] += k
    run_fail = [r for r in results if r["run"]["status"] in ("failed", "usage error")]
    ov_ok_run = [r for r in results if r["ov_ok"]]
    ov_ok_passed = [r for r in ov_ok_run if r["run"]["status"] == "passed"]
    ov_ok_clean = [r for r in ov_ok_run if r in clean]

    sources = sorted({r["id"] for r in mall})
    conv = sum(1 for r in mall if r.get("xml md5"))
    L = []
    w = L.append
    w("# condlint on IR that OpenVINO wrote (corpus-openvino/)")
    w("")
    w("Issue 45, item 1. `corpus-openvino/` holds OpenVINO IR written by `openvino.convert_model` + `openvino.save_model`"
      " from every ONNX model of this repository with an If or a Loop (corpus-modern/, corpus/onnx/valid/, and the npm"
      " models of tools/models/), each in two variants (fp16: the default `compress_to_fp16=True`; fp32), with"
      " OpenVINO's own verdicts and OpenVINO's outputs as golden data; how it was made: corpus-openvino/README.md."
      " This page is written by `tools/openvino_corpus/measure.py` (do not edit the figures by hand; run it again).")
    w("")
    import time
    built = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(a.condlint)))
    w(f"condlint: `{version}` (`{os.path.relpath(a.condlint, ROOT)}`, built {built}); OpenVINO:"
      f" {mall[0]['openvino version'] if mall else '?'}.")
    w("")
    w("## Figures")
    w("")
    w(f"- Sources: {len(sources)} ONNX models with If/Loop; conversions attempted: {len(mall)} (source x variant);"
      f" IRs written: {conv}; IRs measured here: {total}"
      + (f" ({sum(r['local'] for r in results)} of them under corpus-openvino/local/, not committed)" if any(r['local'] for r in results) else "")
      + ".")
    w(f"- OpenVINO: {sum(1 for r in results if r['ov_read'] == 'ok')} / {total} IRs read back, "
      f"{sum(1 for r in results if r['ov_compile'] == 'ok')} compile on CPU (f32 hint), {n_ov} run.")
    w(f"- condlint lint: **{len(clean)} / {total} IRs lint-clean** (no error, no warning);"
      f" of the {n_ov} IRs OpenVINO compiles and runs, {len(ov_ok_clean)} are lint-clean.")
    w(f"- condlint run: **{len(passed)} / {total} IRs run and pass** ({len(passed_golden)} against OpenVINO's golden"
      f" outputs, {len(passed) - len(passed_golden)} on `--random 1` only, for IRs without golden data);"
      f" {sum(1 for r in results if r['run']['status'] == 'unsupported')} stop at an unsupported op,"
      f" {len(run_fail)} fail. Of the {n_ov} IRs OpenVINO runs, {len(ov_ok_passed)} pass `condlint run`.")
    diffed = [r for r in results if r.get("diff")]
    if diffed:
        ok = [r for r in diffed if "error" not in r["diff"]]
        tot = {k: sum(r["diff"][k] for r in ok) for k in ("runs", "agree", "diverge", "failed", "not_comparable")}
        w(f"- condlint diff (`--runtime ref --runtime openvino`: the reference executor runs the IR itself, OpenVINO"
          f" reads the same files, compiled in f32) on the {len(diffed)} IRs with golden data:"
          f" **{sum(1 for r in ok if r['diff']['diverge'] == 0 and r['diff']['failed'] == 0)} / {len(diffed)} with no"
          f" divergence and no failure**; {tot['runs']} runs (as the data takes them, each If pinned to each branch"
          f" the policy lets a pin reach, synthesized inputs): {tot['agree']} agree, {tot['diverge']} diverge,"
          f" {tot['failed']} fail, {tot['not_comparable']} not comparable (a pinned state every runtime refuses);"
          f" {len(diffed) - len(ok)} could not be diffed.")
    w("")
    w("### Op types condlint's IR executor lacks")
    w("")
    w("First blocker: the op named by `unsupported op NAME` in `condlint run` (a run stops at the first one), with"
      " the number of IRs it stops. All missing: every op type in the IR (at any depth) that the executor's tables"
      " (src/exec/ir_exec.cpp, src/exec/ir_onnx_ops.cpp) lack, with the number of IRs holding it; 'sole' is the number"
      " of IRs in which it is the only missing op type (adding it alone would unblock them, as far as op types go).")
    w("")
    w("| op | IRs stopped by it (first blocker) | IRs holding it | sole missing op |")
    w("| --- | ---: | ---: | ---: |")
    for op in sorted(set(unsup) | set(lacking), key=lambda o: (-lacking.get(o, 0), -unsup.get(o, 0), o)):
        w(f"| {op} | {unsup.get(op, 0)} | {lacking.get(op, 0) if have else '?'} | {blocked_only_by.get(op, 0)} |")
    w("")
    w("### Lint errors and warnings on IRs OpenVINO compiles and runs (false alarms)")
    w("")
    if false_by_rule:
        w("| rule | level | IRs | findings |")
        w("| --- | --- | ---: | ---: |")
        for rule, (k_ir, k, level, name) in sorted(false_by_rule.items(), key=lambda x: (-x[1][0], x[0])):
            w(f"| {rule} {name} | {level} | {k_ir} | {k} |")
    else:
        w("None: every IR OpenVINO compiles and runs is free of lint errors and warnings.")
    w("")
    if notes_by_rule:
        w("Notes (all IRs): " + ", ".join(f"{rule} {name} x{k}" for (rule, name), k in sorted(notes_by_rule.items())) + ".")
        w("")
    w("### Observations computed from the corpus")
    w("")
    cm = [r for r in results if r["convert_mismatch"]]
    if cm:
        k_body_dec = sum(1 for r in cm for b, d in r["convert_mismatch"] if b and d)
        w(f"- {len(cm)} IRs hold a `Convert` whose output `<port precision>` is not its `destination_type`"
          f" ({sum(len(r['convert_mismatch']) for r in cm)} layers; {k_body_dec} of them decompression Converts"
          " (`rt_info` `decompression`, what `compress_to_fp16` inserts) inside If bodies): "
          + ", ".join(f"{r['id']}/{r['variant']}" for r in cm) + ". OpenVINO does not trust these ports either:"
          " read_model infers the types again from the ops (the If outputs and branch Results come back f32); a"
          " checker that takes the port precision as written sees f16 where OpenVINO computes f32.")
    fp16_only = collections.Counter()
    by_key = {(r["id"], r["variant"]): r for r in results}
    for r in results:
        if not r["variant"].startswith("fp16") or "by" not in r["lint"]:
            continue
        twin = by_key.get((r["id"], "fp32" + r["variant"][4:]))
        if twin is None or "by" not in twin["lint"]:
            continue
        mine = {rule for (level, rule, _), _k in r["lint"]["by"].items() if level in ("error", "warning")}
        theirs = {rule for (level, rule, _), _k in twin["lint"]["by"].items() if level in ("error", "warning")}
        for rule in mine - theirs:
            fp16_only[rule] += 1
    if fp16_only:
        w("- Rules that fire on the fp16 IR of a source but not on its fp32 IR (the compression alone brings them):"
          " " + ", ".join(f"{rule} on {k} IRs" for rule, k in sorted(fp16_only.items())) + ".")
    lower = {h.lower(): h for h in have}
    case = [(op, lower[op.lower()]) for op in sorted(lacking) if op.lower() in lower]
    if case:
        w("- Op types OpenVINO writes under a name that differs only in case from one the executor has (the"
          " executor's table never matches them): " + ", ".join(
              f"`{op}` (OpenVINO, {lacking[op]} IRs) vs `{h}` (condlint)" for op, h in case) + ".")
    cov = collections.Counter()
    for r in passed:
        for k, v in r["run"].get("branches", {}).items():
            cov[k] += v
    if cov:
        w("- If branches in the IRs that pass `condlint run`: " + ", ".join(f"{k.replace('_', ' ')} {v}"
                                                                        for k, v in sorted(cov.items()) if v) + ".")
    w("")
    w("## Per IR")
    w("")
    w("OpenVINO: read / compile / run (from MANIFEST.tsv). lint: errors and warnings by rule (notes left out)."
      " run: `condlint run` on the golden data beside the IR (`random` when there is none). If branches: the"
      " branch counts of `condlint run`'s summary (data: taken by a data set; pinned; dead; not reached: inside a"
      " branch no run reached, e.g. after an unsupported op). diff ref vs openvino: runs agree / diverge / fail"
      " (IRs with golden data; `-` where there is none or this Python has no OpenVINO).")
    w("")
    w("| IR | OpenVINO | lint | condlint run | If branches (condlint run) | diff ref vs openvino |")
    w("| --- | --- | --- | --- | --- | --- |")
    for r in results:
        ov = "/".join("ok" if v == "ok" or str(v).startswith("ok") else ("-" if v in ("-", "", "?") else "FAIL")
                      for v in (r["ov_read"], r["ov_compile"], r["ov_run"]))
        if "by" in r["lint"]:
            parts = [f"{rule}x{k}" + ("" if level == "warning" else f" ({level})")
                     for (level, rule, name), k in sorted(r["lint"]["by"].items(), key=lambda x: (x[0][0], x[0][1]))
                     if level in ("error", "warning")]
            lt = ", ".join(parts) or "clean"
        else:
            lt = "lint failed: " + r["lint"]["error"]
        rr = r["run"]
        if rr["status"] == "passed":
            rt = "passed" + (" (random inputs)" if rr["data"] != "golden" else "")
        elif rr["status"] == "unsupported":
            rt = "unsupported op " + ", ".join(rr["ops"])
        else:
            rt = f"{rr['status']}: {rr.get('detail', '')}"
        name = f"{r['id']}/{r['variant']}" + (" (local)" if r["local"] else "")
        br = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(rr.get("branches", {}).items()) if v) or "-"
        d = r.get("diff")
        dt = "-" if not d else (d["error"] if "error" in d else f"{d['agree']} / {d['diverge']} / {d['failed']}")
        w(f"| {esc(name)} | {ov} | {esc(lt)} | {esc(rt)} | {esc(br)} | {esc(dt)} |")
    w("")
    os.makedirs(os.path.dirname(a.doc), exist_ok=True)
    with open(a.doc, "w", encoding="utf-8") as f:
        f.write("\n".join(L))
    if a.json:
        for r in results:
            if "by" in r["lint"]:
                r["lint"]["by"] = {f"{l} {rule}": k for (l, rule, _), k in r["lint"]["by"].items()}
                r["lint"].pop("findings", None)
            r["ops"] = dict(r["ops"])
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    print(f"IRs {total}; OpenVINO compiles+runs {n_ov}; lint-clean {len(clean)}; condlint run passes {len(passed)}"
          f" ({len(passed_golden)} on golden data); unsupported first blockers {dict(unsup.most_common())};"
          f" false alarms on OpenVINO-run IRs {({k: v[:2] for k, v in false_by_rule.items()})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
