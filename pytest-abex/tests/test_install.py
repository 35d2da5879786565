"""The GitHub Action's install step (`action/install.sh`) against a fake release server on
loopback, run from a copy of the action's source (its `action/release-sums.txt` is what a
release commit holds): the release archive is downloaded, checked against the SHA-256 the source
holds and used, with no compiler on PATH; a checksum mismatch is refused; a source that is not
the release's (a pinned commit after it) or a missing asset falls back to the build, whose
`cargo` here is a shim that records its calls."""

import hashlib
import io
import os
import platform
import re
import shutil
import subprocess
import tarfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "action" / "install.sh"
RUN = REPO / "action" / "run.sh"
TARGETS = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
]


def host_target():
    """The release target install.sh picks on this machine."""
    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    system = {"Linux": "unknown-linux-musl", "Darwin": "apple-darwin"}.get(platform.system())
    if system is None or arch not in ("x86_64", "aarch64"):
        pytest.skip(f"no release target for {platform.system()} {machine}")
    return f"{arch}-{system}"


def source_version():
    return re.search(r'^version = "(.+)"$', (REPO / "Cargo.toml").read_text(), re.M).group(1)


@pytest.fixture
def action(tmp_path):
    """A copy of the action's source, as GitHub checks a pinned action out (no `.git`): the files
    install.sh digests, and `action/`."""
    dest = tmp_path / "action-src"
    dest.mkdir()
    for name in ("Cargo.toml", "Cargo.lock"):
        shutil.copy(REPO / name, dest / name)
    for name in ("src", "prompts", "action"):
        shutil.copytree(REPO / name, dest / name)
    (dest / "cargo-abex").mkdir()
    shutil.copy(REPO / "cargo-abex" / "Cargo.toml", dest / "cargo-abex" / "Cargo.toml")
    shutil.copytree(REPO / "cargo-abex" / "src", dest / "cargo-abex" / "src")
    return dest


def digest(action):
    run = subprocess.run(["bash", str(action / "action" / "install.sh"), "digest"], capture_output=True, text=True)
    assert run.returncode == 0 and re.fullmatch(r"[0-9a-f]{64}", run.stdout.strip()), run.stderr
    return run.stdout.strip()


def release_sums(action, sums, version=None, source=None):
    """Writes the sums file a release commit holds: `sums` is {target: sha256}."""
    lines = [f"source {version or source_version()} {source or digest(action)}"]
    lines += [f"{target} {sha}" for target, sha in sums.items()]
    (action / "action" / "release-sums.txt").write_text("# release sums\n" + "\n".join(lines) + "\n")


class Releases:
    """A release server on 127.0.0.1 serving a folder laid out as GitHub's
    `releases/download/<tag>/<asset>`; it records the paths asked for."""

    def __init__(self, root):
        self.root = root
        self.requests = []
        releases = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                releases.requests.append(self.path)
                super().do_GET()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(root)))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def publish(self, version, target, program):
        """Attaches `cargo-abex-<target>-v<version>.tar.gz` holding `program` as the binary (and
        its `.sha256`, which the Action does not trust); returns the archive's SHA-256."""
        name = f"cargo-abex-{target}-v{version}"
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            data = program.encode()
            info = tarfile.TarInfo(f"{name}/cargo-abex")
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
        tag = self.root / f"v{version}"
        tag.mkdir(exist_ok=True)
        archive = tag / f"{name}.tar.gz"
        archive.write_bytes(buf.getvalue())
        digest = hashlib.sha256(buf.getvalue()).hexdigest()
        (tag / f"{name}.tar.gz.sha256").write_text(f"{digest}  {archive.name}\n")
        return digest

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def releases(tmp_path):
    root = tmp_path / "releases"
    root.mkdir()
    r = Releases(root)
    yield r
    r.close()


def fake_binary(marker):
    """A `cargo-abex` that says which asset it came from and records how it was called."""
    return f'#!/bin/sh\necho "{marker} $*" >> "$ABEX_CALLS"\necho "{marker}"\n'


@pytest.fixture
def runner(tmp_path):
    """A runner's environment whose PATH has no Rust toolchain: the folders holding cargo or
    rustc are left out, and shims in their place record any call (and, for the build fallback,
    `cargo install` leaves a binary where cargo would)."""
    shims = tmp_path / "shims"
    shims.mkdir()
    compiler_log = tmp_path / "compiler.log"
    for tool in ("cargo", "rustc", "rustup"):
        shim = shims / tool
        shim.write_text(
            "#!/bin/sh\n"
            f'echo "{tool} $* CARGO_TARGET_DIR=$CARGO_TARGET_DIR" >> "{compiler_log}"\n'
            + (
                # `cargo install ... --root DIR`: a built binary in DIR/bin.
                'while [ $# -gt 0 ]; do [ "$1" = --root ] && root=$2; shift; done\n'
                'mkdir -p "$root/bin" && printf \'#!/bin/sh\\necho built "$@"\\n\' > "$root/bin/cargo-abex"\n'
                'chmod +x "$root/bin/cargo-abex"\n'
                if tool == "cargo"
                else "exit 1\n"
            )
        )
        shim.chmod(0o755)
    dirs = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not any((Path(d) / t).exists() for t in ("cargo", "rustc"))
    ]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "ABEX_", "CARGO", "RUSTUP"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env.update(
        PATH=os.pathsep.join([str(shims), *dirs]),
        RUNNER_TEMP=str(runner_temp),
        GITHUB_OUTPUT=str(tmp_path / "outputs"),
        GITHUB_PATH=str(tmp_path / "github_path"),
        ABEX_CALLS=str(tmp_path / "calls.log"),
    )
    assert shutil.which("cargo", path=env["PATH"]) == str(shims / "cargo")
    assert shutil.which("rustc", path=env["PATH"]) == str(shims / "rustc")
    return {"env": env, "tmp": tmp_path, "compiler_log": compiler_log, "bin": runner_temp / "abex" / "bin"}


