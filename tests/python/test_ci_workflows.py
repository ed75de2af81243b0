"""ci/*.yml: valid GitHub Actions workflows whose commands point at real files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

from patchset_support import REPO  # noqa: E402

CI = REPO / "ci"
WORKFLOWS = sorted(CI.glob("*.yml"))
# A path of this repository: not the tail of another path ($VCPKG.../scripts/...).
SCRIPT_REF = re.compile(r"(?<![\w/\\$:.-])(?:scripts|\.ci|tests)[/\\][\w./\\-]+")


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    # YAML 1.1 reads the key `on` as True.
    if True in data:
        data["on"] = data.pop(True)
    return data


def test_the_three_workflows_exist():
    assert [p.name for p in WORKFLOWS] == ["linux.yml", "windows-msvc.yml", "windows-xpu.yml"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_shape(path):
    data = load(path)
    assert data["name"] and data["on"]
    assert data["jobs"], "no jobs"
    for name, job in data["jobs"].items():
        assert job.get("runs-on"), f"{name}: runs-on missing"
        assert isinstance(job.get("timeout-minutes"), int), f"{name}: no timeout"
        steps = job["steps"]
        assert steps and steps[0]["uses"].startswith("actions/checkout@v")
        for step in steps:
            assert ("uses" in step) != ("run" in step), f"{name}: a step needs exactly one of uses/run: {step}"
            if "uses" in step:
                assert re.match(r"^[\w.-]+/[\w.-]+@v\d+$", step["uses"]), step["uses"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_referenced_scripts_exist(path):
    data = load(path)
    refs = set()
    for job in data["jobs"].values():
        for step in job["steps"]:
            refs.update(SCRIPT_REF.findall(step.get("run", "")))
            for value in (step.get("with") or {}).values():
                refs.update(SCRIPT_REF.findall(str(value)))
    for ref in refs:
        rel = ref.replace("\\", "/").rstrip(".")
        if "*" in rel:
            continue
        assert (REPO / rel).exists(), f"{path.name} references {ref}, which does not exist"
    assert refs, "a workflow that runs none of our scripts"


def test_runners_match_their_purpose():
    linux = load(CI / "linux.yml")["jobs"]
    msvc = load(CI / "windows-msvc.yml")["jobs"]
    xpu = load(CI / "windows-xpu.yml")["jobs"]
    assert all(str(j["runs-on"]).startswith("ubuntu") for j in linux.values())
    assert any("bash .ci/run" in s.get("run", "") for j in linux.values() for s in j["steps"])
    assert all(j["runs-on"] == "windows-2022" for j in msvc.values())
    msvc_runs = " ".join(s.get("run", "") for j in msvc.values() for s in j["steps"])
    assert "--preset windows-msvc" in msvc_runs and "level-zero" in msvc_runs and "ctest" in msvc_runs
    assert all(j["runs-on"] == ["self-hosted", "windows", "xpu"] for j in xpu.values())
    xpu_steps = [s for j in xpu.values() for s in j["steps"]]
    assert any("harness.cmd all" in s.get("run", "") for s in xpu_steps)
    uploads = [s for s in xpu_steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["if"] == "always()" and "junit" in uploads[0]["with"]["path"]
