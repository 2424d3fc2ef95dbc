"""Run onnx's node test cases (``onnx.backend.test``'s data) against kiln and write the per-op table.

    python -m kiln.onnx.conformance [--device cpu-llvm] [--filter REGEX] [--table docs/onnx-conformance.md]
    python -m kiln.onnx.conformance --merge SHARD.txt... [--device webgpu] --table docs/onnx-conformance-webgpu.md

Each case is a model and its inputs/outputs as protobuf files; a case passes when every output matches within the
case's rtol/atol (onnx's defaults 1e-3/1e-7, as its BackendTest). A case fails when kiln computes a wrong value
or crashes, and is "not supported" when the importer reports a clear error (an op, attribute or dtype kiln lacks).
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
import traceback

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.test.loader import load_model_tests

from kiln.onnx.backend import KilnRep
from kiln.onnx.errors import OnnxImportError


def _value(v):
    """A test datum; a list (a sequence) of them element by element."""
    return [_array(e) for e in v] if isinstance(v, list) else _array(v)


def _array(v):
    """Test data come as arrays, numpy scalars or TensorProtos; lists, dicts and None are sequences, maps and
    optionals."""
    if isinstance(v, onnx.TensorProto):
        return numpy_helper.to_array(v)
    if isinstance(v, np.generic):
        return np.asarray(v)
    return v


def _is_value(v) -> bool:
    """A tensor, or a sequence of tensors (a list)."""
    return isinstance(v, np.ndarray) or (isinstance(v, list) and all(isinstance(e, np.ndarray) for e in v))


def _flat(got, want) -> tuple:
    """Outputs with sequences spread into their elements, or (None, None) when a sequence's length differs."""
    g, w = [], []
    for a, b in zip(got, want):
        if isinstance(b, list):
            if not isinstance(a, list) or len(a) != len(b):
                return None, None
            g += a
            w += b
        else:
            g.append(a)
            w.append(b)
    return g, w


def run_case(case, device: str) -> tuple[str, str]:
    """('pass' | 'fail' | 'unsupported', detail) for one node test case."""
    rep = KilnRep(case.model, device)
    if not case.data_sets:
        return "unsupported", "no test data"
    for ins, outs in case.data_sets:
        ins, outs = [_value(v) for v in ins], [_value(v) for v in outs]
        if any(not _is_value(v) for v in outs) or any(v is not None and not _is_value(v) for v in ins):
            return "unsupported", "maps, or optional outputs (kiln has tensors, and sequences and optionals resolved at import)"
        try:
            got = rep.run(ins)
        except OnnxImportError as e:
            return "unsupported", str(e)
        except Exception as e:  # a crash in kiln: a failure, with its first line
            return "fail", f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if len(got) != len(outs):
            return "fail", f"{len(got)} outputs, expected {len(outs)}"
        got, outs = _flat(got, outs)
        if got is None:
            return "fail", "a sequence output of another length"
        for i, (g, w) in enumerate(zip(got, outs)):
            if g.shape != w.shape:
                return "fail", f"output {i}: shape {g.shape}, expected {w.shape}"
            if w.dtype.kind in "fc" or w.dtype.kind == "V":  # ml_dtypes' (bfloat16, float8, int4, ...): as floats
                ok = np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=case.rtol, atol=case.atol, equal_nan=True)
            else:
                ok = np.array_equal(g, w.astype(g.dtype) if g.dtype != w.dtype else w)
            if not ok or (g.dtype != w.dtype and str(w.dtype) != "bfloat16"):
                return "fail", f"output {i}: values differ" if ok is False else f"output {i}: dtype {g.dtype}, expected {w.dtype}"
    return "pass", ""


