"""The model engine in ``pytest --abex``, end to end against a fake OpenAI-compatible server on
127.0.0.1 (``http.server`` on a thread) that answers from a script: a 429 with Retry-After, a
malformed answer, Explorer pairs, a forbidden mutant (it imports ``os`` and would write a marker
file) and a valid one that survives the tests."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from test_plugin import PRICING, TESTS

# A mutant that survives the tests above (they never call 100).
SURVIVOR = '''def bulk_discount(quantity: int) -> float:
    """15% from 100 items, 5% from 10."""
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    if quantity > 100:
        return 0.15
    if quantity >= 10:
        return 0.05
    return 0.0
'''


def forbidden(marker):
    """A mutant that would write `marker` if it ever ran."""
    return f'''def bulk_discount(quantity: int) -> float:
    import os
    os.makedirs({str(marker)!r}, exist_ok=True)
    return 0.0
'''


def role_of(body):
    """The agent a request is for, from its answer's declared shape."""
    fmt = body.get("response_format") or {}
    name = (fmt.get("json_schema") or {}).get("name", "")
    return {"pairs": "explorer", "mutant": "mutator", "test": "tester"}.get(name, name or "other")


def gpt5_rule_error(body):
    """OpenAI's answer to a request a GPT-5 model does not take, with the API's own texts."""
    if "max_tokens" in body:
        return ("Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
    t = body.get("temperature")
    if t is not None and t != 1:
        return (f"Unsupported value: 'temperature' does not support {t} with this model. "
                "Only the default (1) value is supported.", "temperature", "unsupported_value")
    return None


class FakeLlm:
    """The fake server: `script(role, nth_of_role, n)` gives `(status, content, headers)`. With
    `strict`, requests that break GPT-5's rules are refused with HTTP 400 before the script is
    asked (and counted in `refused`). The Tester's requests go to `tester(prompt)` when given
    (it gives the content), else get a test that does not parse (refused unrun)."""

    def __init__(self, script, strict=False, tester=None):
        self.script = script
        self.tester = tester
        self.strict = strict
        self.refused = 0
        self.log = []
        self.authorizations = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                rule = gpt5_rule_error(body) if fake.strict else None
                if rule is not None:
                    with fake.lock:
                        fake.refused += 1
                    message, param, code = rule
                    payload = json.dumps({"error": {"message": message, "type": "invalid_request_error",
                                                    "param": param, "code": code}}).encode()
                    self.send_response(400)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                role = role_of(body)
                with fake.lock:
                    nth = sum(1 for r, _ in fake.log if r == role)
                    n = len(fake.log)
                    fake.log.append((role, body))
                    fake.authorizations.append(self.headers.get("Authorization"))
                if role == "tester":
                    prompt = body["messages"][-1]["content"]
                    test = fake.tester(prompt) if fake.tester else "not a test ("
                    status, content, headers = 200, json.dumps({"test": test}), []
                else:
                    status, content, headers = fake.script(role, nth, n)
                if status == 200:
                    text = "".join(m.get("content", "") for m in body["messages"])
                    payload = json.dumps({
                        "id": f"c{n}",
                        "object": "chat.completion",
                        "model": body.get("model", "m"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": content}}],
                        "usage": {"prompt_tokens": len(text) // 4 + 1,
                                  "completion_tokens": len(content) // 4 + 1},
                    }).encode()
                else:
                    payload = json.dumps({"error": {"message": content}}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def roles(self):
        return [r for r, _ in self.log]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def scripted(marker):
    """The scenario of the brief: the first request gets a 429 (whichever agent sends it); the
    Explorer's first answer is malformed, the next ones are pairs; the Mutator first answers a
    forbidden mutant, then the surviving one."""
    pairs = json.dumps({"pairs": [[[99], [100]], [[9], [10]], [[-1], [0]]]})
    answered = {"explorer": 0, "mutator": 0}

    def script(role, nth, n):
        if n == 0:
            return 429, "slow down", [("Retry-After", "1")]
        first = answered.get(role) == 0
        if role in answered:
            answered[role] += 1
        if role == "explorer":
            return 200, ("{not json" if first else pairs), []
        if role == "mutator":
            source = forbidden(marker) if first else SURVIVOR
            return 200, json.dumps({"source": source, "description": "boundary at 100 moved"}), []
        return 500, f"unexpected role {role}", []

    return script


@pytest.fixture
def project(pytester, monkeypatch):
    pytester.makepyfile(pricing=PRICING, test_pricing=TESTS)
    pytester.makeini("[pytest]\npythonpath = .\n")
    # One model mutant and two Explorer calls per function keep the script short.
    (pytester.path / "pyproject.toml").write_text(
        "[tool.abex.llm]\nmutants = 1\nexplorer_calls = 2\nmax_tokens = 400\ntimeout_s = 20\n"
    )
    monkeypatch.setenv("ABEX_API_KEY", "test-key")
    for k in ("OPENAI_API_KEY", "ABEX_BASE_URL", "ABEX_MODEL", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
        monkeypatch.delenv(k, raising=False)
    return pytester


@pytest.fixture
def marker(tmp_path_factory):
    return tmp_path_factory.mktemp("marker") / "ran"


def run_abex(project, fake, *extra):
    endpoint = ["--abex-base-url", fake.base_url] if fake else []
    return project.runpytest(
        "-p", "no:cacheprovider", "--abex", "--abex-function", "pricing.py::bulk_discount",
        "--abex-pairs", "200", "--abex-agents", "explorer-only", *endpoint, *extra,
    )


def report(pytester):
    return json.loads((pytester.path / ".abex" / "out" / "report.json").read_text())


def test_model_mutants_are_validated_run_and_replayed(project, marker):
    fake = FakeLlm(scripted(marker))
    try:
        result = run_abex(project, fake)
        result.assert_outcomes(passed=1)
        rep = report(project)
        assert rep["complete"] and rep["settings"]["engine"] == "model"
        llm = rep["llm"]
        assert llm["engine"] == "model" and not llm.get("fallbacks")
        # The requests answered (the first one got the 429 and was sent again).
        roles = fake.roles()[1:]
        assert roles.count("explorer") >= 2 and roles.count("mutator") == 2, fake.roles()
        # The 429 was retried: one more request than answered calls.
        assert llm["requests"] == len(fake.log)
        assert llm["total"]["calls"] < len(fake.log)
        # The forbidden mutant was refused unrun; the valid one ran as a model mutant.
        assert llm["mutants_refused"] == 1
        assert not marker.exists()
        (t,) = rep["targets"]
        model = [m for m in t["mutation"]["mutants"] if m["origin"] == "model"]
        assert len(model) == 1, t["mutation"]["mutants"]
        assert model[0]["status"] == "survived"
        assert model[0]["replacement"].startswith("def bulk_discount(quantity: int) -> float:")
        assert "quantity > 100" in model[0]["diff"]
        out = result.stdout.str()
        assert "engine: model `gpt-5-mini` (explorer-only)" in out
        assert "1 model mutants refused unrun" in out

        # The same commit again: no request at all, the same findings.
        sent = len(fake.log)
        again = run_abex(project, fake)
        again.assert_outcomes(passed=1)
        assert len(fake.log) == sent
        assert report(project)["targets"] == rep["targets"]
        assert report(project)["llm"]["requests"] == 0
    finally:
        fake.close()


def test_the_token_budget_is_never_exceeded(project, marker):
    fake = FakeLlm(scripted(marker))
    budget = 2500
    try:
        result = run_abex(project, fake, "--abex-budget-tokens", str(budget))
        result.assert_outcomes(passed=1)
        rep = report(project)
        assert rep["complete"]
        llm = rep["llm"]
        spent = llm["total"]["prompt_tokens"] + llm["total"]["completion_tokens"]
        assert 0 < spent <= budget, llm
        # The budget ran out mid-run: some calls were made, later ones skipped.
        assert llm["skipped_count"] > 0, llm
        assert "calls skipped by the budget" in result.stdout.str()
    finally:
        fake.close()


def test_without_a_key_or_with_offline_the_run_says_it_is_offline(project, marker, monkeypatch):
    fake = FakeLlm(scripted(marker))
    try:
        result = run_abex(project, fake, "--abex-offline")
        result.assert_outcomes(passed=1)
        assert fake.log == []
        rep = report(project)
        assert rep["settings"]["engine"] == "offline" and rep["llm"]["engine"] == "offline"
        assert "engine: offline (" in result.stdout.str()
        # No key and the default (remote) endpoint: offline, and why.
        monkeypatch.delenv("ABEX_API_KEY")
        result = run_abex(project, None, "--abex-seed", "1")
        assert fake.log == []
        assert report(project)["llm"]["engine"] == "offline"
        assert "engine: offline (no key" in result.stdout.str()
    finally:
        fake.close()


def test_a_failed_post_is_a_warning_not_a_failed_session(project, marker, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    outputs = tmp_path / "outputs"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    # Not a pull-request event: posting fails, the run does not.
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "missing-event.json"))
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9/")
    fake = FakeLlm(scripted(marker))
    try:
        result = run_abex(project, fake, "--abex-offline", "--abex-post-review")
        result.assert_outcomes(passed=1)
        assert result.ret == 0
        out = result.stdout.str()
        assert "abex: warning: failed to post the review" in out
        assert summary.read_text().strip()
        values = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
        assert values["posted"] == "false" and values["cost-usd"] == "0.0000"
    finally:
        fake.close()


# A mutant the tests catch (bulk_discount(500) becomes 0.0).
KILLED = '''def bulk_discount(quantity: int) -> float:
    """15% from 100 items, 5% from 10."""
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    if quantity >= 10:
        return 0.05
    return 0.0
'''


def test_a_killed_model_mutant_is_reported_back_and_a_new_one_runs(project, marker):
    pairs = json.dumps({"pairs": [[[99], [100]]]})

    def script(role, nth, n):
        if role == "explorer":
            return 200, pairs, []
        if role == "mutator":
            source = KILLED if nth == 0 else SURVIVOR
            return 200, json.dumps({"source": source, "description": f"fault {nth}"}), []
        return 500, f"unexpected role {role}", []

    fake = FakeLlm(script)
    try:
        run_abex(project, fake).assert_outcomes(passed=1)
        mutator = [body for role, body in fake.log if role == "mutator"]
        assert len(mutator) == 2
        # The second request says which test caught the first mutant.
        feedback = mutator[1]["messages"][-1]["content"]
        assert "was caught by the existing test" in feedback and "test_far_from_the_boundaries" in feedback
        # ... and what it failed with: the assertion with the mutant's value.
        assert "It failed with" in feedback and "AssertionError: assert 0.05 == 0.15" in feedback, feedback
        (t,) = report(project)["targets"]
        model = {m["description"]: m["status"] for m in t["mutation"]["mutants"] if m["origin"] == "model"}
        assert model == {"model: fault 0": "killed", "model: fault 1": "survived"}
        # The second round's survivor gets its own suggested test, checked on both sides even
        # though the runner already collected the first round's suggestions for this function.
        (survivor,) = [m for m in t["mutation"]["mutants"] if m["description"] == "model: fault 1"]
        assert survivor["witness"]["input"] == [100] and survivor["suggested_test"], survivor
        counts = t["mutation"]["counts"]
        assert counts["total"] == len(t["mutation"]["mutants"])
    finally:
        fake.close()


class FakeGitHub:
    """A fake GitHub REST API on 127.0.0.1 for pull request #7 at head ``a…a`` with no earlier
    comments: lists are empty, a created review is recorded and gets id 11."""

    def __init__(self):
        self.reviews = []
        self.requests = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, value):
                payload = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self):
                fake.requests.append(("GET", self.path, self.headers.get("Authorization")))
                if self.path.rstrip("/") == "/repos/octo/shop/pulls/7":
                    self.answer(200, {"number": 7, "head": {"sha": "a" * 40}})
                elif self.path.startswith("/user"):
                    self.answer(403, {"message": "Resource not accessible by integration"})
                else:
                    self.answer(200, [])

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(("POST", self.path, self.headers.get("Authorization")))
                if self.path.rstrip("/") == "/repos/octo/shop/pulls/7/reviews":
                    fake.reviews.append(body)
                    self.answer(200, {"id": 11})
                else:
                    self.answer(404, {"message": "Not Found"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_post_review_posts_the_findings_on_the_pull_request(project, monkeypatch, tmp_path):
    sha = "a" * 40
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {
        "number": 7,
        "head": {"sha": sha, "repo": {"full_name": "octo/shop"}},
        "base": {"sha": "b" * 40, "repo": {"full_name": "octo/shop"}},
    }}))
    outputs = tmp_path / "outputs"
    github = FakeGitHub()
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/shop")
    monkeypatch.setenv("GITHUB_TOKEN", "gh-token")
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    try:
        result = run_abex(project, None, "--abex-offline", "--abex-post-review")
        result.assert_outcomes(passed=1)
        (review,) = github.reviews
        assert review["commit_id"] == sha and review["event"] == "COMMENT"
        assert "bulk_discount" in review["body"]
        assert all(auth and "gh-token" in auth for _, _, auth in github.requests)
        assert "abex: review: 0 comment(s) posted" in result.stdout.str()
        values = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
        assert values["posted"] == "true"
    finally:
        github.close()


def test_model_options_come_from_the_ini_file_too(project, marker, monkeypatch):
    # Without a key the ini file may name the (loopback) endpoint; with one it may not (see
    # test_the_project_s_files_cannot_redirect_the_key_or_pass_a_bad_number).
    monkeypatch.delenv("ABEX_API_KEY")
    fake = FakeLlm(scripted(marker))
    try:
        project.makeini(
            "[pytest]\npythonpath = .\nabex = true\nabex_function = pricing.py::bulk_discount\n"
            f"abex_pairs = 200\nabex_model = local-model\nabex_agents = explorer-only\n"
            f"abex_base_url = {fake.base_url}\nabex_budget_tokens = 2500\n"
        )
        result = project.runpytest("-p", "no:cacheprovider")
        result.assert_outcomes(passed=1)
        llm = report(project)["llm"]
        assert llm["model"] == "local-model" and llm["agents"] == "explorer-only"
        assert fake.log and all(body["model"] == "local-model" for _, body in fake.log)
        spent = llm["total"]["prompt_tokens"] + llm["total"]["completion_tokens"]
        assert spent <= 2500 and llm["skipped_count"] > 0
        assert "engine: model `local-model` (explorer-only)" in result.stdout.str()
    finally:
        fake.close()


def test_the_default_model_runs_against_gpt5_rules_without_a_refused_request(project, marker):
    """gpt-5-mini (the default) is sent max_completion_tokens and no temperature from the first
    request on, so a server enforcing GPT-5's rules refuses nothing and the run never falls
    back to the offline engine."""
    pairs = json.dumps({"pairs": [[[99], [100]], [[9], [10]]]})

    def script(role, nth, n):
        if role == "mutator":
            return 200, json.dumps({"source": SURVIVOR, "description": "boundary at 100 moved"}), []
        return 200, pairs, []

    fake = FakeLlm(script, strict=True)
    try:
        result = run_abex(project, fake, "--abex-reasoning-effort", "low")
        result.assert_outcomes(passed=1)
        llm = report(project)["llm"]
        assert llm["model"] == "gpt-5-mini"
        assert fake.refused == 0 and not llm.get("fallbacks") and not llm.get("adaptations"), llm
        assert llm["by_role"]["explorer"]["calls"] >= 1 and llm["by_role"]["mutator"]["calls"] == 1
        bodies = [b for _, b in fake.log]
        assert all("max_completion_tokens" in b and "temperature" not in b for b in bodies)
        assert all(b.get("reasoning_effort") == "low" for b in bodies)
    finally:
        fake.close()


def test_a_money_budget_with_a_model_of_unknown_price_is_a_usage_error(project):
    fake = FakeLlm(lambda role, nth, n: (500, "never asked", []))
    try:
        result = run_abex(project, fake, "--abex-model", "mystery-model", "--abex-budget-usd", "1")
        assert result.ret == 2, result.stdout.str()
        out = result.stdout.str() + result.stderr.str()
        assert "mystery-model" in out and "[tool.abex.llm.prices" in out, out
        assert fake.log == []
    finally:
        fake.close()


def test_no_answer_of_the_hostile_corpus_runs(project, tmp_path):
    """Every answer of ``tests/data/hostile/python`` (each would create its own marker file if
    it ran) is the Mutator's answer in turn: all are refused unrun, none runs."""
    import pathlib

    corpus_dir = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "hostile" / "python"
    markers = tmp_path / "markers"
    markers.mkdir()
    corpus = [p.read_text().replace("MARKER", str(markers / p.stem)) for p in sorted(corpus_dir.glob("*.py"))]
    assert len(corpus) >= 30
    pairs = json.dumps({"pairs": [[[99], [100]]]})

    def script(role, nth, n):
        if role == "mutator":
            if nth < len(corpus):
                return 200, json.dumps({"source": corpus[nth], "description": "hostile"}), []
            return 404, "no more", []
        return 200, pairs, []

    fake = FakeLlm(script)
    try:
        (project.path / "pyproject.toml").write_text(
            "[tool.abex.llm]\nexplorer_calls = 1\nmax_tokens = 400\n"
        )
        # A project file may only lower the count of model mutants: the command line raises it.
        result = run_abex(project, fake, "--abex-llm-mutants", str(-(-len(corpus) // 3)))
        result.assert_outcomes(passed=1)
        rep = report(project)
        assert rep["llm"]["mutants_refused"] == len(corpus), rep["llm"]
        assert list(markers.iterdir()) == []
        (t,) = rep["targets"]
        assert all(m["origin"] != "model" for m in t["mutation"]["mutants"])
    finally:
        fake.close()


def scripted_tester(marker):
    """The Tester's answers: for the survivor at 100, a test that does not compile (``await``
    outside ``async def``), then one that fails on the original, then one that does not kill,
    then a good one, round by round (read from the feedback in the prompt); for every other
    survivor a hostile test that would write `marker`."""

    def tester(prompt):
        round_ = prompt.count("Your previous test (round")
        if "with the arguments [100]" not in prompt:
            return f"def test_x():\n    import os\n    os.system('touch {marker}')\n"
        body = [
            "assert await bulk_discount(100) == 0.15",
            "assert bulk_discount(100) == 0.05",
            "assert bulk_discount(500) == 0.15",
            "assert bulk_discount(100) == 0.15\n    assert bulk_discount(99) == 0.05\n"
            "    assert bulk_discount(10) == 0.05\n    assert bulk_discount(9) == 0.0",
        ][min(round_, 3)]
        return f"def test_x():\n    from pricing import bulk_discount\n\n    {body}\n"

    return tester


def test_the_testers_test_is_repaired_until_it_kills_and_a_hostile_one_never_runs(project, marker):
    pairs = json.dumps({"pairs": [[[99], [100]], [[9], [10]]]})

    def script(role, nth, n):
        if role == "mutator":
            return 200, json.dumps({"source": SURVIVOR, "description": "boundary at 100 moved"}), []
        return 200, pairs, []

    fake = FakeLlm(script, tester=scripted_tester(marker))
    try:
        run_abex(project, fake).assert_outcomes(passed=1)
        rep = report(project)
        assert not marker.exists()
        prompts = [b["messages"][-1]["content"] for role, b in fake.log if role == "tester"]
        at_100 = [p for p in prompts if "with the arguments [100]" in p]
        last = max(at_100, key=len)
        assert "It did not compile:" in last and "await" in last, last
        assert "It failed on the function as written:" in last and "0.05" in last, last
        assert "does not kill the mutant" in last, last
        (t,) = rep["targets"]
        tests = t["mutation"]["suggested_tests"]
        model = [x for x in tests if x["origin"] == "model"]
        assert len(model) == 1 and model[0]["repair_rounds"] == 3, tests
        assert "bulk_discount(99) == 0.05" in model[0]["code"]
        survivor = next(m for m in t["mutation"]["mutants"] if m["origin"] == "model")
        assert survivor["id"] in model[0]["kills"]
        # Every other survivor's Tester answered with `os.system`: refused unrun each time.
        assert rep["llm"]["tests_refused"] == len(prompts) - len(at_100), rep["llm"]
    finally:
        fake.close()


def test_the_project_s_files_cannot_redirect_the_key_or_pass_a_bad_number(project):
    """With the key in the environment, an endpoint named by ``pytest.ini`` (its ``abex_*`` key or
    its ``addopts``) or ``[tool.abex]`` never gets a request: the run stops with a configuration
    error naming the file and the key. A negative time budget there is such an error too."""
    fake = FakeLlm(lambda role, nth, n: (500, "never asked", []))
    try:
        pyproject = project.path / "pyproject.toml"
        for ini, named in [
            (f"abex_base_url = {fake.base_url}", "key `abex_base_url`"),
            (f"addopts = --abex-base-url={fake.base_url}", "key `addopts --abex-base-url`"),
        ]:
            project.makeini(f"[pytest]\npythonpath = .\n{ini}\n")
            result = run_abex(project, None)
            out = result.stdout.str() + result.stderr.str()
            assert result.ret == 2, out
            assert "refused: `" in out and named in out, out
        project.makeini("[pytest]\npythonpath = .\n")
        pyproject.write_text(f'[tool.abex]\nbase_url = "{fake.base_url}"\n')
        result = run_abex(project, None)
        out = result.stdout.str() + result.stderr.str()
        assert result.ret == 2 and "key `tool.abex.base_url`" in out, out
        assert fake.log == []
        # On the command line, the same endpoint is the user's: it gets the key.
        pyproject.write_text("[tool.abex.llm]\nmutants = 0\nexplorer_calls = 1\n")
        run_abex(project, fake)
        assert fake.log, "the command line's endpoint was not asked"
        project.makeini("[pytest]\npythonpath = .\nabex_time_budget = -1\n")
        result = run_abex(project, None, "--abex-offline")
        out = result.stdout.str() + result.stderr.str()
        assert result.ret == 2 and "key `abex_time_budget`" in out and "-1" in out, out
    finally:
        fake.close()
