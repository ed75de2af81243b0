""".github/workflows/release.yml and the one statement of the supported
Python range (pyproject.toml's requires-python): a tag must be v + the
version, every action is pinned by commit, PyPI is reached by trusted
publishing only, and the wheel matrices, the wheels' Requires-Python and
the docs' statements of the range all follow pyproject.toml."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from docs_support import DOCS, README, package_python_ranges
from patchset_support import REPO, load_script
from test_ci_workflows import CI, PINNED, VERSION_COMMENT, WORKFLOWS, all_steps, load

tomllib = pytest.importorskip("tomllib")

RELEASE = CI / "release.yml"
BUILD_JOBS = ("windows-wheels", "linux-wheels", "sdist")
PUBLISH_JOBS = ("github-release", "pypi")
PUBLISH_IF = "needs.version.outputs.publish == 'true'"
PYPI_PUBLISH = "pypa/gh-action-pypi-publish"
# requires-python as the range it states: >=3.X,<3.Y (both ends: the
# wheels are built for each CPython of it, and no other).
REQUIRES_PYTHON = re.compile(r"^>=3\.(\d+),<3\.(\d+)$")
# The commands each artifact's fresh venv must run.
IMPORT_VERSION = '-c "import xpu_static_launcher; print(xpu_static_launcher.__version__)"'
CLI_HELP = "-m xpu_static_launcher --help"


def requires_python() -> str:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["requires-python"])


def supported_pythons() -> list[str]:
    """Every CPython of pyproject.toml's requires-python, oldest first."""
    spec = requires_python()
    match = REQUIRES_PYTHON.match(spec.replace(" ", ""))
    assert match, f"pyproject.toml: requires-python {spec!r} is not '>=3.X,<3.Y'"
    low, stop = int(match.group(1)), int(match.group(2))
    assert low < stop, spec
    return [f"3.{minor}" for minor in range(low, stop)]


def supported_range() -> str:
    pythons = supported_pythons()
    return f"{pythons[0]}-{pythons[-1]}"


def release() -> dict[str, Any]:
    return load(RELEASE)


def job(name: str) -> dict[str, Any]:
    jobs: dict[str, Any] = release()["jobs"]
    assert name in jobs, f"release.yml has no job {name}"
    return dict(jobs[name])


def step_runs(job_data: dict[str, Any]) -> str:
    return "\n".join(str(s.get("run", "")) for s in job_data["steps"])


# ------------------------------------------------------------ the range


def test_requires_python_is_the_union_of_the_torch_xpu_pythons() -> None:
    # pyproject.toml states it once; it is the union of the Pythons PyPI's
    # torch XPU Windows wheels exist for, by release (scripts/harness.py).
    harness = load_script("harness")
    union = {
        minor
        for low, high in harness.TORCH_PYTHON_RANGE.values()
        for minor in range(int(low.split(".")[1]), int(high.split(".")[1]) + 1)
    }
    assert supported_pythons() == [f"3.{minor}" for minor in sorted(union)]


def test_the_wheel_matrices_list_every_python_of_requires_python() -> None:
    wanted = supported_pythons()
    matrices = {
        "windows-msvc.yml wheel": load(CI / "windows-msvc.yml")["jobs"]["wheel"],
        "release.yml windows-wheels": job("windows-wheels"),
        "release.yml linux-wheels": job("linux-wheels"),
    }
    for where, job_data in matrices.items():
        listed = job_data["strategy"]["matrix"]["python-version"]
        assert listed == wanted, f"{where}: matrix {listed}, pyproject.toml's requires-python {wanted}"


def test_build_wheel_writes_pyproject_requires_python_into_metadata() -> None:
    build_wheel = load_script("build_wheel")
    assert build_wheel.requires_python() == requires_python()
    lines = build_wheel.metadata("0.0.0").split("\n\n", 1)[0].splitlines()
    assert [line for line in lines if line.startswith("Requires-Python:")] == [f"Requires-Python: {requires_python()}"]


