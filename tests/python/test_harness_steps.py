"""scripts/harness.py: resumable steps, logs, the default run's skip list, Windows plumbing."""

from __future__ import annotations

import dataclasses
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from patchset_support import load_script, make_checkout

harness = load_script("harness")
doctor = harness.doctor


class FakeProbes(doctor.Probes):
    def __init__(self, platform="linux", env=None, files=(), responses=None):
        super().__init__(python=sys.executable, env=env or {"PATH": ""})
        self.platform = platform
        self.files = set(files)
        self.responses = responses or {}
        self.commands = []

    def is_file(self, path):
        return path in self.files

    def run(self, argv, timeout=120):
        self.commands.append(argv if isinstance(argv, str) else list(argv))
        text = argv if isinstance(argv, str) else " ".join(argv)
        for key, response in self.responses.items():
            if key in text:
                return response
        return (1, "", "not faked")

    def run_bytes(self, command, timeout=120):
        """Like cmd /u: the faked text comes back as UTF-16-LE bytes."""
        rc, out, err = self.run(command, timeout)
        return (rc, out.encode("utf-16-le"), err.encode("utf-16-le"))


def make_ctx(tmp_path, probes=None, force=False):
    return harness.Context(
        work=tmp_path / "work",
        ref="v2.13.0",
        src=tmp_path / "src",
        arch="bmg",
        python=sys.executable,
        jobs=2,
        preset="linux-gcc",
        probes=probes or FakeProbes(),
        force=force,
        out=lambda line: None,
    )


def counting_step(name, calls, status=harness.OK, fingerprint="", fatal=True, raises=None):
    def action(ctx, log):
        calls.append(name)
        log.write(f"{name} says hello")
        if raises:
            raise harness.StepFailed(raises)
        return harness.Outcome(status, f"{name} detail")

    return harness.Step(name, f"title {name}", action, fingerprint=lambda ctx: fingerprint, fatal=fatal)


def test_finished_steps_are_skipped_and_force_reruns(tmp_path):
    calls = []
    steps = [counting_step("a", calls), counting_step("b", calls, status=harness.WARN)]
    ctx = make_ctx(tmp_path)
    first = harness.run_steps(ctx, steps)
    assert [r.status for r in first] == ["ok", "warn"] and calls == ["a", "b"]
    second = harness.run_steps(ctx, steps)
    assert calls == ["a", "b"] and all(r.resumed for r in second)
    state = json.loads((ctx.work / "state.json").read_text())
    assert state["steps"]["a"]["status"] == "ok" and state["steps"]["b"]["log"].endswith("b.log")
    forced = make_ctx(tmp_path, force=True)
    harness.run_steps(forced, steps)
    assert calls == ["a", "b", "a", "b"]


def test_changed_inputs_and_failures_rerun(tmp_path):
    calls = []
    ctx = make_ctx(tmp_path)
    harness.run_steps(ctx, [counting_step("a", calls, fingerprint="ref1"), counting_step("b", calls, raises="boom")])
    harness.run_steps(ctx, [counting_step("a", calls, fingerprint="ref2"), counting_step("b", calls)])
    assert calls == ["a", "b", "a", "b"]


def test_fatal_failure_stops_later_steps_with_a_reason(tmp_path):
    calls = []
    steps = [counting_step("a", calls, raises="no compiler"), counting_step("b", calls)]
    results = harness.run_steps(make_ctx(tmp_path), steps)
    assert calls == ["a"]
    assert results[0].status == "failed" and results[0].detail == "no compiler"
    assert results[1].status == "skipped" and "'a' failed" in results[1].detail


def test_each_step_logs_to_its_own_file(tmp_path):
    ctx = make_ctx(tmp_path)

    def action(ctx, log):
        rc = harness.run_logged(
            [sys.executable, "-c", "print('out line'); import sys; print('err line', file=sys.stderr)"], log
        )
        return harness.Outcome(harness.OK if rc == 0 else harness.FAILED)

    harness.run_steps(ctx, [harness.Step("cmd", "runs a command", action), counting_step("other", [])])
    text = (ctx.logs / "cmd.log").read_text()
    assert "$ " in text and "out line" in text and "err line" in text and "(exit 0)" in text
    assert "other says hello" in (ctx.logs / "other.log").read_text()
    assert "out line" not in (ctx.logs / "other.log").read_text()


def test_missing_program_is_a_failure_not_a_crash(tmp_path):
    log = harness.StepLog(tmp_path / "x.log", lambda line: None)
    assert harness.run_logged(["/nonexistent/tool"], log) == 127
    log.close()
    assert "cannot start" in (tmp_path / "x.log").read_text()


def capture_output(monkeypatch):
    """The lines main() prints through its context, as a list."""
    lines = []
    original = harness.make_context

    def capture(args, probes=None):
        ctx = original(args, probes)
        ctx.out = lines.append
        return ctx

    monkeypatch.setattr(harness, "make_context", capture)
    return lines


def test_default_run_lists_skips_with_reasons(tmp_path, monkeypatch):
    # The heavy steps are stubbed; the plan and reporting are real.
    for name in (
        "step_portable_build",
        "step_portable_test",
        "step_kernels",
        "step_patchset_selfcheck",
        "step_doctor_portable",
    ):
        monkeypatch.setattr(harness, name, lambda ctx, log, _n=name: harness.Outcome(harness.OK, _n))
    probes = FakeProbes()
    work = tmp_path / "work"
    ctx_out = capture_output(monkeypatch)
    rc = harness.main(["--work", str(work)], probes=probes)
    text = "\n".join(ctx_out)
    assert rc == 0
    assert "Skipped here:" in text
    for step in ("prerequisites", "checkout", "apply", "build", "test"):
        assert f"  - {step}: needs Windows with an Intel GPU (this is linux)" in text
    assert "All 5 step(s) that can run here passed; 5 skipped (listed above)." in text
    suite = ET.parse(work / "junit" / "harness.xml").getroot()
    assert suite.get("tests") == "10" and suite.get("skipped") == "5" and suite.get("failures") == "0"


@pytest.mark.parametrize("command", ["all", "build"])
def test_windows_commands_elsewhere_say_nothing_ran(tmp_path, capsys, command):
    rc = harness.main([command, "--work", str(tmp_path / "w")], probes=FakeProbes())
    out = capsys.readouterr().out
    assert rc == 2
    assert (
        f"harness.py {command}: builds and tests PyTorch on Windows with an Intel GPU; "
        "this machine is linux, so nothing runs." in out
    )
    assert "passed" not in out
    assert not (tmp_path / "w" / "state.json").exists()


def test_a_run_where_every_step_is_skipped_exits_2(tmp_path, monkeypatch):
    ctx_out = capture_output(monkeypatch)
    steps = [harness.Step("win", "Windows only", lambda ctx, log: harness.Outcome(harness.OK), harness._windows_only)]
    assert harness.main(["--work", str(tmp_path / "w")], probes=FakeProbes(), steps=steps) == 2
    assert ctx_out[-1] == "Nothing ran: every step was skipped (reasons above)."


def test_default_run_fails_when_a_portable_step_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "step_doctor_portable", lambda ctx, log: harness.Outcome(harness.WARN, "2 warnings"))
    monkeypatch.setattr(
        harness,
        "step_portable_build",
        lambda ctx, log: (_ for _ in ()).throw(harness.StepFailed("cmake configure failed")),
    )
    for name in ("step_kernels", "step_patchset_selfcheck"):
        monkeypatch.setattr(harness, name, lambda ctx, log: harness.Outcome(harness.OK))
    rc = harness.main(["--work", str(tmp_path / "w")], probes=FakeProbes())
    assert rc == 1
    state = json.loads((tmp_path / "w" / "state.json").read_text())
    assert state["steps"]["portable-build"]["status"] == "failed"
    assert "portable-test" not in state["steps"]  # skipped: needs portable-build