def op_of(case) -> str:
    nodes = case.model.graph.node
    return nodes[0].op_type if nodes else "?"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu-llvm")
    p.add_argument("--filter", default=None, help="only cases whose name matches this regex")
    p.add_argument("--table", default=None, help="write the per-op markdown table here")
    p.add_argument("--results", default=None, help="write one line per case (name status detail) here")
    p.add_argument("--merge", nargs="+", metavar="RESULTS", help="run nothing: merge these --results files (a later "
                   "file's row for a case replaces an earlier one) into --table/--results")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    results = read_results(args.merge) if args.merge else run_cases(args.device, args.filter, args.verbose)
    counts = collections.Counter(r[2] for r in results)
    print(f"{len(results)} cases: {counts['pass']} pass, {counts['fail']} fail, {counts['unsupported']} not supported")
    if args.results:
        with open(args.results, "w") as f:
            for name, opname, status, detail in results:
                f.write(f"{name}\t{opname}\t{status}\t{' '.join(detail.split())}\n")  # one line per case
    if args.table:
        write_table(results, args.table, args.device)
    return 0


def run_cases(device: str, pattern: str | None, verbose: bool) -> list[tuple[str, str, str, str]]:
    """(name, op, status, detail) of every node case whose name matches ``pattern``; failures are printed."""
    cases = [c for c in load_model_tests(kind="node") if not pattern or re.search(pattern, c.name)]
    results = []
    start = time.time()
    for i, case in enumerate(cases):
        t0 = time.time()
        try:
            status, detail = run_case(case, device)
        except Exception as e:
            status, detail = "fail", f"{type(e).__name__}: {e}"
            if verbose:
                traceback.print_exc()
        results.append((case.name, op_of(case), status, detail))
        if verbose or status == "fail":
            print(f"[{i + 1}/{len(cases)}] {case.name}: {status} {detail[:200]} ({time.time() - t0:.1f}s)", flush=True)
    print(f"ran {len(results)} cases in {time.time() - start:.0f}s")
    return results


def read_results(paths: list[str]) -> list[tuple[str, str, str, str]]:
    """The rows of ``--results`` files, by case name; a later file's row replaces an earlier one (a rerun)."""
    rows: dict[str, tuple[str, str, str, str]] = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                name, opname, status, detail = line.rstrip("\n").split("\t", 3)
                rows[name] = (name, opname, status, detail)
    return sorted(rows.values())


def cause(detail: str) -> str:
    """A failure's reason without the names that differ from case to case (node, input and program names)."""
    d = re.sub(r"^node '[^']*' ", "", detail)
    d = re.sub(r"input '[^']*': ", "", d)
    d = re.sub(r"\(kiln\d+, \{[^}]*\}\) \}", "...", d)
    d = re.sub(r"'__[^']*'|'[A-Za-z_]+_expanded_function[^']*'", "'...'", d)
    return d.replace("|", "\\|")[:160]


def write_table(results, path: str, device: str) -> None:
    by_op: dict[str, list] = collections.defaultdict(list)
    for name, opname, status, detail in results:
        by_op[opname].append((name, status, detail))
    lines = ["| op | pass | fail | not supported | why (first failing case) |", "|---|---|---|---|---|"]
    for opname in sorted(by_op):
        rows = by_op[opname]
        c = collections.Counter(s for _, s, _ in rows)
        why = next((f"`{n}`: {d}" for n, s, d in rows if s != "pass"), "")
        why = why.replace("|", "\\|")[:160]
        lines.append(f"| {opname} | {c['pass']} | {c['fail']} | {c['unsupported']} | {why} |")
    lines += ["", "## Every case that does not pass, by cause", ""]
    by_cause: dict[str, list[str]] = collections.defaultdict(list)
    for name, opname, status, detail in results:
        if status != "pass":
            by_cause[f"{status}: {cause(detail)}"].append(name)
    for key, names in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"- **{key}** ({len(names)}): " + ", ".join(f"`{n}`" for n in names))
    total = collections.Counter(s for _, _, s, _ in results)
    head = (f"Node tests of onnx {onnx.__version__} on {device}: {total['pass']} pass, {total['fail']} fail, "
            f"{total['unsupported']} not supported, of {len(results)}.\n\n")
    with open(path, "w") as f:
        f.write(head + "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