def test_the_range_finder_tells_the_package_from_torch() -> None:
    text = (
        "The wheels are built for CPython 3.10-3.15, each tagged for its Python.\n\n"
        "- 64-bit Python 3.11-3.15 (the versions PyPI's torch 2.15.0 wheels for Windows are built for;\n"
        "  the harness checks the range)\n"
        "| 2.13 | 3.10-3.14 | the package adds no requirement |\n\n"
        "The harness refuses one outside 3.11-3.15. Triton 3.3 - 3.8 reports bytes.\n\n"
        "```bat\npip install xpu_static_launcher  & rem Python 3.9-3.9\n```\n"
        "Install the package on Python 3.10\u20133.15."
    )
    assert package_python_ranges(text) == [
        ("3.10-3.15", "The wheels are built for CPython 3.10-3.15, each tagged for its Python."),
        ("3.10-3.15", "Install the package on Python 3.10\u20133.15."),
    ]


MARKDOWN = [README, *DOCS]


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: p.name)
def test_the_docs_state_the_package_python_range_of_pyproject(path: Path) -> None:
    wanted = supported_range()
    wrong = [
        f"  {found}: {sentence}"
        for found, sentence in package_python_ranges(path.read_text(encoding="utf-8"))
        if found != wanted
    ]
    assert not wrong, (
        f"{path.relative_to(REPO)} states a Python range of the package's wheels other than "
        f"pyproject.toml's requires-python {requires_python()!r} ({wanted}); say {wanted} "
        "(or, if the sentence is about a torch release's Pythons, say torch's there):\n" + "\n".join(wrong)
    )


def test_the_docs_state_the_range_somewhere() -> None:
    # The finder is not idle: docs/wheels.md states the range of the wheels.
    wheels = package_python_ranges((REPO / "docs" / "wheels.md").read_text(encoding="utf-8"))
    assert supported_range() in [found for found, _ in wheels]


# ------------------------------------------------------------ release.yml


def test_release_runs_on_a_version_tag_or_by_hand_as_a_dry_run() -> None:
    data = release()
    assert data["on"]["push"] == {"tags": ["v*"]}
    dry_run = data["on"]["workflow_dispatch"]["inputs"]["dry_run"]
    assert dry_run["type"] == "boolean" and dry_run["default"] is True


def test_release_has_its_jobs_in_order() -> None:
    jobs = release()["jobs"]
    assert list(jobs) == ["version", *BUILD_JOBS, *PUBLISH_JOBS]
    for name in BUILD_JOBS:
        assert jobs[name]["needs"] == "version", name
    assert jobs["github-release"]["needs"] == ["version", *BUILD_JOBS]
    # PyPI files cannot be replaced: the upload comes last, after the GitHub Release.
    assert jobs["pypi"]["needs"] == ["version", "github-release"]
    for name in PUBLISH_JOBS:
        assert jobs[name]["if"] == PUBLISH_IF, f"{name}: a dry run must not publish"
    assert jobs["windows-wheels"]["runs-on"] == "windows-2022"
    assert all(jobs[n]["runs-on"].startswith("ubuntu-") for n in jobs if n != "windows-wheels")


def test_release_permissions_are_per_job_and_minimal() -> None:
    data = release()
    assert data["permissions"] == {}
    wanted = {"github-release": {"contents": "write"}, "pypi": {"id-token": "write"}}
    for name, job_data in data["jobs"].items():
        assert job_data["permissions"] == wanted.get(name, {"contents": "read"}), name