def install(runner, *args, script=INSTALL, **env):
    """Runs `script` (install.sh, or run.sh) with `args` in the runner's environment plus `env`."""
    return subprocess.run(
        ["bash", str(script), *args],
        env=dict(runner["env"], **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def outputs(runner):
    path = runner["tmp"] / "outputs"
    text = path.read_text() if path.exists() else ""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def compiler_calls(runner):
    log = runner["compiler_log"]
    return log.read_text().splitlines() if log.exists() else []


def test_the_release_binary_of_the_action_s_source_is_installed_and_used_without_a_compiler(
    runner, releases, action, tmp_path
):
    host = host_target()
    version = source_version()
    sums = {t: releases.publish(version, t, fake_binary(f"release {version} {t}")) for t in TARGETS}
    release_sums(action, sums)
    install_sh = action / "action" / "install.sh"

    run = install(runner, "fetch", script=install_sh, ABEX_RELEASE_URL=releases.url + "/")
    assert run.returncode == 0, run.stderr
    assert "verified against the action's source" in run.stderr, run.stderr
    assert outputs(runner)["installed"] == "true"
    assert re.fullmatch(r"abex-build-\w+-\w+-[0-9a-f]{64}", outputs(runner)["build-key"])
    name = f"cargo-abex-{host}-v{version}.tar.gz"
    assert releases.requests == [f"/v{version}/{name}"], "the .sha256 asset is never trusted"
    installed = runner["bin"] / "cargo-abex"
    assert subprocess.run([installed], capture_output=True, text=True, env=runner["env"]).stdout == (
        f"release {version} {host}\n"
    )
    assert (tmp_path / "github_path").read_text().splitlines() == [str(runner["bin"])]
    assert compiler_calls(runner) == [], "no compiler may run when the release binary exists"
    (tmp_path / "calls.log").unlink()

    # The Action's analyse step finds it through GITHUB_PATH and runs it (the cargo front end).
    project = tmp_path / "project"
    project.mkdir()
    (project / "Cargo.toml").write_text('[package]\nname = "p"\nversion = "0.1.0"\n')
    env = dict(runner["env"], PATH=os.pathsep.join([str(runner["bin"]), runner["env"]["PATH"]]))
    run_sh = action / "action" / "run.sh"
    run = subprocess.run(["bash", str(run_sh), "analyse"], cwd=project, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert calls == [f"release {version} {host} abex --offline --fail-on never"], calls
    assert compiler_calls(runner) == []


@pytest.mark.parametrize("committed", ["0" * 64, "", "not a checksum"], ids=["wrong", "empty", "malformed"])
def test_an_archive_whose_sha256_is_not_the_one_the_source_holds_is_refused_and_never_built_instead(
    runner, releases, action, committed
):
    host = host_target()
    # The asset and its own .sha256 agree; the action's source says otherwise.
    releases.publish(source_version(), host, fake_binary("tampered"))
    release_sums(action, {host: committed} if committed else {h: "0" * 64 for h in TARGETS if h != host})
    run = install(runner, script=action / "action" / "install.sh", ABEX_RELEASE_URL=releases.url)
    if not committed:
        # No sum for this runner: no archive is trusted, abex is built.
        assert run.returncode == 0, run.stderr
        assert releases.requests == [] and len(compiler_calls(runner)) == 1
        return
    assert run.returncode == 3, run.stderr
    assert "checksum mismatch" in run.stderr and "refusing to install" in run.stderr, run.stderr
    assert not (runner["bin"] / "cargo-abex").exists()
    assert compiler_calls(runner) == [], "a mismatch must not fall back to a build"
    assert "installed" not in outputs(runner)


def test_a_pinned_commit_that_is_not_the_release_s_source_builds_from_its_source(runner, releases, action):
    """The source changed after the release (a later commit pinned by its SHA, the same version
    in Cargo.toml): its digest is not the release's, so the release binary (older code) is never
    downloaded; abex is built from the source that was pinned."""
    host = host_target()
    version = source_version()
    release_sums(action, {host: releases.publish(version, host, fake_binary("older code"))})
    (action / "src" / "lib.rs").write_text((action / "src" / "lib.rs").read_text() + "\n// a later commit\n")
    install_sh = action / "action" / "install.sh"
    assert install(runner, "version", script=install_sh).stdout == ""
    run = install(runner, "fetch", script=install_sh, ABEX_RELEASE_URL=releases.url)
    assert run.returncode == 0, run.stderr
    assert "not a release's" in run.stderr, run.stderr
    assert outputs(runner)["installed"] == "false"
    assert releases.requests == []
    # Another version's sums (the same source, an older release's line) are not this source's.
    release_sums(action, {host: "0" * 64}, version="0.0.1")
    assert install(runner, "version", script=install_sh).stdout == ""


def test_without_a_release_asset_the_action_builds_from_its_own_source(runner, releases, action):
    host = host_target()
    release_sums(action, {host: "1" * 64})
    run = install(runner, "fetch", script=action / "action" / "install.sh", ABEX_RELEASE_URL=releases.url)
    assert run.returncode == 0, run.stderr
    assert "HTTP 404" in run.stderr, run.stderr
    assert outputs(runner)["installed"] == "false"
    assert not (runner["bin"] / "cargo-abex").exists()
    assert compiler_calls(runner) == []

    # action.yml then restores the cache under build-key and runs the build step.
    build_dir = Path(runner["env"]["RUNNER_TEMP"]) / "abex" / "build"
    run = install(runner, "build", script=action / "action" / "install.sh")
    assert run.returncode == 0, run.stderr
    root = runner["bin"].parent
    assert compiler_calls(runner) == [
        f"cargo install --locked --quiet --path {action / 'cargo-abex'} --root {root} "
        f"CARGO_TARGET_DIR={build_dir}"
    ]
    assert (runner["bin"] / "cargo-abex").exists()
    assert str(runner["bin"]) in (runner["tmp"] / "github_path").read_text().splitlines()


def test_run_sh_install_fetches_then_builds_only_when_nothing_was_fetched(runner, releases, action):
    host = host_target()
    version = source_version()
    run_sh = action / "action" / "run.sh"
    # The repository's own source holds no release's sums yet: it builds.
    run = install(runner, "install", script=run_sh, ABEX_RELEASE_URL=releases.url)
    assert run.returncode == 0, run.stderr
    assert releases.requests == []
    assert len(compiler_calls(runner)) == 1

    # At the release commit, the same step downloads the archive and compiles nothing.
    release_sums(action, {host: releases.publish(version, host, fake_binary("release"))})
    runner["compiler_log"].unlink()
    run = install(runner, "install", script=run_sh, ABEX_RELEASE_URL=releases.url)
    assert run.returncode == 0, run.stderr
    assert compiler_calls(runner) == []
    assert subprocess.run([runner["bin"] / "cargo-abex"], capture_output=True, text=True).stdout == "release\n"


def test_the_repository_s_own_sums_name_no_release_of_this_source(runner):
    """Until a release commit writes it, `action/release-sums.txt` names nothing: a workflow
    pinned to any other commit builds abex."""
    run = install(runner, "version")
    assert run.returncode == 0 and run.stdout == "", run.stdout + run.stderr


def test_binstall_the_release_workflow_and_install_sh_agree_on_the_archives(runner):
    """`cargo binstall` (cargo-abex's metadata), the release workflow that makes the archives and
    install.sh that fetches them name the same files, for the same targets."""
    tomllib = pytest.importorskip("tomllib")
    host = host_target()
    manifest = tomllib.loads((REPO / "cargo-abex" / "Cargo.toml").read_text())
    meta = manifest["package"]["metadata"]["binstall"]
    values = {
        "repo": "REPO",
        "name": "cargo-abex",
        "version": "9.8.7",
        "target": host,
        "archive-suffix": ".tar.gz",
        "bin": "cargo-abex",
        "binary-ext": "",
    }

    def expand(template):
        return re.sub(r"\{ ([\w-]+) \}", lambda m: values[m.group(1)], template)

    assert meta["pkg-fmt"] == "tgz"
    archive = f"cargo-abex-{host}-v9.8.7.tar.gz"
    assert expand(meta["pkg-url"]) == f"REPO/releases/download/v9.8.7/{archive}"
    assert expand(meta["bin-dir"]) == f"cargo-abex-{host}-v9.8.7/cargo-abex"

    workflow = (REPO / ".github" / "workflows" / "release.yml").read_text()
    assert re.findall(r"\{ target: ([\w-]+), os: ", workflow) == TARGETS
    for line in [
        'name="cargo-abex-$TARGET-v$VERSION"',
        'cp "target/$TARGET/release/cargo-abex" README.md "$name/"',
        'tar -czf "$name.tar.gz" "$name"',
        'shasum -a 256 "$name.tar.gz" > "$name.tar.gz.sha256"',
    ]:
        assert line in workflow, line

    for line in [
        'for archive in assets/cargo-abex-*-v"$VERSION".tar.gz; do',
        'echo "source $VERSION $(bash action/install.sh digest)"',
    ]:
        assert line in workflow, line
