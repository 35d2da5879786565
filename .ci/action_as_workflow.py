"""Prints the composite action `action.yml` as a workflow, so that actionlint (which lints
workflows, not actions) checks its steps: expressions, `uses:` and, through shellcheck, the shell
of each `run:`. Its inputs become `workflow_call` inputs, its steps one job's steps.

    python .ci/action_as_workflow.py action.yml > action-workflow.yml && actionlint action-workflow.yml
"""

import sys

import yaml

action = yaml.safe_load(open(sys.argv[1]))
assert action["runs"]["using"] == "composite", "not a composite action"
inputs = {
    name: {"type": "string", "required": False, "default": str(spec.get("default", ""))}
    for name, spec in action.get("inputs", {}).items()
}
steps = []
for step in action["runs"]["steps"]:
    step = dict(step)
    if "run" in step:
        assert step.get("shell") == "bash", f"step {step.get('name')!r}: composite run steps need shell: bash"
        # The action's scripts live beside action.yml; in a workflow, the same path from the root.
        step["run"] = step["run"].replace("$GITHUB_ACTION_PATH/", "./")
    steps.append(step)
workflow = {
    "name": action["name"],
    "on": {"workflow_call": {"inputs": inputs}},
    "jobs": {"action": {"runs-on": "ubuntu-24.04", "steps": steps}},
}
yaml.safe_dump(workflow, sys.stdout, sort_keys=False)
