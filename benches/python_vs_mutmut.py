"""Wall time of `pytest --abex` against mutmut 3, same project, same functions: per run and per
tested mutant.

Usage: python benches/python_vs_mutmut.py PROJECT BASE MODULE FUNCTION [FUNCTION...]

PROJECT is a git repository whose branch is checked out against BASE (the functions the change
touches are the ones abex analyses; name the same ones here for mutmut). The interpreter running
this script must have pytest-abex, pytest and mutmut 3 installed. Each tool runs REPEAT times, in
a copy of the project of its own, with as many test processes at a time as the machine has
processors (`--abex-jobs N`, `mutmut run --max-children N`; both tools' default), medians
counting:

- abex: wall time of `pytest --abex` minus that of plain `pytest` (so the normal test run is not
  counted), each the median of 3 runs (abex's caches removed before each), over the mutants it
  tested (killed, survived, timed out), self-checks excluded;
- mutmut: wall time of `mutmut run "MODULE.x_FUNCTION__mutmut_*" ...` (its `mutants/` folder
  removed before each) over the mutants it reports for those functions.

It prints both figures and two ratios, abex / mutmut, each with the target of issue 30 (at
most 0.4):

- whole run: the wall time of `pytest --abex` (the user's normal test run included, as the
  user waits for it) over that of `mutmut run`;
- per mutant: abex's time per tested mutant (above) over mutmut's.
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


REPEAT = 3

# Test processes at a time, the same for both tools.
JOBS = os.cpu_count() or 1

# Issue 30: `pytest --abex` at most 0.4 times mutmut 3's cost.
TARGET = 0.4


def timed(cmd, cwd):
    t = time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.monotonic() - t, out


def main(argv):
    project, base, module, functions = Path(argv[1]).resolve(), argv[2], argv[3], argv[4:]
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        a, m = Path(tmp) / "abex", Path(tmp) / "mutmut"
        shutil.copytree(project, a, ignore=shutil.ignore_patterns(".abex", "mutants", "__pycache__"))
        shutil.copytree(project, m, ignore=shutil.ignore_patterns(".abex", "mutants", "__pycache__", ".git"))

        # Each side runs REPEAT times (abex with its caches removed each time); medians count.
        plains, fulls = [], []
        for _ in range(REPEAT):
            t, out = timed([py, "-m", "pytest", "-q", "-p", "no:cacheprovider"], a)
            assert out.returncode == 0, out.stdout[-2000:]
            plains.append(t)
            shutil.rmtree(a / ".abex", ignore_errors=True)
            t, out = timed(
                [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--abex", "--abex-offline", "--abex-base", base,
                 "--abex-jobs", str(JOBS)], a
            )
            assert out.returncode == 0, out.stdout[-2000:]
            fulls.append(t)
        plain, full = statistics.median(plains), statistics.median(fulls)
        report = json.loads((a / ".abex" / "out" / "report.json").read_text())
        names = sorted(t["name"] for t in report["targets"])
        tested = sum(
            t["mutation"]["counts"]["killed"] + t["mutation"]["counts"]["survived"] + t["mutation"]["counts"]["timeout"]
            for t in report["targets"]
            if t.get("mutation")
        )
        abex_per = (full - plain) / tested

        cfg = m / "setup.cfg"
        package = module.split(".")[0]
        # A src layout (src/PACKAGE) is mutated from src/, the flat one from PACKAGE/.
        source = "src/" if (m / "src" / package).is_dir() else f"{package}/"
        section = f"\n[mutmut]\nsource_paths = {source}\n"
        cfg.write_text((cfg.read_text() if cfg.exists() else "") + section)
        patterns = [f"{module}.x_{f}__mutmut_*" for f in functions]
        walls = []
        for _ in range(REPEAT):
            shutil.rmtree(m / "mutants", ignore_errors=True)
            t, out = timed([py, "-m", "mutmut", "run", "--max-children", str(JOBS), *patterns], m)
            walls.append(t)
        wall = statistics.median(walls)
        found = set(re.findall(r"x_(?:%s)__mutmut_\d+" % "|".join(functions), out.stdout))
        mutmut_per = wall / len(found)

    print(f"functions: abex analysed {', '.join(names)}; mutmut ran {', '.join(functions)}")
    print(f"abex:   {full - plain:.2f} s for {tested} tested mutants = {abex_per * 1000:.0f} ms per mutant "
          f"(pytest --abex {full:.2f} s, plain pytest {plain:.2f} s; medians of {REPEAT})")
    print(f"mutmut: {wall:.2f} s for {len(found)} mutants = {mutmut_per * 1000:.0f} ms per mutant "
          f"(median of {REPEAT}; both tools {JOBS} test processes at a time)")
    print(f"ratio abex / mutmut, whole run: {full / wall:.2f} (pytest --abex {full:.2f} s / mutmut run "
          f"{wall:.2f} s; target <= {TARGET})")
    print(f"ratio abex / mutmut, per mutant: {abex_per / mutmut_per:.2f} (target <= {TARGET})")


if __name__ == "__main__":
    main(sys.argv)