def test_summary_table_has_every_step():
    results = [
        harness.StepResult("doctor", "warn", 4.2, "2 warnings", "logs/doctor.log"),
        harness.StepResult("build", "skipped", 0.0, "needs Windows", ""),
    ]
    table = harness.summary_table(results)
    assert table.splitlines()[0].split() == ["step", "status", "time", "detail", "/", "log"]
    assert "doctor" in table and "4.2s" in table and "logs/doctor.log" in table and "needs Windows" in table


def test_vcvarsall_found_through_vswhere():
    vswhere = r"C:\Program Files (x86)\Microsoft Visual Studio\Installer\vswhere.exe"
    vs = r"C:\Program Files\Microsoft Visual Studio\2022\Community"
    probes = FakeProbes(
        platform="win32",
        files={vswhere, vs + r"\VC\Auxiliary\Build\vcvarsall.bat"},
        responses={"vswhere": (0, vs + "\r\n", "")},
    )
    assert harness.find_vcvarsall(probes) == vs + r"\VC\Auxiliary\Build\vcvarsall.bat"
    assert "[17.0,19.0)" in probes.commands[0]  # VS 2022 (17.x) and VS 2026 (18.x)
    assert harness.find_vcvarsall(FakeProbes(platform="win32")) is None


def test_build_env_is_captured_from_cmd_set_output():
    output = (
        "banner from vcvars\r\nXSL-ENV-BEGIN \r\nPath=C:\\VS\\bin;C:\\oneAPI\\bin\r\n"
        "INCLUDE=C:\\VS\\include\r\nUSERPROFILE=C:\\Users\\Jürgen\r\n"
    )
    probes = FakeProbes(platform="win32", responses={"XSL-ENV-BEGIN": (0, output, "")})
    env = harness.capture_build_env(
        probes, [(r"C:\VS\vcvarsall.bat", "x64"), (r"C:\oneAPI\compiler\latest\env\vars.bat", "")]
    )
    assert env["INCLUDE"] == "C:\\VS\\include" and env["USERPROFILE"] == "C:\\Users\\Jürgen"
    assert "banner from vcvars" not in env
    command = "".join(probes.commands[0])  # a verbatim string, not an argv list
    assert command == (
        'cmd /d /u /s /c "call "C:\\VS\\vcvarsall.bat" x64 && call "C:\\oneAPI\\compiler\\latest\\env\\vars.bat"'
        ' && echo XSL-ENV-BEGIN && set"'
    )
    with pytest.raises(harness.StepFailed, match="capturing the build environment failed"):
        harness.capture_build_env(FakeProbes(platform="win32"), [(r"C:\x.bat", "")])


def test_build_environment_sets_xpu_flags(tmp_path):
    ctx = make_ctx(tmp_path, probes=FakeProbes(platform="win32"))
    ctx.env = {"Path": r"C:\VS"}
    ctx.arch = "bmg,lnl-m"
    env = harness.build_environment(ctx)
    assert env["USE_XPU"] == "1" and env["TORCH_XPU_ARCH_LIST"] == "bmg,lnl-m" and env["CMAKE_GENERATOR"] == "Ninja"


def test_windows_prerequisites_report_each_missing_piece():
    probes = FakeProbes(
        platform="win32",
        env={"ONEAPI_ROOT": r"C:\oneAPI"},
        files={r"C:\oneAPI\compiler\latest\env\vars.bat"},
        responses={
            "--version": (0, "git version 2.45", ""),
            "core.longpaths": (1, "", ""),
            "version_info": (0, "3.12 64\n", ""),
        },
    )
    findings = {f.check: f for f in harness.windows_prerequisites(probes)}
    assert findings["visual-studio"].severity == doctor.ERROR
    assert "Visual Studio 2022 or 2026" in findings["visual-studio"].title
    assert findings["oneapi-compiler"].severity == doctor.OK
    assert findings["oneapi-ocloc"].severity == doctor.ERROR and "ocloc" in findings["oneapi-ocloc"].title
    assert (
        findings["git-longpaths"].severity == doctor.ERROR
        and findings["git-longpaths"].fix == "git config --global core.longpaths true"
    )
    assert findings["python"].severity == doctor.OK


def test_a_32_bit_python_is_an_error_whose_fix_names_the_python_option():
    probes = FakeProbes(platform="win32", responses={"version_info": (0, "3.12 32\n", "")})
    finding = next(f for f in harness.windows_prerequisites(probes) if f.check == "python")
    assert finding.severity == doctor.ERROR and "32-bit" in finding.title and "--python" in finding.fix


def test_triton_pin_is_read_from_the_checkout(tmp_path):
    (tmp_path / ".ci/docker/ci_commit_pins").mkdir(parents=True)
    (tmp_path / ".ci/docker/ci_commit_pins/triton-xpu.txt").write_text("0123456789abcdef0123\n")
    what, args = harness.triton_requirement(tmp_path)
    assert args == [f"git+{harness.TRITON_XPU_URL}@0123456789abcdef0123#subdirectory=python"]
    (tmp_path / ".ci/docker/triton_xpu_version.txt").write_text("3.5.0\n")
    what, args = harness.triton_requirement(tmp_path)
    assert args[0] == "pytorch-triton-xpu==3.5.0" and "--index-url" in args and "3.5.0" in what
    with pytest.raises(harness.StepFailed, match="PyTorch checkout"):
        harness.triton_requirement(tmp_path / "nothing")


def test_apply_step_patches_the_checkout_once(tmp_path):
    ctx = make_ctx(tmp_path)
    ctx.src = make_checkout(tmp_path)
    log = harness.StepLog(tmp_path / "apply.log", lambda line: None)
    assert harness.step_apply(ctx, log).status == harness.OK
    assert "Nothing to do" in harness.step_apply(ctx, log).detail
    log.close()
    assert "#ifndef _WIN32" not in (ctx.src / "torch/csrc/Module.cpp").read_text()


