"""A step of the GitHub Action run as GitHub's runner runs it: the step's `run:` text from
`action.yml` written to a script file and started as `bash --noprofile --norc -eo pipefail
<script>`, with the step's environment and `GITHUB_ACTION_PATH` the repository. That shell is
the process the runner signals when a job is cancelled; a test can signal it the same way."""

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def step_script(step_id):
    """The `run:` text of the step with `id: <step_id>` in `action.yml`."""
    text = (REPO / "action.yml").read_text()
    block = re.search(rf"\n      id: {re.escape(step_id)}\n(.*?)(?=\n    - |\Z)", text, re.S)
    assert block, f"no step {step_id} in action.yml"
    run = re.search(r"\n      run: (.+)", block.group(1))
    assert run, f"step {step_id} has no run"
    text = run.group(1)
    if text.startswith("'") and text.endswith("'"):  # a single-quoted YAML scalar
        text = text[1:-1].replace("''", "'")
    return text


def start(step_id, env, cwd, tmp, **popen):
    """Starts the step `step_id` as the runner does; returns the `Popen`."""
    script = Path(tmp) / f"step-{step_id}.sh"
    script.write_text(step_script(step_id) + "\n")
    env = dict(env, GITHUB_ACTION_PATH=str(REPO), GITHUB_ACTIONS="true")
    return subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd, env=env, **popen,
    )


def run(step_id, env, cwd, tmp, timeout=900):
    """Runs the step `step_id` as the runner does; returns a `CompletedProcess` with text."""
    p = start(step_id, env, cwd, tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=timeout)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def install(env, cwd, tmp):
    """The install step as the runner runs it, then GITHUB_PATH's folders on PATH (as the runner
    puts them for the later steps); returns the environment of the later steps."""
    github_path = Path(tmp) / "github_path"
    env = dict(env, GITHUB_PATH=str(github_path))
    done = run("install", env, cwd, tmp)
    assert done.returncode == 0, done.stderr
    added = github_path.read_text().splitlines()
    env["PATH"] = os.pathsep.join([*added, env.get("PATH", "")])
    return env
