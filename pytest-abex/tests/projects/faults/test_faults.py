import os

from faults import exit_at, hog, segv_at


def test_well_behaved_inputs():
    assert exit_at(1) == 2
    assert segv_at(2) == 4
    assert hog(3) == 3


def test_loud():
    # Five megabytes on the process's stdout, past pytest's capture, on every run.
    line = b"a test that talks a lot, a lot, a lot, a lot, a lot\n"
    for _ in range(100_000):
        os.write(1, line)
    assert hog(5) == 5


def test_flaky():
    # Fails on the second run, then one run in three, whatever the code: runs are counted in the
    # file that FLAKY_RUNS names (the first run is pytest's own, which must pass).
    path = os.environ.get("FLAKY_RUNS")
    if not path:
        return
    runs = int(open(path).read() or 0) + 1 if os.path.exists(path) else 1
    with open(path, "w") as f:
        f.write(str(runs))
    assert runs % 3 != 2, f"unlucky run {runs}"
    assert segv_at(4) == 8
