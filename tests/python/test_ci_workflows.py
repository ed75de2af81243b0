""".github/workflows/*.yml: valid GitHub Actions workflows whose commands point
at real files, every action pinned by commit; ci/ keeps only its README."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

from patchset_support import REPO, load_script  # noqa: E402

CI = REPO / ".github" / "workflows"
WORKFLOWS = sorted(CI.glob("*.yml"))
# Self-hosted Intel GPU runners: run by hand only.
GPU_ROUTES = ("windows-wheel-route.yml", "windows-xpu.yml")
# Runs on a pushed tag v* (and by hand), not on every push.
RELEASE = "release.yml"
# owner/name@<commit> # v<version>: a tag can be moved, a commit cannot.
PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"^\s*-?\s*uses:\s*(\S+)\s+# (v\d+(?:\.\d+)*)\s*$")
# A path of this repository: not the tail of another path ($VCPKG.../scripts/...).
SCRIPT_REF = re.compile(r"(?<![\w/\\$:.-])(?:scripts|\.ci|tests)[/\\][\w./\\-]+")


def load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    # YAML 1.1 reads the key `on` as True.
    if True in data:
        data["on"] = data.pop(True)
    return data


def test_the_five_workflows_exist():
    assert [p.name for p in WORKFLOWS] == [
        "linux.yml",
        RELEASE,
        "windows-msvc.yml",
        "windows-wheel-route.yml",
        "windows-xpu.yml",
    ]


def test_ci_holds_no_workflow_only_its_readme():
    # GitHub runs only .github/workflows/; ci/ is for CI changes proposed to PyTorch.
    ci = REPO / "ci"
    assert sorted(p.name for p in ci.iterdir()) == ["README.md"]
    readme = (ci / "README.md").read_text(encoding="utf-8")
    assert "patches/pytorch" in readme and ".github/workflows/" in readme
    for path in WORKFLOWS:
        assert f"`{path.name}`" in readme, f"ci/README.md does not list {path.name}"
    assert not list(REPO.glob(".github/workflows/*.yaml")), "one extension: .yml"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_version(path):
    text = path.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if re.match(r"^\s*-?\s*uses:", line)]
    # Every `uses:` the YAML has is one of these lines, so none escapes the check.
    assert len(lines) == sum("uses" in s for s in all_steps(load(path))) > 0
    for line in lines:
        match = VERSION_COMMENT.match(line)
        assert match, f"{path.name}: pin by commit with the version as a comment: {line.strip()}"
        assert PINNED.match(match.group(1)), f"{path.name}: not a 40-hex commit: {line.strip()}"


def test_each_pinned_commit_names_one_version():
    # The same action@commit carries the same # v<version> in every workflow,
    # and one version of an action is pinned everywhere.
    versions = {}
    for path in WORKFLOWS:
        for line in path.read_text(encoding="utf-8").splitlines():
            match = VERSION_COMMENT.match(line)
            if match:
                action, commit = match.group(1).split("@")
                versions.setdefault(action, set()).add((commit, match.group(2)))
    assert versions and all(len(pins) == 1 for pins in versions.values()), versions


def test_actionlint_knows_the_self_hosted_label():
    # Every runs-on label that is not GitHub's own is declared for actionlint.
    config = yaml.safe_load((REPO / ".github" / "actionlint.yaml").read_text(encoding="utf-8"))
    declared = set(config["self-hosted-runner"]["labels"])
    for path in WORKFLOWS:
        for job in load(path)["jobs"].values():
            labels = job["runs-on"] if isinstance(job["runs-on"], list) else [job["runs-on"]]
            if "self-hosted" in labels:
                assert set(labels) - {"self-hosted", "windows", "linux", "macos", "x64"} <= declared, labels


def test_gpu_routes_run_by_hand_only_the_hosted_ones_on_every_push():
    # Self-hosted GPU runners: a push, a pull request or a timer must not start them.
    # The release runs on a pushed tag v* only (or by hand), never on a branch push.
    for path in WORKFLOWS:
        triggers = load(path)["on"]
        if path.name in GPU_ROUTES:
            assert list(triggers) == ["workflow_dispatch"], f"{path.name}: {list(triggers)}"
        elif path.name == RELEASE:
            assert list(triggers) == ["push", "workflow_dispatch"], f"{path.name}: {list(triggers)}"
            assert triggers["push"] == {"tags": ["v*"]}, f"{path.name}: {triggers['push']}"
        else:
            assert {"push", "pull_request"} <= set(triggers), f"{path.name}: {list(triggers)}"
    assert {p.name for p in WORKFLOWS} >= set(GPU_ROUTES)


def test_no_file_names_a_workflow_under_ci():
    # The workflows moved to .github/workflows/; ci/<name>.yml names nothing.
    old = re.compile(r"(?<![\w./-])ci/(?:" + "|".join(re.escape(p.name) for p in WORKFLOWS) + r"|\*\.yml)")
    paths = [
        REPO / "README.md",
        *sorted((REPO / "docs").glob("*.md")),
        *sorted((REPO / "scripts").glob("*.py")),
        *sorted((REPO / "tests" / "python").glob("*.py")),
        *WORKFLOWS,
    ]
    found = [
        f"{p.relative_to(REPO)}:{n}: {line.strip()}"
        for p in paths
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if old.search(line)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_shape(path):
    data = load(path)
    assert data["name"] and data["on"]
    assert data["jobs"], "no jobs"
    for name, job in data["jobs"].items():
        assert job.get("runs-on"), f"{name}: runs-on missing"
        assert isinstance(job.get("timeout-minutes"), int), f"{name}: no timeout"
        steps = job["steps"]
        # The release's publishing jobs work on the run's artifacts only, not on a checkout.
        first = ("actions/checkout@", "actions/download-artifact@") if path.name == RELEASE else "actions/checkout@"
        assert steps and steps[0]["uses"].startswith(first), f"{name}: first step {steps[0]}"
        for step in steps:
            assert ("uses" in step) != ("run" in step), f"{name}: a step needs exactly one of uses/run: {step}"
            if "uses" in step:
                assert PINNED.match(step["uses"]), step["uses"]


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
    release = load(CI / RELEASE)["jobs"]
    assert release["windows-wheels"]["runs-on"] == "windows-2022"
    assert all(str(j["runs-on"]).startswith("ubuntu") for n, j in release.items() if n != "windows-wheels")
    xpu_steps = [s for j in xpu.values() for s in j["steps"]]
    assert any("harness.cmd all" in s.get("run", "") for s in xpu_steps)
    uploads = [s for s in xpu_steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["if"] == "always()" and "junit" in uploads[0]["with"]["path"]


def all_steps(data: dict) -> list[dict]:
    return [s for job in data["jobs"].values() for s in job["steps"]]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_junit_report_has_the_checks_permission(path):
    data = load(path)
    if any(s.get("uses", "").startswith("mikepenz/action-junit-report@") for s in all_steps(data)):
        permissions = data.get("permissions") or {}
        assert permissions.get("checks") == "write", f"{path.name}: action-junit-report needs checks: write"
        assert permissions.get("contents") == "read"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_expression_is_pasted_into_a_shell_command(path):
    # ${{ ... }} is substituted before the shell parses the line: inputs would
    # become shell code. They go through env: and are read as variables.
    for step in all_steps(load(path)):
        assert "${{" not in step.get("run", ""), f"{path.name}: {step.get('name')}: pass it through env:"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_batch_files_are_called_in_cmd_steps(path):
    # Without `call`, cmd.exe does not come back from a .cmd: the rest of the line is lost.
    for step in all_steps(load(path)):
        if step.get("shell") != "cmd":
            continue
        for command in re.split(r"&&|\|\||[&|\n]", step["run"]):
            words = command.split()
            for index, word in enumerate(words):
                if word.lower().endswith((".cmd", ".bat")):
                    assert index > 0 and words[index - 1].lower() == "call", f"{path.name}: use call for {word}"


def test_xpu_inputs_go_through_env_and_are_checked_first():
    job = load(CI / "windows-xpu.yml")["jobs"]["harness"]
    inputs = load(CI / "windows-xpu.yml")["on"]["workflow_dispatch"]["inputs"]
    for name in inputs:
        variable = f"XSL_{name.upper()}"
        assert f"github.event.inputs.{name}" in job["env"][variable]
    runs = [s.get("run", "") for s in job["steps"]]
    harness_index = next(i for i, r in enumerate(runs) if "harness.cmd all" in r)
    assert '--ref "%XSL_REF%"' in runs[harness_index] and '--arch "%XSL_ARCH%"' in runs[harness_index]
    checks = [i for i, r in enumerate(runs) if "-notmatch" in r and all(f"XSL_{n.upper()}" in r for n in inputs)]
    assert checks and checks[0] < harness_index


def test_xpu_run_uses_a_fresh_work_folder():
    # Finished steps are resumable through <work>\state.json: a work folder
    # kept between runs would make a later run re-test nothing.
    job = load(CI / "windows-xpu.yml")["jobs"]["harness"]
    assert "${{ github.run_id }}" in job["env"]["XSL_WORK"]
    harness_run = next(s["run"] for s in job["steps"] if "harness.cmd all" in s.get("run", ""))
    assert '--work "%XSL_WORK%"' in harness_run
    for step in job["steps"]:
        for value in (step.get("with") or {}).values():
            assert "C:\\xsl\\work" not in str(value), f"{step.get('name')}: use ${{{{ env.XSL_WORK }}}}"
    cleanup = job["steps"][-1]
    assert cleanup.get("if") == "always()" and "rmdir" in cleanup["run"] and "%XSL_WORK%" in cleanup["run"]


def test_msvc_builds_and_tests_as_cxx20_too():
    """torch >= 2.13 builds as C++20 (/std:c++20): the MSVC job must build
    and test the sources that way as well as C++17."""
    text = (CI / "windows-msvc.yml").read_text(encoding="utf-8")
    for command in (
        "cmake --preset windows-msvc-cxx20",
        "cmake --build --preset windows-msvc-cxx20",
        "ctest --preset windows-msvc-cxx20",
    ):
        assert command in text
    presets = json.loads((REPO / "CMakePresets.json").read_text(encoding="utf-8"))
    [configure] = [p for p in presets["configurePresets"] if p["name"] == "windows-msvc-cxx20"]
    assert configure["inherits"] == "windows-msvc"
    assert configure["cacheVariables"]["CMAKE_CXX_STANDARD"] == "20"


def test_xpu_runs_both_launchers_as_a_matrix_through_the_two_tests():
    from patchset_support import load_script

    harness = load_script("harness")
    workflow = load(CI / "windows-xpu.yml")
    job = workflow["jobs"]["harness"]
    launchers = job["strategy"]["matrix"]["launcher"]
    assert launchers == ["upstream", "project"] and set(launchers) <= set(harness.patchset.LAUNCHERS)
    assert job["strategy"]["fail-fast"] is False  # one launcher failing must not cancel the other
    assert job["env"]["XSL_LAUNCHER"] == "${{ matrix.launcher }}"
    # Separate work folders, clones and artifacts: the two runs may share a runner.
    for value in (job["env"]["XSL_WORK"], job["env"]["XSL_SRC"]):
        assert "${{ matrix.launcher }}" in value
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact"))
    assert "${{ matrix.launcher }}" in upload["with"]["name"]
    harness_run = next(s["run"] for s in job["steps"] if "harness.cmd all" in s.get("run", ""))
    assert '--launcher "%XSL_LAUNCHER%"' in harness_run
    # `all` ends with the test step, which runs both tests for either launcher.
    assert [name for name, _ in harness.XPU_TESTS] == ["static_triton_launcher", "autotune_cache_warm_start"]
    assert harness.XPU_TESTS[0][1] == ["test/inductor/test_static_triton_launcher.py"]
    assert "test_autotune_cache_warm_start" in harness.XPU_TESTS[1][1]
    assert "test" in [s.name for s in harness.plan_for("all")]
    default_ref = workflow["on"]["workflow_dispatch"]["inputs"]["ref"]["default"]
    assert default_ref == harness.DEFAULT_REF == "v2.15.0"
    assert f"|| '{default_ref}'" in job["env"]["XSL_REF"]


def test_msvc_builds_the_package_against_intel_sycl_rt_without_cmake_defines():
    steps = [s for j in load(CI / "windows-msvc.yml")["jobs"].values() for s in j["steps"]]
    [step] = [s for s in steps if "intel-sycl-rt" in s.get("name", "")]
    run = step["run"]
    assert step["shell"] == "pwsh"
    order = [
        "pip install intel-sycl-rt",
        "python scripts/find_sycl.py",
        "XSL_LEVEL_ZERO_INCLUDE_DIR",
        "pip install --no-build-isolation",
        "SYCL runtime: headers",
        "sycl_layout_check.py",
    ]
    positions = [run.find(text) for text in order]
    assert -1 not in positions and positions == sorted(positions), dict(zip(order, positions))
    # Everything the build needs is found by documented means, not -C cmake.define.
    assert "cmake.define" not in run and "-DXSL_SYCL" not in run
    assert run.count("exit $LASTEXITCODE") >= 2 and "exit $rc" in run
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in (
        "XSL_LEVEL_ZERO_INCLUDE_DIR",
        "XSL_SYCL_INCLUDE_DIR",
        "XSL_SYCL_LIBRARY_DIR",
        "scripts/find_sycl.py",
        "--no-build-isolation",
        "os.add_dll_directory",
    ):
        assert name in readme, f"README does not document {name}"
    assert (REPO / "tests" / "python" / "sycl_layout_check.py").is_file()
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert "pip-install-sycl.log" in uploads[0]["with"]["path"]


def test_the_wheel_route_runs_check_verify_and_the_inductor_tests_on_a_gpu():
    data = load(CI / "windows-wheel-route.yml")
    [job] = data["jobs"].values()
    assert job["runs-on"] == ["self-hosted", "windows", "xpu"]
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "--index-url https://download.pytorch.org/whl/xpu" in runs and "torch==%XSL_TORCH%" in runs
    for command in (
        "xpu_static_launcher check",
        "xpu_static_launcher enable-at-startup",
        "xpu_static_launcher verify",
        "test/inductor/test_static_triton_launcher.py",
        "test_autotune_cache_warm_start",
        "--no-build-isolation",
        "XSL_PACKAGE_WHEEL",
    ):
        assert command in runs, command
    # Route (a) needs no ocloc: the launcher loads Triton's SPIR-V and the GPU
    # driver compiles it. Route (b), the PyTorch source build, still needs oneAPI.
    assert "vars.bat" not in runs and "ocloc" not in runs.lower()
    assert "ONEAPI_ROOT" not in runs
    # Every package the workflow installs is pinned.
    for line in runs.splitlines():
        # (a local build, the given file, or --no-index: nothing comes from an index)
        if "pip install" not in line or any(
            w in line for w in ("--no-build-isolation", "XSL_PACKAGE_WHEEL", "--no-index")
        ):
            continue
        words = line.split("||")[0].split("*>")[0].split("pip install", 1)[1].split()
        names = [w.strip('"') for w in words if not w.startswith(("-", "https:"))]
        assert names and all("==" in name for name in names), line
    uploads = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["if"] == "always()"


def test_windows_wheels_are_built_for_every_torch_python_and_installed_by_the_wheel_route():
    harness = load_script("harness")
    job = load(CI / "windows-msvc.yml")["jobs"]["wheel"]
    # Every Python some supported torch release has wheels for.
    wanted = sorted(
        {
            f"3.{minor}"
            for low, high in harness.TORCH_PYTHON_RANGE.values()
            for minor in range(int(low.split(".")[1]), int(high.split(".")[1]) + 1)
        },
        key=lambda v: int(v.split(".")[1]),
    )
    assert job["strategy"]["matrix"]["python-version"] == wanted
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "scripts/build_wheel.py --platform win_amd64" in runs and "scripts/build_wheel.py --check" in runs
    [upload] = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["with"]["name"] == "xpu-static-launcher-win_amd64-py${{ matrix.python-version }}"
    route = load(CI / "windows-wheel-route.yml")
    assert "wheel_run_id" in route["on"]["workflow_dispatch"]["inputs"]
    [download] = [
        s
        for j in route["jobs"].values()
        for s in j["steps"]
        if s.get("uses", "").startswith("actions/download-artifact")
    ]
    assert download["with"]["pattern"] == "xpu-static-launcher-win_amd64-py*"
    assert download["with"]["run-id"] == "${{ github.event.inputs.wheel_run_id }}"
    # Another run's artifacts: the token needs actions: read besides contents: read.
    assert download["with"]["github-token"] == "${{ github.token }}"
    assert route["permissions"]["actions"] == "read" and route["permissions"]["contents"] == "read"