def test_every_release_action_is_pinned_by_commit_as_elsewhere() -> None:
    lines = [line for line in RELEASE.read_text(encoding="utf-8").splitlines() if re.match(r"^\s*-?\s*uses:", line)]
    assert len(lines) == sum("uses" in s for s in all_steps(release()))
    elsewhere = {}
    for path in WORKFLOWS:
        if path != RELEASE:
            for line in path.read_text(encoding="utf-8").splitlines():
                match = VERSION_COMMENT.match(line)
                if match:
                    elsewhere[match.group(1).split("@")[0]] = (match.group(1), match.group(2))
    for line in lines:
        match = VERSION_COMMENT.match(line)
        assert match, f"pin by commit with the version as a comment: {line.strip()}"
        uses, version = match.group(1), match.group(2)
        assert PINNED.match(uses) and re.search(r"@[0-9a-f]{40}$", uses), f"not a 40-hex commit: {line.strip()}"
        action = uses.split("@")[0]
        if action != PYPI_PUBLISH:
            assert elsewhere.get(action) == (uses, version), f"{action}: pin it as the other workflows do"


def test_the_tag_is_checked_before_anything_is_built() -> None:
    [check] = [s for s in job("version")["steps"] if s.get("id") == "check"]
    assert check["env"]["XSL_DRY_RUN"] == "${{ github.event_name == 'workflow_dispatch' && inputs.dry_run }}"
    assert "build_wheel.project_version()" in check["run"]
    outputs = job("version")["outputs"]
    assert outputs == {"version": "${{ steps.check.outputs.version }}", "publish": "${{ steps.check.outputs.publish }}"}