def git_checkout(tmp_path):
    """The fixture tree as a committed git repository (the state after `checkout`)."""
    import subprocess

    src = make_checkout(tmp_path)
    git = ["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "v2.13.0"]):
        subprocess.run(git + argv, check=True, capture_output=True)
    return src


def test_apply_keeps_local_edits_unless_forced(tmp_path):
    ctx = make_ctx(tmp_path)
    ctx.src = git_checkout(tmp_path)
    module = ctx.src / "torch/csrc/Module.cpp"
    edited = module.read_text().replace("!defined(_WIN32)", "!defined(_MSC_VER)")  # the patch no longer fits
    module.write_text(edited)
    (ctx.src / "torch/my_notes.py").write_text("# mine\n")
    (ctx.src / "build").mkdir()
    (ctx.src / "build/out.txt").write_text("not touched by a reset\n")
    log = harness.StepLog(tmp_path / "apply.log", lambda line: None)
    with pytest.raises(harness.StepFailed) as failure:
        harness.step_apply(ctx, log)
    message = str(failure.value)
    assert "\n" not in message
    assert "M torch/csrc/Module.cpp" in message and "?? torch/my_notes.py" in message and "build/out.txt" not in message
    assert "commit or stash them, or pass --force" in message
    assert module.read_text() == edited and (ctx.src / "torch/my_notes.py").is_file()

    ctx.force = True
    assert harness.step_apply(ctx, log).status == harness.OK
    log.close()
    assert "#ifndef _WIN32" not in module.read_text() and "_MSC_VER" not in module.read_text()
    assert not (ctx.src / "torch/my_notes.py").exists() and (ctx.src / "build/out.txt").is_file()
    assert "--force: resetting the checkout" in (tmp_path / "apply.log").read_text()


def test_apply_on_a_clean_drifted_checkout_reports_drift_without_reset(tmp_path, monkeypatch):
    import subprocess

    ctx = make_ctx(tmp_path)
    ctx.src = git_checkout(tmp_path)
    module = ctx.src / "torch/csrc/Module.cpp"
    module.write_text(module.read_text().replace("!defined(_WIN32)", "!defined(_MSC_VER)"))
    subprocess.run(
        [
            "git",
            "-C",
            str(ctx.src),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qam",
            "upstream",
        ],
        check=True,
    )
    runner, log = recorded_step_io(monkeypatch, tmp_path, "apply")
    with pytest.raises(harness.StepFailed, match="drift report in the log"):
        harness.step_apply(ctx, log)
    log.close()
    assert runner.calls == []  # nothing to discard: no checkout/clean


def test_verification_is_the_packages_verify_command_from_this_checkout(tmp_path):
    ctx = make_ctx(tmp_path)
    argv, env = harness.verify_command(ctx, {"Path": r"C:\VS", "PYTHONPATH": "elsewhere"})
    assert argv == [ctx.python, "-m", "xpu_static_launcher", "verify", "--no-install"]
    assert env["PYTHONPATH"].split(harness.os.pathsep) == [str(harness.REPO / "python"), "elsewhere"]
    assert env["Path"] == r"C:\VS"


class RecordingRunner:
    def __init__(self, fail_on=()):
        self.calls = []
        self.fail_on = fail_on

    def __call__(self, argv, log, cwd=None, env=None, timeout=None):
        self.calls.append((list(argv), cwd, dict(env) if env is not None else None))
        log.write("$ " + " ".join(map(str, argv)))
        return 1 if any(marker in " ".join(map(str, argv)) for marker in self.fail_on) else 0


def recorded_step_io(monkeypatch, tmp_path, name, runner=None):
    """A RecordingRunner in place of run_logged, and a step log."""
    runner = runner or RecordingRunner()
    monkeypatch.setattr(harness, "run_logged", runner)
    return runner, harness.StepLog(tmp_path / f"{name}.log", lambda line: None)


NO_TORCH = (0, 'XSL-TORCH {"version": null, "origin": null}\n', "")


# Where the launcher's and PyTorch's builds find level_zero\ze_api.h (vcpkg).
VCPKG_ENV = {"PATH": "", "VCPKG_ROOT": r"C:\vcpkg"}
VCPKG_HEADER = r"C:\vcpkg\installed\x64-windows\include\level_zero\ze_api.h"


def windows_ctx(tmp_path):
    ctx = make_ctx(
        tmp_path,
        probes=FakeProbes(platform="win32", env=VCPKG_ENV, files={VCPKG_HEADER}, responses={"XSL-TORCH": NO_TORCH}),
    )
    ctx.env = {"Path": r"C:\oneAPI\compiler\bin;C:\oneAPI\ocloc\bin"}
    ctx.src.mkdir(parents=True)
    (ctx.src / ".ci/docker").mkdir(parents=True)
    (ctx.src / ".ci/docker/triton_xpu_version.txt").write_text("3.5.0\n")
    return ctx


def test_build_step_runs_pip_editable_with_xpu_env(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    runner, log = recorded_step_io(monkeypatch, tmp_path, "build")
    assert harness.step_build(ctx, log).status == harness.OK
    argv, cwd, env = runner.calls[-1]
    assert argv[1:] == ["-m", "pip", "install", "--no-build-isolation", "-v", "-e", "."] and cwd == ctx.src
    assert env["USE_XPU"] == "1" and env["TORCH_XPU_ARCH_LIST"] == "bmg" and env["Path"].startswith(r"C:\oneAPI")
    # The SDK folder whose include\ holds the headers (c10/xpu's find_path, with the PR stack).
    assert env["LEVEL_ZERO_V1_SDK_PATH"] == r"C:\vcpkg\installed\x64-windows"


def test_the_pytorch_build_gets_the_level_zero_sdk_or_one_error_naming_the_variable(tmp_path, monkeypatch):
    probes = FakeProbes(
        platform="win32", env={"PATH": "", "XSL_LEVEL_ZERO_INCLUDE_DIR": r"D:\ze"}, files={r"D:\ze\level_zero\ze_api.h"}
    )
    assert harness.level_zero_sdk_path(probes, {}) == r"D:\ze"  # not an include\ folder: itself
    assert harness.level_zero_sdk_path(probes, {"Level_Zero_V1_SDK_Path": r"E:\sdk"}) == r"E:\sdk"
    ctx = windows_ctx(tmp_path)
    ctx.probes = FakeProbes(platform="win32", responses={"XSL-TORCH": NO_TORCH})
    runner, log = recorded_step_io(monkeypatch, tmp_path, "build")
    with pytest.raises(harness.StepFailed, match=r"Level Zero headers .* set LEVEL_ZERO_V1_SDK_PATH"):
        harness.step_build(ctx, log)
    assert not runner.calls  # nothing was built


def test_test_step_installs_pinned_triton_runs_both_tests_and_verifies(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    runner, log = recorded_step_io(monkeypatch, tmp_path, "test")
    outcome = harness.step_test(ctx, log)
    assert outcome.status == harness.OK
    commands = [" ".join(map(str, argv)) for argv, _, _ in runner.calls]
    assert any("pytorch-triton-xpu==3.5.0 --index-url https://download.pytorch.org/whl/xpu" in c for c in commands)
    assert any("test/inductor/test_static_triton_launcher.py" in c and "--junitxml=" in c for c in commands)
    assert any("test_codecache.py -k test_autotune_cache_warm_start" in c for c in commands)
    assert commands[-1].endswith("-m xpu_static_launcher verify --no-install")
    # The oneAPI runtime must be on PATH for the tests too.
    assert all(env and env.get("Path", "").startswith(r"C:\oneAPI") for _, _, env in runner.calls)


def test_test_step_names_what_failed(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    monkeypatch.setattr(harness, "run_logged", RecordingRunner(fail_on=("test_codecache", "verify --no-install")))
    log = harness.StepLog(tmp_path / "test.log", lambda line: None)
    with pytest.raises(harness.StepFailed, match="autotune_cache_warm_start, static-launch verification"):
        harness.step_test(ctx, log)


def test_checkout_clones_shallow_with_submodules_and_long_paths(tmp_path, monkeypatch):
    ctx = make_ctx(tmp_path)
    runner, log = recorded_step_io(monkeypatch, tmp_path, "checkout")
    harness.step_checkout(ctx, log)
    clone = " ".join(runner.calls[0][0])
    assert clone.startswith("git -c core.longpaths=true clone --depth 1 --branch v2.13.0 --recurse-submodules")
    assert "submodule update --init --recursive" in " ".join(runner.calls[1][0])


ONEAPI_DEFAULT = r"C:\Program Files (x86)\Intel\oneAPI"


@pytest.mark.parametrize(
    "env, header, source",
    [
        (
            {"XSL_LEVEL_ZERO_INCLUDE_DIR": "D:\\ze\\inc\\"},
            r"D:\ze\inc\level_zero\ze_api.h",
            "XSL_LEVEL_ZERO_INCLUDE_DIR",
        ),
        (
            {"LEVEL_ZERO_SDK": r"D:\level-zero-sdk"},
            r"D:\level-zero-sdk\include\level_zero\ze_api.h",
            "the Level Zero SDK (LEVEL_ZERO_SDK)",
        ),
        (
            {"LEVEL_ZERO_V1_SDK_PATH": r"D:\l0"},
            r"D:\l0\include\level_zero\ze_api.h",
            "the Level Zero SDK (LEVEL_ZERO_V1_SDK_PATH)",
        ),
        ({}, ONEAPI_DEFAULT + r"\compiler\latest\include\level_zero\ze_api.h", "oneAPI (default folder)"),
        ({"ONEAPI_ROOT": "E:\\oneAPI\\"}, r"E:\oneAPI\latest\include\level_zero\ze_api.h", "oneAPI (ONEAPI_ROOT)"),
        (
            {"VCPKG_ROOT": r"C:\vcpkg"},
            r"C:\vcpkg\installed\x64-windows\include\level_zero\ze_api.h",
            "vcpkg level-zero (VCPKG_ROOT)",
        ),
    ],
)
def test_level_zero_headers_are_found_in_each_layout(env, header, source):
    found = harness.find_level_zero_headers(FakeProbes(platform="win32", env=env, files={header}))
    assert found.folder == header[: -len(r"\level_zero\ze_api.h")] and found.source == source
    assert found.tried[-1] == header


def test_explicit_level_zero_folder_wins_over_vcpkg():
    files = {r"D:\mine\level_zero\ze_api.h", r"C:\vcpkg\installed\x64-windows\include\level_zero\ze_api.h"}
    env = {"XSL_LEVEL_ZERO_INCLUDE_DIR": r"D:\mine", "VCPKG_ROOT": r"C:\vcpkg"}
    assert harness.find_level_zero_headers(FakeProbes(platform="win32", env=env, files=files)).folder == r"D:\mine"


def msvc_probes(env=None, headers=()):
    vswhere = r"C:\Program Files (x86)\Microsoft Visual Studio\Installer\vswhere.exe"
    vs = r"C:\VS\2022\BuildTools"
    captured = "XSL-ENV-BEGIN\r\nPath=C:\\VS\\bin\r\nINCLUDE=C:\\VS\\include\r\nUSERPROFILE=C:\\Users\\Jürgen\r\n"
    return FakeProbes(
        platform="win32",
        env=env or {"PATH": r"C:\Windows"},
        files={vswhere, vs + r"\VC\Auxiliary\Build\vcvarsall.bat", *headers},
        responses={"vswhere": (0, vs + "\r\n", ""), "XSL-ENV-BEGIN": (0, captured, "")},
    )


def test_windows_portable_build_uses_the_vs_environment_and_found_headers(tmp_path, monkeypatch):
    header = r"C:\vcpkg\installed\x64-windows\include\level_zero\ze_api.h"
    probes = msvc_probes(env={"PATH": r"C:\Windows", "VCPKG_ROOT": r"C:\vcpkg"}, headers={header})
    ctx = make_ctx(tmp_path, probes=probes)
    ctx.preset = "windows-msvc"
    printed = []
    ctx.out = printed.append
    runner, log = recorded_step_io(monkeypatch, tmp_path, "portable-build")
    assert harness.step_portable_build(ctx, log).status == harness.OK
    log.close()
    (configure, cwd, env), (build, _, build_env) = runner.calls
    assert configure == [
        "cmake",
        "--preset",
        "windows-msvc",
        r"-DXSL_LEVEL_ZERO_INCLUDE_DIR=C:\vcpkg\installed\x64-windows\include",
    ]
    assert build[:3] == ["cmake", "--build", "--preset"] and cwd == harness.REPO
    assert env == build_env and env["INCLUDE"] == r"C:\VS\include" and env["USERPROFILE"] == "C:\\Users\\Jürgen"
    assert (
        probes.commands[-1] == r'cmd /d /u /s /c "call "C:\VS\2022\BuildTools\VC\Auxiliary\Build\vcvarsall.bat" x64 '
        r'&& echo XSL-ENV-BEGIN && set"'
    )
    where = r"Level Zero headers: C:\vcpkg\installed\x64-windows\include (from vcpkg level-zero (VCPKG_ROOT))"
    assert any(where in line for line in printed) and where in (tmp_path / "portable-build.log").read_text()


def test_windows_portable_build_without_headers_names_what_to_install(tmp_path, monkeypatch):
    ctx = make_ctx(tmp_path, probes=msvc_probes())
    ctx.preset = "windows-msvc"
    runner, log = recorded_step_io(monkeypatch, tmp_path, "portable-build")
    with pytest.raises(harness.StepFailed) as failure:
        harness.step_portable_build(ctx, log)
    log.close()
    message = str(failure.value)
    assert r"python scripts\level_zero_sdk.py --dest C:\xsl\level-zero-sdk" in message
    assert r"LEVEL_ZERO_V1_SDK_PATH=C:\xsl\level-zero-sdk" in message and "vcpkg" not in message
    assert ONEAPI_DEFAULT + r"\compiler\latest\include\level_zero\ze_api.h" in message
    assert runner.calls == []


def test_windows_portable_build_without_vs_says_so(tmp_path):
    ctx = make_ctx(tmp_path, probes=FakeProbes(platform="win32"))
    with pytest.raises(harness.StepFailed, match="Visual Studio 2022 or 2026 with the x64 C\\+\\+ tools not found"):
        harness.msvc_environment(ctx)
    prompt = FakeProbes(platform="win32", env={"VCToolsInstallDir": r"C:\VS\VC\Tools\MSVC\14.40", "PATH": "x"})
    env, source = harness.msvc_environment(make_ctx(tmp_path, probes=prompt))
    assert source == "this VS developer prompt" and env["PATH"] == "x"


def test_linux_portable_build_keeps_the_inherited_environment(tmp_path, monkeypatch):
    ctx = make_ctx(tmp_path)
    runner, log = recorded_step_io(monkeypatch, tmp_path, "portable-build")
    harness.step_portable_build(ctx, log)
    log.close()
    assert runner.calls[0] == (["cmake", "--preset", "linux-gcc"], harness.REPO, None)


def test_harness_cmd_is_a_crlf_batch_file_that_explains_a_missing_python():
    cmd = (harness.REPO / "scripts" / "harness.cmd").read_bytes()
    assert cmd.count(b"\r\n") == cmd.count(b"\n")  # cmd.exe labels need CRLF
    wine_run = harness.REPO / "cmake" / "wine-run.sh"
    if not Path("/usr/lib/wine/wine64").exists() or not wine_run.exists():
        pytest.skip("wine not installed")
    import subprocess

    # No Windows Python inside the wine prefix: the batch file must say so.
    proc = subprocess.run(
        ["bash", str(wine_run), "cmd", "/c", r"scripts\harness.cmd", "--help"],
        cwd=harness.REPO,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no Python found" in proc.stdout + proc.stderr


# A stand-in python.exe: the bitness probe (-c) exits with XSL_FAKE_BITS
# (default 64); any other call prints which copy ran and its arguments.
FAKE_PYTHON_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
int main(int argc, char **argv) {
  char self[MAX_PATH];
  const char *bits = getenv("XSL_FAKE_BITS");
  int i;
  if (argc > 1 && strcmp(argv[1], "-c") == 0) return bits ? atoi(bits) : 64;
  GetModuleFileNameA(NULL, self, MAX_PATH);
  printf("FAKE-PYTHON %s", self);
  for (i = 1; i < argc; ++i) printf(" [%s]", argv[i]);
  printf("\n");
  return 0;
}
"""


@pytest.fixture(scope="module")
def wine_python_homes(tmp_path_factory):
    """venv, conda and PATH folders, each with the stand-in python.exe."""
    import shutil
    import subprocess

    compiler = shutil.which("x86_64-w64-mingw32-gcc")
    if compiler is None or not Path("/usr/lib/wine/wine64").exists():
        pytest.skip("needs mingw-w64 and wine")
    root = tmp_path_factory.mktemp("pythons")
    (root / "fake.c").write_text(FAKE_PYTHON_C)
    exe = root / "python.exe"
    subprocess.run([compiler, "-O1", "-o", str(exe), str(root / "fake.c")], check=True)
    homes = {"venv": root / "venv", "conda": root / "conda", "path": root / "onpath"}
    targets = [homes["venv"] / "Scripts" / "python.exe", homes["conda"] / "python.exe", homes["path"] / "python.exe"]
    for target in targets:
        target.parent.mkdir(parents=True)
        shutil.copyfile(exe, target)
    return homes


def run_harness_cmd(homes, active, bits="64", args=("doctor",)):
    import os
    import subprocess

    def win(path):
        return "Z:" + str(path).replace("/", "\\")

    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "WINEPATH")}
    env["WINEPATH"] = win(homes["path"])
    env["XSL_FAKE_BITS"] = bits
    if "venv" in active:
        env["VIRTUAL_ENV"] = win(homes["venv"])
    if "conda" in active:
        env["CONDA_PREFIX"] = win(homes["conda"])
    proc = subprocess.run(
        ["bash", str(harness.REPO / "cmake" / "wine-run.sh"), "cmd", "/c", r"scripts\harness.cmd", *args],
        cwd=harness.REPO,
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        timeout=180,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "active, chosen",
    [(("venv", "conda"), r"venv\Scripts\python.exe"), (("conda",), r"conda\python.exe"), ((), r"onpath\python.exe")],
)
def test_harness_cmd_prefers_the_active_environment(wine_python_homes, active, chosen):
    rc, out = run_harness_cmd(wine_python_homes, active)
    assert rc == 0, out
    line = next(line for line in out.splitlines() if line.startswith("FAKE-PYTHON"))
    assert line.split(" [")[0].lower().endswith(chosen.lower())
    assert line.endswith(r"harness.py] [doctor]")


def test_harness_cmd_refuses_a_32_bit_python_unless_python_is_named(wine_python_homes):
    rc, out = run_harness_cmd(wine_python_homes, ("venv",), bits="32")
    assert rc == 2 and "FAKE-PYTHON" not in out
    assert "is a 32-bit Python" in out and "--python" in out and r"venv\Scripts\python.exe" in out
    rc, out = run_harness_cmd(
        wine_python_homes, ("venv",), bits="32", args=("build", "--python", r"C:\py64\python.exe")
    )
    assert rc == 0 and r"[--python] [C:\py64\python.exe]" in out


def test_harness_ps1_uses_the_same_order_and_checks_64_bit():
    text = (harness.REPO / "scripts" / "harness.ps1").read_text()
    order = [
        text.index(needle)
        for needle in ("$env:VIRTUAL_ENV", "$env:CONDA_PREFIX", "Exe = 'python'", "Exe = 'py'; Pre = @('-3')")
    ]
    assert order == sorted(order)
    assert "struct.calcsize('P')" in text and "32-bit Python" in text and "--python" in text
    assert "exit 2" in text and "Write-Error" not in text  # Write-Error under 'Stop' would throw before exit 2


def test_apply_step_with_the_project_launcher_installs_it_instead_of_upstreams(tmp_path):
    ctx = make_ctx(tmp_path)
    ctx.src = make_checkout(tmp_path, "v2.15.0")
    ctx.launcher = "project"
    log = harness.StepLog(tmp_path / "apply.log", lambda line: None)
    outcome = harness.step_apply(ctx, log)
    log.close()
    assert outcome.status == harness.OK and outcome.detail.startswith("v2.15.0, project launcher:")
    installed = (ctx.src / "torch/csrc/inductor/static_launcher/xpu.cpp").read_text()
    assert "<torch/csrc/inductor/static_launcher/xsl/" in installed
    assert "series v2.15.0 (base v2.15.0), project launcher" in (tmp_path / "apply.log").read_text()


def test_apply_step_switches_launchers_without_force(tmp_path):
    ctx = make_ctx(tmp_path)
    ctx.src = make_checkout(tmp_path, "v2.15.0")
    launcher_file = ctx.src / "torch/csrc/inductor/static_launcher/xpu.cpp"
    log = harness.StepLog(tmp_path / "apply.log", lambda line: None)
    assert harness.step_apply(ctx, log).status == harness.OK
    upstream_text = launcher_file.read_text()
    ctx.launcher = "project"
    assert harness.step_apply(ctx, log).status == harness.OK
    assert "<torch/csrc/inductor/static_launcher/xsl/" in launcher_file.read_text()
    ctx.launcher = "upstream"
    assert harness.step_apply(ctx, log).status == harness.OK
    log.close()
    assert launcher_file.read_text() == upstream_text
    assert not (ctx.src / "torch/csrc/inductor/static_launcher/xsl").exists()
    assert "with the project launcher: reversing it first" in (tmp_path / "apply.log").read_text()


def test_apply_step_without_a_series_for_the_version_says_how_to_choose(tmp_path):
    ctx = make_ctx(tmp_path)
    ctx.src = make_checkout(tmp_path, "v2.15.0")
    (ctx.src / "version.txt").write_text("2.14.1\n")
    log = harness.StepLog(tmp_path / "apply.log", lambda line: None)
    with pytest.raises(harness.StepFailed, match=r"no series for PyTorch 2\.14\.1.*pass --series"):
        harness.step_apply(ctx, log)
    ctx.series = "v2.15.0"
    assert harness.step_apply(ctx, log).status == harness.OK
    log.close()


def test_launcher_option_defaults_to_the_upstream_stack_and_changes_the_fingerprint(tmp_path):
    args = harness.build_parser().parse_args(["apply"])
    assert args.launcher == "upstream" and args.series is None and args.ref == "v2.15.0"
    assert harness.build_parser().parse_args(["all", "--launcher", "project"]).launcher == "project"
    ctx = make_ctx(tmp_path)
    upstream = harness._patch_digest(ctx)
    ctx.launcher = "project"
    assert harness._patch_digest(ctx) != upstream


@pytest.mark.parametrize(
    "ref, version, ok",
    [
        ("v2.15.0", "3.14", True),
        ("v2.15.0", "3.15", True),
        ("v2.15.0", "3.10", False),
        ("v2.15.0", "3.16", False),
        ("v2.13.0", "3.10", True),
        ("v2.13.0", "3.15", False),
        ("0123abcd", "3.11", True),
    ],
)
def test_python_versions_follow_the_torch_release(ref, version, ok):
    probes = FakeProbes(platform="win32", responses={"version_info": (0, f"{version} 64\n", "")})
    finding = next(f for f in harness.windows_prerequisites(probes, ref) if f.check == "python")
    assert (finding.severity == doctor.OK) is ok
    if not ok:
        first, last = harness.python_range(ref)
        assert f"64-bit Python {first}-{last} (the versions torch {ref} is built for" in finding.fix


def test_the_default_refs_python_range_is_known():
    assert harness.python_range(harness.DEFAULT_REF) == harness.TORCH_PYTHON_RANGE["2.15"] == ("3.11", "3.15")


def torch_in(python_probe_origin, version="2.15.0+xpu"):
    line = json.dumps({"version": version, "origin": python_probe_origin})
    return (0, f"XSL-TORCH {line}\n", "")


def test_the_build_refuses_to_replace_a_torch_it_did_not_build(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    ctx.probes.responses = {"XSL-TORCH": torch_in(r"C:\venv\Lib\site-packages\torch\__init__.py")}
    runner, log = recorded_step_io(monkeypatch, tmp_path, "build")
    with pytest.raises(harness.StepFailed, match="already has torch 2.15.0\\+xpu .*the build replaces it") as err:
        harness.step_build(ctx, log)
    assert "fresh virtual environment" in str(err.value) and "--force" in str(err.value)
    assert runner.calls == []
    forced = harness.fresh_environment_finding(dataclasses.replace(ctx, force=True))
    assert forced.severity == doctor.WARNING and forced.title.endswith("(--force)")


def test_a_torch_built_from_the_checkout_may_be_rebuilt(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    ctx.probes.responses = {"XSL-TORCH": torch_in(str(ctx.src / "torch" / "__init__.py"), "2.15.0a0+git")}
    runner, log = recorded_step_io(monkeypatch, tmp_path, "build")
    assert harness.step_build(ctx, log).status == harness.OK
    finding = harness.fresh_environment_finding(ctx)
    assert finding.severity == doctor.OK and "built here from" in finding.title


def test_the_real_torch_probe_runs_without_importing_torch():
    ctx = make_ctx(Path("."), probes=doctor.Probes())
    found = harness.installed_torch(ctx)
    assert set(found) == {"version", "origin"}


@pytest.mark.parametrize(
    "cores, memory_gib, windows, jobs",
    [
        (16, 16, True, 4),
        (16, 15.7, True, 4),
        (16, 32, True, 8),
        (16, 128, True, 16),
        (8, None, True, 8),
        (16, 64, False, 2),
        (4, 2, True, 1),
    ],
)
def test_default_jobs_follow_memory_and_cores(cores, memory_gib, windows, jobs):
    memory = int(memory_gib * harness.GIB) if memory_gib else None
    assert harness.default_jobs(cores, memory, windows) == jobs


def test_activate_scripts_set_what_the_env_scripts_changed(tmp_path):
    base = {"Path": r"C:\Windows", "USERNAME": "me", "TEMP": r"C:\t"}
    captured = {
        "PATH": r"C:\VS\bin;C:\oneAPI\bin;C:\Windows",
        "USERNAME": "me",
        "TEMP": r"C:\t",
        "INCLUDE": r"C:\VS\include",
        "ODD": "100% it's Jürgen's",
    }
    cmd, ps1 = harness.write_activate_scripts(tmp_path, base, captured)
    cmd_bytes, ps1_bytes = cmd.read_bytes(), ps1.read_bytes()
    assert cmd_bytes.count(b"\r\n") == cmd_bytes.count(b"\n") and ps1_bytes.startswith(b"\xef\xbb\xbf")
    cmd_text = cmd_bytes.decode("utf-8")  # no "oem" codec off Windows: UTF-8 behind chcp 65001
    lines = cmd_text.splitlines()
    assert lines[0] == "@echo off" and lines[1] == "chcp 65001 >nul"
    assert 'set "INCLUDE=C:\\VS\\include"' in lines and 'set "PATH=C:\\VS\\bin;C:\\oneAPI\\bin;C:\\Windows"' in lines
    assert "set \"ODD=100%% it's Jürgen's\"" in lines
    assert not any("USERNAME" in line or "TEMP" in line for line in lines)
    ps1_lines = ps1_bytes.decode("utf-8-sig").splitlines()
    assert "Set-Item -LiteralPath 'Env:ODD' -Value '100% it''s Jürgen''s'" in ps1_lines
    assert not any("USERNAME" in line for line in ps1_lines)


def test_capturing_the_build_environment_writes_the_activate_scripts(tmp_path):
    vswhere = r"C:\Program Files (x86)\Microsoft Visual Studio\Installer\vswhere.exe"
    vs = r"C:\VS"
    oneapi = r"C:\Program Files (x86)\Intel\oneAPI"
    files = {
        vswhere,
        vs + r"\VC\Auxiliary\Build\vcvarsall.bat",
        oneapi + r"\compiler\latest\env\vars.bat",
        oneapi + r"\ocloc\latest\env\vars.bat",
    }
    output = "XSL-ENV-BEGIN\r\nPath=C:\\VS\\bin;C:\\Windows\r\n"
    probes = FakeProbes(
        platform="win32",
        env={"Path": r"C:\Windows"},
        files=files,
        responses={"vswhere": (0, vs + "\r\n", ""), "XSL-ENV-BEGIN": (0, output, "")},
    )
    ctx = make_ctx(tmp_path, probes=probes)
    harness.build_environment(ctx)
    assert 'set "Path=C:\\VS\\bin;C:\\Windows"' in (ctx.work / "activate.cmd").read_text(encoding="utf-8")


def test_the_final_doctor_runs_in_the_captured_environment(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    seen = []
    monkeypatch.setattr(harness, "all_findings", lambda c, building=True: seen.append((c.probes, building)) or [])
    log = harness.StepLog(tmp_path / "doctor.log", lambda line: None)
    assert harness.step_doctor_built(ctx, log).status == harness.OK
    [(probes, building)] = seen
    assert probes.env == ctx.env and probes.windows
    assert building is False  # torch is built now: a missing torch is an error again
    last = harness.plan_for("all")[-1]
    assert last.name == "doctor" and last.action is harness.step_doctor_built


def test_harness_ps1_probes_python_without_stop():
    text = (harness.REPO / "scripts" / "harness.ps1").read_text()
    probe = text.index("struct.calcsize('P')")
    assert text.rindex("$ErrorActionPreference = 'Continue'", 0, probe) > text.index("foreach ($candidate")
    assert "-ExecutionPolicy Bypass -File scripts\\harness.ps1" in text


# --------------------------------------------------------------------------
# The GPU's architecture: detected, or a given --arch compared with it

B580 = "Intel(R) Arc(TM) B580 Graphics"
GPU_QUERY_KEY = "Get-CimInstance"  # the PowerShell probe's command line contains it


def gpu_response(*gpus, cpu="Intel(R) Core(TM) i5-12400"):
    lines = [f"GPU {gpu}" for gpu in gpus] + ([f"CPU {cpu}"] if cpu else [])
    return (0, "\r\n".join(lines) + "\r\n", "")


@pytest.mark.parametrize(
    "gpu, cpu, arch",
    [
        (B580, "", "bmg"),
        ("Intel(R) Arc(TM) B570 Graphics", "", "bmg"),
        ("Intel(R) Arc(TM) Pro B60 Graphics", "", "bmg"),
        ("Intel(R) Arc(TM) A770 Graphics", "", "dg2"),
        ("Intel(R) Arc(TM) A370M Graphics", "", "dg2"),
        ("Intel(R) Arc(TM) Pro A60 Graphics", "", "dg2"),
        ("Intel(R) Arc(TM) 140V GPU (16GB)", "", "lnl-m"),
        ("Intel(R) Arc(TM) 130V GPU (8GB)", "", "lnl-m"),
        ("Intel(R) Arc(TM) 140T GPU (16GB)", "", "arl-h"),
        ("Intel(R) Data Center GPU Max 1550", "", "pvc"),
        ("Intel(R) Arc(TM) Graphics", "Intel(R) Core(TM) Ultra 7 155H", "mtl"),
        ("Intel(R) Graphics", "Intel(R) Core(TM) Ultra 5 125U", "mtl"),
        ("Intel(R) Arc(TM) Graphics", "Intel(R) Core(TM) Ultra 9 285H", "arl-h"),
        ("Intel(R) Graphics", "Intel(R) Core(TM) Ultra 7 265U", "arl-h"),
        ("Intel(R) Arc(TM) Graphics", "Intel(R) Core(TM) Ultra 7 258V", "lnl-m"),
        ("Intel(R) Graphics", "Intel(R) Core(TM) Ultra 9 285K", None),  # Arrow Lake-S: no --arch value here
        ("Intel(R) Graphics", "Intel(R) Core(TM) Ultra 9 275HX", None),
        ("Intel(R) Arc(TM) Graphics", "", None),  # integrated, processor unknown
        ("Intel(R) Iris(R) Xe Graphics", "11th Gen Intel(R) Core(TM) i7-1185G7", None),
        ("Intel(R) UHD Graphics 770", "Intel(R) Core(TM) i5-12400", None),
        ("NVIDIA GeForce RTX 4070", "", None),
        ("AMD Radeon(TM) Graphics", "AMD Ryzen 7 7840U", None),
    ],
)
def test_marketing_names_map_to_the_harness_arch_values(gpu, cpu, arch):
    assert harness.gpu_arch(gpu, cpu) == arch


def test_every_arch_value_is_detected_from_some_gpu():
    names = [
        (B580, ""),
        ("Intel(R) Arc(TM) A770 Graphics", ""),
        ("Intel(R) Graphics", "Intel(R) Core(TM) Ultra 5 125H"),
        ("Intel(R) Arc(TM) 140V GPU (16GB)", ""),
        ("Intel(R) Arc(TM) 140T GPU (16GB)", ""),
        ("Intel(R) Data Center GPU Max 1100", ""),
    ]
    assert {harness.gpu_arch(gpu, cpu) for gpu, cpu in names} == set(harness.ARCH_GPUS)


def test_gpu_names_come_from_powershell_then_wmic():
    probes = FakeProbes(
        platform="win32",
        responses={
            GPU_QUERY_KEY: gpu_response("Microsoft Basic Display Adapter", B580, cpu="Intel(R) Core(TM) Ultra 7 155H")
        },
    )
    report = harness.read_gpu_names(probes)
    assert report.gpus == ["Microsoft Basic Display Adapter", B580] and report.cpu == "Intel(R) Core(TM) Ultra 7 155H"
    assert report.source == "Get-CimInstance Win32_VideoController" and not report.error
    assert probes.commands[0][:4] == ["powershell", "-NoProfile", "-NonInteractive", "-Command"]
    assert "Win32_VideoController" in probes.commands[0][4] and "Win32_Processor" in probes.commands[0][4]
    # No PowerShell: wmic's table (as it prints it, header and padding included).
    wmic = FakeProbes(
        platform="win32",
        responses={
            "win32_VideoController get name": (0, "Name  \r\r\nIntel(R) Arc(TM) A770 Graphics  \r\r\n\r\r\n", ""),
            "cpu get name": (0, "Name\r\nIntel(R) Core(TM) i7-13700K\r\n", ""),
        },
    )
    report = harness.read_gpu_names(wmic)
    assert report.gpus == ["Intel(R) Arc(TM) A770 Graphics"] and report.cpu == "Intel(R) Core(TM) i7-13700K"
    assert report.source == "wmic path win32_VideoController get name"
    nothing = harness.read_gpu_names(FakeProbes(platform="win32"))
    assert nothing.gpus == [] and nothing.error == "PowerShell: not faked; wmic: not faked"


def report_of(*gpus, cpu=""):
    return harness.GpuReport(list(gpus), cpu, "test")


def test_without_arch_the_detected_one_is_used():
    choice = harness.choose_arch("", False, report_of("Microsoft Basic Display Adapter", B580))
    assert choice.arch == "bmg" and choice.finding.severity == doctor.OK
    assert choice.finding.title == f"--arch bmg, detected: '{B580}' is bmg"
    both = harness.choose_arch(
        "",
        False,
        report_of("Intel(R) Arc(TM) Graphics", "Intel(R) Arc(TM) A770 Graphics", cpu="Intel(R) Core(TM) Ultra 7 155H"),
    )
    assert both.arch == "mtl,dg2"
    assert both.finding.title == (
        "--arch mtl,dg2, detected: 'Intel(R) Arc(TM) Graphics' (with 'Intel(R) Core(TM) "
        "Ultra 7 155H') is mtl, 'Intel(R) Arc(TM) A770 Graphics' is dg2"
    )


def test_a_mismatched_arch_is_one_error_naming_both_and_the_fix():
    choice = harness.choose_arch("dg2", False, report_of(B580))
    assert choice.arch == "" and choice.finding.severity == doctor.ERROR
    assert choice.finding.title == f"--arch dg2 does not match this machine's GPU: '{B580}' is bmg"
    assert choice.finding.fix == (
        "Omit --arch (the harness then builds for bmg), or pass --arch bmg; to build for "
        "another machine on purpose, keep --arch dg2 and add --force-arch."
    )
    forced = harness.choose_arch("dg2", True, report_of(B580))
    assert forced.arch == "dg2" and forced.finding.severity == doctor.WARNING
    assert forced.finding.title.startswith("--arch dg2 --force-arch: building for another GPU than this machine's")
    assert "expect it to fail here" in forced.finding.detail
    # ocloc knows Lunar Lake as lnl-m: "lnl" is no match, and the fix names the right value.
    lunar = harness.choose_arch("lnl", False, report_of("Intel(R) Arc(TM) 140V GPU (16GB)"))
    assert lunar.finding.severity == doctor.ERROR and "pass --arch lnl-m" in lunar.finding.fix


@pytest.mark.parametrize("requested", ["bmg", "bmg-g21", "dg2,bmg", " bmg , lnl-m"])
def test_a_matching_arch_is_kept_as_given(requested):
    choice = harness.choose_arch(requested, False, report_of(B580))
    assert choice.arch == requested and choice.finding.severity == doctor.OK
    assert choice.finding.title == f"--arch {requested} matches this machine: '{B580}' is bmg"


@pytest.mark.parametrize(
    "report, why",
    [
        (report_of("NVIDIA GeForce RTX 4070"), "no Intel GPU found (video controllers: 'NVIDIA GeForce RTX 4070')"),
        (report_of(), "no Intel GPU found"),
        (report_of("Intel(R) Iris(R) Xe Graphics"), "no --arch value is known for 'Intel(R) Iris(R) Xe Graphics'"),
        (
            harness.GpuReport([], error="PowerShell: exit 1; wmic: exit 1"),
            "the GPU names could not be read (PowerShell: exit 1; wmic: exit 1)",
        ),
    ],
)
def test_no_known_gpu_needs_an_explicit_arch(report, why):
    refused = harness.choose_arch("", False, report)
    assert refused.arch == "" and refused.finding.severity == doctor.ERROR
    assert refused.finding.title == f"no --arch given and {why}"
    assert refused.finding.fix.startswith("Pass the architecture to build for: --arch <value>")
    assert all(f"--arch {value}" in refused.finding.fix for value in harness.ARCH_GPUS)
    given = harness.choose_arch("bmg", False, report)
    assert given.arch == "bmg" and given.finding.severity == doctor.WARNING
    assert given.finding.title == f"--arch bmg as given: {why}, so it is not compared with a GPU"


def test_arch_options_default_to_detection():
    args = harness.build_parser().parse_args(["all"])
    assert args.arch is None and args.force_arch is False
    args = harness.build_parser().parse_args(["build", "--arch", "dg2", "--force-arch"])
    assert args.arch == "dg2" and args.force_arch is True
    text = " ".join(harness.build_parser().format_help().split())
    assert "default: detected from this machine's Intel GPU" in text
    assert "--force-arch build for --arch even when it does not match this machine's GPU" in text


def arch_recorder():
    seen = []
    step = harness.Step(
        "record", "records the arch", lambda ctx, log: seen.append(ctx.arch) or harness.Outcome(harness.OK)
    )
    return seen, [step]


def test_main_refuses_a_mismatched_arch_before_any_step(tmp_path, monkeypatch):
    runner = RecordingRunner()
    monkeypatch.setattr(harness, "run_logged", runner)
    lines = capture_output(monkeypatch)
    probes = FakeProbes(platform="win32", responses={GPU_QUERY_KEY: gpu_response(B580)})
    rc = harness.main(["all", "--arch", "dg2", "--work", str(tmp_path / "w")], probes=probes)
    assert rc == harness.NOTHING_RAN
    assert f"harness.py all: --arch dg2 does not match this machine's GPU: '{B580}' is bmg" in lines
    assert any(line.startswith("  fix: Omit --arch (the harness then builds for bmg)") for line in lines)
    assert runner.calls == [] and not (tmp_path / "w" / "state.json").exists()
    assert all(GPU_QUERY_KEY in " ".join(command) for command in probes.commands)  # nothing but the GPU probe ran


@pytest.mark.parametrize(
    "argv, arch",
    [(["build"], "bmg"), (["test", "--arch", ""], "bmg"), (["all", "--arch", "dg2", "--force-arch"], "dg2")],
)
def test_main_builds_for_the_detected_or_forced_arch(tmp_path, monkeypatch, argv, arch):
    lines = capture_output(monkeypatch)
    seen, steps = arch_recorder()
    probes = FakeProbes(platform="win32", responses={GPU_QUERY_KEY: gpu_response(B580)})
    assert harness.main(argv + ["--work", str(tmp_path / "w")], probes=probes, steps=steps) == 0
    assert seen == [arch]
    assert any(line.startswith(f"GPU architecture: --arch {arch}") for line in lines)


def test_main_without_a_gpu_asks_for_arch(tmp_path, monkeypatch):
    lines = capture_output(monkeypatch)
    seen, steps = arch_recorder()
    probes = FakeProbes(platform="win32", responses={GPU_QUERY_KEY: gpu_response("Microsoft Basic Display Adapter")})
    assert harness.main(["build", "--work", str(tmp_path / "w")], probes=probes, steps=steps) == harness.NOTHING_RAN
    assert seen == []
    assert (
        "harness.py build: no --arch given and no Intel GPU found (video controllers: "
        "'Microsoft Basic Display Adapter')"
    ) in lines
    assert harness.main(["build", "--arch", "bmg", "--work", str(tmp_path / "w")], probes=probes, steps=steps) == 0
    assert seen == ["bmg"]


def test_the_build_needs_an_arch(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    ctx.arch = ""
    runner, log = recorded_step_io(monkeypatch, tmp_path, "build")
    with pytest.raises(harness.StepFailed, match="no architecture to build for: pass --arch"):
        harness.step_build(ctx, log)
    assert runner.calls == []


# --------------------------------------------------------------------------
# Every prerequisite before the clone, with its fix on the console

VSWHERE = r"C:\Program Files (x86)\Microsoft Visual Studio\Installer\vswhere.exe"
ONEAPI = r"C:\Program Files (x86)\Intel\oneAPI"
READY_FILES = {
    VSWHERE,
    r"C:\VS\VC\Auxiliary\Build\vcvarsall.bat",
    ONEAPI + r"\compiler\latest\env\vars.bat",
    ONEAPI + r"\ocloc\latest\env\vars.bat",
    VCPKG_HEADER,
}


def ready_probes(files=READY_FILES, capture=(0, "XSL-ENV-BEGIN\r\nPath=C:\\VS\\bin;C:\\oneAPI\\bin\r\n", "")):
    return FakeProbes(
        platform="win32",
        env=dict(VCPKG_ENV, PATH=r"C:\Windows"),
        files=set(files),
        responses={
            GPU_QUERY_KEY: gpu_response(B580),
            "vswhere": (0, "C:\\VS\r\n", ""),
            "XSL-ENV-BEGIN": capture,
            "XSL-TORCH": NO_TORCH,
            "--version": (0, "git version 2.45", ""),
            "core.longpaths": (0, "true\n", ""),
            "version_info": (0, "3.12 64\n", ""),
        },
    )


def prerequisite_findings(ctx, monkeypatch):
    seen = []
    original = harness._print_findings
    monkeypatch.setattr(
        harness, "_print_findings", lambda c, findings, log: seen.extend(findings) or original(c, findings, log)
    )
    log = harness.StepLog(ctx.work / "prerequisites.log", ctx.out)
    outcome = harness.step_prerequisites(ctx, log)
    log.close()
    return outcome, {f.check: f for f in seen}


def test_prerequisites_check_the_arch_the_environment_and_the_level_zero_headers(tmp_path, monkeypatch):
    ctx = make_ctx(tmp_path, probes=ready_probes())
    ctx.arch = ""
    _, found = prerequisite_findings(ctx, monkeypatch)
    assert found["gpu-arch"].severity == doctor.OK and found["gpu-arch"].title.startswith("--arch bmg, detected")
    assert found["build-environment"].severity == doctor.OK and ctx.env is not None
    assert (ctx.work / "activate.cmd").is_file()  # the capture ran before the clone
    assert (
        found["level-zero-headers"].severity == doctor.OK
        and r"C:\vcpkg\installed\x64-windows\include" in found["level-zero-headers"].title
    )
    assert found["fresh-environment"].severity == doctor.OK and found["visual-studio"].severity == doctor.OK


def test_prerequisites_report_missing_headers_and_a_failing_env_chain(tmp_path, monkeypatch):
    ctx = make_ctx(
        tmp_path,
        probes=ready_probes(files=READY_FILES - {VCPKG_HEADER}, capture=(1, "The input line is too long.\r\n", "")),
    )
    printed = []
    ctx.out = printed.append
    outcome, found = prerequisite_findings(ctx, monkeypatch)
    assert outcome.status == harness.FAILED
    headers = found["level-zero-headers"]
    assert headers.severity == doctor.ERROR and "set LEVEL_ZERO_V1_SDK_PATH" in headers.fix
    assert VCPKG_HEADER in headers.detail
    chain = found["build-environment"]
    assert chain.severity == doctor.ERROR and "The input line is too long" in chain.fix
    # The fixes are printed on the console, not only in the log.
    assert f"      error: {headers.title}" in printed and f"        fix: {headers.fix}" in printed
    assert f"        fix: {chain.fix}" in printed


def test_a_failed_prerequisite_stops_all_before_the_clone(tmp_path, monkeypatch):
    runner = RecordingRunner()
    monkeypatch.setattr(harness, "run_logged", runner)
    lines = capture_output(monkeypatch)
    probes = ready_probes(files=READY_FILES - {VCPKG_HEADER})
    rc = harness.main(["all", "--work", str(tmp_path / "w"), "--src", str(tmp_path / "pt")], probes=probes)
    assert rc == 1
    assert runner.calls == []  # no git clone, no build
    assert any(line.startswith("[2/6] checkout       skipped: 'prerequisites' failed") for line in lines)
    assert any(line.startswith("        fix: Run 'python scripts\\level_zero_sdk.py") for line in lines)
    assert lines.index("GPU architecture: --arch bmg, detected: " + f"'{B580}' is bmg") < next(
        i for i, line in enumerate(lines) if line.startswith("[1/6] prerequisites")
    )


def test_the_harness_doctor_shows_the_arch_and_expects_no_torch_before_a_build(tmp_path):
    probes = ready_probes()
    no_torch = {"torch_import_error": "ModuleNotFoundError: No module named 'torch'"}
    probes.responses["XSL-DOCTOR"] = (0, "XSL-DOCTOR " + json.dumps(no_torch) + "\n", "")
    findings = harness.all_findings(make_ctx(tmp_path, probes=probes))
    checks = [f.check for f in findings]
    assert checks.index("gpu-arch") < checks.index("torch")
    [torch] = [f for f in findings if f.check == "torch"]
    assert torch.severity == doctor.INFO and "the harness's build step installs" in torch.title


# --------------------------------------------------------------------------
# Progress: numbered step lines with what to expect, a heartbeat while a command runs


@pytest.mark.parametrize(
    "seconds, text", [(0, "0 s"), (59.9, "59 s"), (65, "1 min 05 s"), (3599, "59 min 59 s"), (7500, "2 h 05 min")]
)
def test_elapsed_text(seconds, text):
    assert harness.elapsed_text(seconds) == text


def test_step_lines_say_what_to_expect_and_how_long_it_took_last_time(tmp_path):
    printed = []
    ctx = make_ctx(tmp_path)
    ctx.out = printed.append
    step = dataclasses.replace(counting_step("build", []), hint=lambda c: f"TORCH_XPU_ARCH_LIST={c.arch}; expect hours")
    harness.run_steps(ctx, [step, counting_step("test", [])])
    assert printed[0].startswith("[1/2] build          title build - TORCH_XPU_ARCH_LIST=bmg; expect hours  (log: ")
    assert printed[2].startswith("[2/2] test           title test  (log: ")
    state = json.loads((ctx.work / "state.json").read_text())
    state["steps"]["build"]["seconds"] = 7500
    (ctx.work / "state.json").write_text(json.dumps(state))
    printed.clear()
    harness.run_steps(dataclasses.replace(ctx, force=True), [step])
    assert printed[0].startswith(
        "[1/1] build          title build - TORCH_XPU_ARCH_LIST=bmg; expect hours; last run took 2 h 05 min  (log: "
    )


def test_the_long_windows_steps_say_what_to_expect(tmp_path):
    ctx = make_ctx(tmp_path)
    hints = {step.name: step.hint(ctx) for step in harness.windows_steps()}
    assert hints["build"] == "TORCH_XPU_ARCH_LIST=bmg, 2 jobs; the long step: expect hours"
    assert hints["checkout"] == "a long download: PyTorch v2.13.0 and all its submodules"
    assert hints["prerequisites"] == "all checked before the clone"


def test_a_running_command_prints_a_heartbeat_with_its_step_and_last_line(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "HEARTBEAT_SECONDS", 0.1)
    printed = []
    log = harness.StepLog(tmp_path / "build.log", printed.append, "[4/6] build")
    script = "import time; print('compiling aten/src/ATen/native/xpu/Foo.cpp', flush=True); time.sleep(2.5)"
    assert harness.run_logged([sys.executable, "-c", script], log) == 0
    log.close()
    beats = [line for line in printed if line.startswith("      ... [4/6] build: ")]
    assert beats, printed
    assert beats[-1].endswith(" so far; last output: compiling aten/src/ATen/native/xpu/Foo.cpp")
    assert harness.heartbeat_line("", 5, "") == "      ... running: 5 s so far; last output: (no output yet)"
