"""The ``abex`` section of pytest's terminal summary, rendered from the core's JSON report."""

import json


def _args(inp):
    import json

    if len(inp) == 1 and isinstance(inp[0], str):
        return inp[0]
    return json.dumps(inp, separators=(",", ":"))


def _outcome(o):
    kind = o.get("kind")
    if kind == "ok":
        return o.get("value", "")
    if kind == "error":
        return f"{o.get('type', '')}: {o.get('message', '')}"
    if kind == "panic":
        return f"panic: {o.get('message', '')}"
    if kind == "crash":
        return f"crash: {o.get('detail', '')}"
    return kind or "?"


def describe_engine(llm):
    """The engine line (the core's ``LlmReport::describe``) and the refused model mutants."""
    from . import _core

    line = _core.describe_engine(json.dumps(llm))
    if llm.get("mutants_refused"):
        line += f"; {llm['mutants_refused']} model mutants refused unrun"
    return line


def render(report, out_dir):
    """The lines of the section for ``report`` (the ``report.json`` document)."""
    lines = []
    if report.get("llm"):
        lines.append(f"abex: {describe_engine(report['llm'])}")
    targets = report.get("targets", [])
    if not targets:
        lines.append("abex: no changed Python function (use --abex-function FILE::NAME to name one)")
    for t in targets:
        where = f"{t['file']}:{t['span']['start_line']}"
        lines.append(f"{t['qualified_name']} ({where})")
        drive = t.get("drive", {})
        if drive.get("status") == "unsupported":
            lines.append(f"  not driven: {drive.get('reason', '')}")
        x = t.get("exploration")
        if x:
            lines.append(
                f"  explored {x['pairs_evaluated']} pairs ({x['evaluations']} calls, {x['time_ms']} ms): "
                f"{x['bc_count']} boundaries, QD-score {x['qd_score']:.2f}"
            )
            seen = set()
            shown = 0
            for c in x.get("cells", []):
                if c.get("pd", 0) <= 0:
                    continue
                s = c.get("strings", {})
                key = frozenset(s.get("outputs", []))
                if key in seen:
                    continue
                seen.add(key)
                shown += 1
                if shown > 5:
                    break
                ins, outs = s.get("inputs", ["", ""]), s.get("outputs", ["", ""])
                lines.append(f"    boundary: {ins[0]} -> {outs[0]}  |  {ins[1]} -> {outs[1]}")
        m = t.get("mutation")
        if m:
            c = m["counts"]
            lines.append(
                f"  mutants: {c['total']}: {c['killed']} killed, {c['survived']} survived "
                f"({c['witnessed']} with a witness), {c['unviable']} unviable, {c['timeout']} timed out"
                + (f", {c['not_tested']} not tested (time budget)" if c.get("not_tested") else "")
            )
            if m.get("self_check_killed") is False:
                lines.append("  warning: no test reaches this function (a body that raises passes the tests)")
            for mu in m["mutants"]:
                if mu["status"] != "survived" or not mu.get("witness"):
                    continue
                w = mu["witness"]
                lines.append(f"    survived {mu['id']} at line {mu['line']}: {mu['description']}")
                lines.append(
                    f"      witness {_args(w['input'])}: original {_outcome(w['original'])}, "
                    f"mutant {_outcome(w['mutant'])}"
                    + (f"; killed by suggested {mu['suggested_test']}" if mu.get("suggested_test") else "")
                )
            for s in m.get("suggested_tests", []):
                lines.append(f"  suggested test (kills {', '.join(s['kills'])}):")
                lines.extend("    " + line for line in s["code"].rstrip().splitlines())
    lines.append(f"abex: report in {out_dir}")
    return lines
