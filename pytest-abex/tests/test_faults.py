"""Faults in the code under test or its tests end in a clear outcome, never a lost run (issue
17): the ``projects/faults`` project ends its process, segfaults and allocates without bound on
one input each (and its mutants do so in the tests), and has a test that prints megabytes and
one that fails one run in three whatever the code."""

import json
from pathlib import Path

import pytest

PROJECT = Path(__file__).parent / "projects" / "faults"


@pytest.fixture
def faults(pytester):
    for f in PROJECT.iterdir():
        if f.suffix == ".py":
            pytester.makepyfile(**{f.stem: f.read_text()})
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


def test_exits_segfaults_runaway_memory_flaky_and_loud_tests_each_have_an_outcome(faults, monkeypatch, tmp_path):
    monkeypatch.setenv("FLAKY_RUNS", str(tmp_path / "flaky-runs"))
    result = faults.runpytest_subprocess(
        "-p", "no:cacheprovider", "--abex", "--abex-all", "--abex-offline", "--abex-jobs", "1",
        "--abex-call-timeout", "500", "--abex-pairs", "300",
    )
    assert result.ret == 0, result.stdout.str()
    rep = json.loads((faults.path / ".abex" / "out" / "report.json").read_text())
    assert rep["complete"] is True
    targets = {t["qualified_name"]: t for t in rep["targets"]}

    def faults_of(name):
        cells = targets[name]["exploration"]["cells"]
        return [f"{o['kind']} {o.get('detail', '')}" for c in cells for o in c["outcomes"] if o["kind"] != "ok"]

    # The function under test: each fault is the outcome of its input; the run goes on.
    assert any(f.startswith("crash") for f in faults_of("faults.exit_at")), faults_of("faults.exit_at")
    assert any(f.startswith("crash") for f in faults_of("faults.segv_at")), faults_of("faults.segv_at")
    assert any(f.split()[0] in ("crash", "error", "timeout") for f in faults_of("faults.hog")), faults_of("faults.hog")
    mutants = [m for t in rep["targets"] for m in t["mutation"]["mutants"]]
    for m in mutants:
        assert m["status"] in ("killed", "survived", "timeout", "unviable"), m
        # The flaky test fails on the original too: it kills no mutant.
        assert "test_flaky" not in (m.get("killed_by") or ""), m
    # A mutant that ends the test process, segfaults it or exhausts its memory is killed.
    for name in ("faults.exit_at", "faults.segv_at", "faults.hog"):
        counts = targets[name]["mutation"]["counts"]
        assert counts["killed"] + counts["timeout"] >= 2, targets[name]["mutation"]
    assert "test_flaky" in result.stdout.str() and "is flaky" in result.stdout.str(), result.stdout.str()
