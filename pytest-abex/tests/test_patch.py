"""suggested-tests.patch on a copy of examples/python-demo (issue 18): it applies with
``git apply``, the project's tests pass with it, a second run sees the mutants it lists killed,
and ``--abex-write-tests`` writes the same files (without it the tree is untouched)."""

import json
import shutil
import subprocess
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "examples" / "python-demo"
FUNCTIONS = ["src/shop/pricing.py::bulk_discount", "src/shop/pricing.py::parse_quantity"]


def copy_demo(dest):
    shutil.copytree(DEMO, dest, ignore=shutil.ignore_patterns(".abex", "__pycache__", "*.egg-info"))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "demo"]):
        subprocess.run(["git", "-c", "user.name=abex", "-c", "user.email=a@b", *args], cwd=dest, check=True)
    return dest


def files(root):
    return {
        p.relative_to(root): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".abex", ".git", "__pycache__", ".pytest_cache"} & set(p.parts)
    }


def run_abex(pytester, root, *extra):
    args = ["-p", "no:cacheprovider", "--rootdir", str(root), "-c", str(root / "pyproject.toml"), "--abex", "--abex-offline", "--abex-seed", "1"]
    for f in FUNCTIONS:
        args += ["--abex-function", f]
    return pytester.runpytest_subprocess(*args, *extra, str(root / "tests"))


def report(root):
    return json.loads((root / ".abex" / "out" / "report.json").read_text())


def test_the_patch_applies_passes_and_kills_what_it_lists_and_write_tests_applies_it(pytester, tmp_path):
    root = copy_demo(tmp_path / "demo")
    before = files(root)
    result = run_abex(pytester, root)
    assert result.ret == 0, result.stdout.str()
    assert files(root) == before, "without --abex-write-tests the tree is untouched"
    rep = report(root)
    listed = [k for t in rep["targets"] for s in t["mutation"]["suggested_tests"] for k in s["kills"]]
    assert len(listed) >= 3, rep
    patch = root / ".abex" / "out" / "suggested-tests.patch"
    text = patch.read_text()
    assert "+++ b/tests/test_pricing.py" in text, text
    assert "repr(" not in text, text
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=root, check=True)
    subprocess.run(["git", "apply", str(patch)], cwd=root, check=True)
    patched = files(root)
    tests = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rootdir", str(root), "-c", str(root / "pyproject.toml"), str(root / "tests"))
    assert tests.ret == 0, tests.stdout.str()

    # Run again on the patched tree: the mutants the tests were chosen for are killed now.
    again = run_abex(pytester, root)
    assert again.ret == 0, again.stdout.str()
    statuses = {m["id"]: m["status"] for t in report(root)["targets"] for m in t["mutation"]["mutants"]}
    assert {k: statuses.get(k) for k in listed} == {k: "killed" for k in listed}

    # --abex-write-tests on a fresh copy writes the same files as the patch.
    fresh = copy_demo(tmp_path / "fresh")
    written = run_abex(pytester, fresh, "--abex-write-tests")
    assert written.ret == 0, written.stdout.str()
    assert "Wrote" in written.stdout.str()
    assert files(fresh) == patched