def run_version_check(tmp_path: Path, ref_type: str, ref_name: str, dry_run: str) -> tuple[int, str, dict[str, str]]:
    """Runs the version job's check step as GitHub runs a bash step, in this
    repository; (status, output, what it wrote to GITHUB_OUTPUT)."""
    [check] = [s for s in job("version")["steps"] if s.get("id") == "check"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "python"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    output = tmp_path / f"output-{ref_type}-{ref_name}-{dry_run}"
    env = dict(
        os.environ,
        PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        GITHUB_REF_TYPE=ref_type,
        GITHUB_REF_NAME=ref_name,
        XSL_DRY_RUN=dry_run,
        GITHUB_OUTPUT=str(output),
        PYTHONDONTWRITEBYTECODE="1",
    )
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", check["run"]],
        cwd=REPO,
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    written: dict[str, str] = {}
    if output.is_file():
        written = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return result.returncode, result.stdout + result.stderr, written


@pytest.mark.skipif(shutil.which("bash") is None or sys.platform == "win32", reason="the step is a bash step")
@pytest.mark.parametrize(
    "ref_type, ref_name, dry_run, publish",
    [
        ("tag", "v{version}", "false", "true"),  # the pushed tag
        ("tag", "v{version}", "true", "false"),  # by hand on the tag, dry run
        ("branch", "main", "true", "false"),  # by hand on a branch, dry run
        ("tag", "v0.0.0", "false", None),  # another version
        ("tag", "{version}", "false", None),  # no v
        ("tag", "v{version}.1", "false", None),
        ("tag", "v{version}rc1", "true", None),  # a wrong tag fails a dry run too
        ("branch", "main", "false", None),  # publishing needs the tag
    ],
)
def test_the_version_check(tmp_path: Path, ref_type: str, ref_name: str, dry_run: str, publish: str | None) -> None:
    version = load_script("build_wheel").project_version()
    ref = ref_name.format(version=version)
    status, output, written = run_version_check(tmp_path, ref_type, ref, dry_run)
    if publish is None:
        assert status == 1 and "::error::" in output and f"v{version}" in output, output
        assert written == {}, written
    else:
        assert status == 0, output
        assert written == {"version": version, "publish": publish}


def test_each_artifact_is_built_checked_and_imported_from_a_fresh_venv() -> None:
    version_env = "${{ needs.version.outputs.version }}"
    for name in BUILD_JOBS:
        job_data = job(name)
        [install] = [s for s in job_data["steps"] if "fresh venv" in s.get("name", "")]
        run = install["run"]
        assert "-m venv" in run and IMPORT_VERSION in run and CLI_HELP in run, name
        # __version__ is compared with pyproject.toml's version (the tag's).
        assert install["env"]["XSL_VERSION"] == version_env and "XSL_VERSION" in run.split(IMPORT_VERSION)[1], name
        # Imported away from the checkout, so the installed files are what runs.
        assert "RUNNER_TEMP" in run.split(IMPORT_VERSION)[0], name
        [upload] = [s for s in job_data["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
        assert upload["with"]["if-no-files-found"] == "error"
    # The wheels: built and checked by scripts/build_wheel.py; installed from the file only.
    for name, platform in (("windows-wheels", "win_amd64"), ("linux-wheels", "linux")):
        runs = step_runs(job(name))
        assert f"scripts/build_wheel.py --platform {platform} --out dist" in runs
        assert "scripts/build_wheel.py --check" in runs and "pip install --no-index" in runs
    sdist_runs = step_runs(job("sdist"))
    assert "python -m build --sdist --outdir dist" in sdist_runs
    assert "build_wheel.requires_python()" in sdist_runs and "PKG-INFO" in sdist_runs


def test_the_windows_wheels_are_built_as_windows_msvc_builds_them() -> None:
    # The same steps as windows-msvc.yml's job `wheel` up to the build and check.
    ours = {s.get("name", s.get("uses")): s for s in job("windows-wheels")["steps"]}
    theirs = [s for s in load(CI / "windows-msvc.yml")["jobs"]["wheel"]["steps"] if "name" in s]
    for step in theirs:
        if step["name"].startswith(("Level Zero", "MSVC", "Build the wheel")):
            mine = ours.get(step["name"])
            assert mine is not None, f"release.yml windows-wheels lacks the step {step['name']!r}"
            for key in ("run", "uses", "with", "shell"):
                assert mine.get(key) == step.get(key), f"{step['name']}: {key} differs from windows-msvc.yml"


def test_the_release_takes_every_artifact_of_the_run() -> None:
    names = [
        s["with"]["name"]
        for n in BUILD_JOBS
        for s in job(n)["steps"]
        if s.get("uses", "").startswith("actions/upload-artifact@")
    ]
    assert len(names) == len(BUILD_JOBS)
    # windows-wheel-route.yml (input wheel_run_id) can install a release run's wheels too.
    assert "xpu-static-launcher-win_amd64-py${{ matrix.python-version }}" in names
    for name in PUBLISH_JOBS:
        [download] = [s for s in job(name)["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
        assert download["with"]["merge-multiple"] is True and download["with"]["path"] == "dist"
        assert all(fnmatch.fnmatch(n, download["with"]["pattern"]) for n in names), (name, names)


def test_the_github_release_uses_gh_and_the_run_token() -> None:
    job_data = job("github-release")
    [attach] = [s for s in job_data["steps"] if "gh release" in s.get("run", "")]
    assert attach["env"]["GH_TOKEN"] == "${{ github.token }}"
    assert attach["env"]["GH_REPO"] == "${{ github.repository }}"
    assert 'gh release create "$GITHUB_REF_NAME" dist/* --verify-tag' in attach["run"]
    # No third-party action: GitHub's own download, then gh.
    assert all(s.get("uses", "actions/").startswith("actions/") for s in job_data["steps"])


def test_pypi_is_reached_by_trusted_publishing_only() -> None:
    job_data = job("pypi")
    assert job_data["environment"] == "pypi"
    assert job_data["permissions"] == {"id-token": "write"}
    [publish] = [s for s in job_data["steps"] if s.get("uses", "").startswith(f"{PYPI_PUBLISH}@")]
    assert set(publish.get("with") or {}) <= {"packages-dir", "print-hash", "verbose", "skip-existing"}
    text = RELEASE.read_text(encoding="utf-8")
    assert "secrets." not in text, "no secret: GITHUB_TOKEN is github.token, PyPI takes the OIDC token"
    for word in ("password:", "user:", "api-token", "PYPI_TOKEN", "TWINE_"):
        assert word.lower() not in text.lower(), word
    # The PyPI upload is the release's only use of an OIDC token.
    assert [n for n, j in release()["jobs"].items() if "id-token" in j["permissions"]] == ["pypi"]
