"""scripts/harness.py: resumable steps, logs, the default run's skip list, Windows plumbing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
import xml.etree.ElementTree as ET

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
        rc = harness.run_logged([sys.executable, "-c", "print('out line'); import sys; print('err line', file=sys.stderr)"], log)
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
    for name in ("step_portable_build", "step_portable_test", "step_kernels", "step_patchset_selfcheck", "step_doctor_portable"):
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
    assert f"harness.py {command}: builds and tests PyTorch on Windows with an Intel GPU; this machine is linux, so nothing runs." in out
    assert "passed" not in out
    assert not (tmp_path / "w" / "state.json").exists()


def test_a_run_where_every_step_is_skipped_exits_2(tmp_path, monkeypatch):
    ctx_out = capture_output(monkeypatch)
    steps = [harness.Step("win", "Windows only", lambda ctx, log: harness.Outcome(harness.OK), harness._windows_only)]
    assert harness.main(["--work", str(tmp_path / "w")], probes=FakeProbes(), steps=steps) == 2
    assert ctx_out[-1] == "Nothing ran: every step was skipped (reasons above)."


def test_default_run_fails_when_a_portable_step_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "step_doctor_portable", lambda ctx, log: harness.Outcome(harness.WARN, "2 warnings"))
    monkeypatch.setattr(harness, "step_portable_build", lambda ctx, log: (_ for _ in ()).throw(harness.StepFailed("cmake configure failed")))
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
    assert "[17.0,18.0)" in probes.commands[0]
    assert harness.find_vcvarsall(FakeProbes(platform="win32")) is None


def test_build_env_is_captured_from_cmd_set_output():
    output = "banner from vcvars\r\nXSL-ENV-BEGIN\r\nPath=C:\\VS\\bin;C:\\oneAPI\\bin\r\nINCLUDE=C:\\VS\\include\r\nONEAPI_ROOT=C:\\oneAPI\r\n"
    probes = FakeProbes(platform="win32", responses={"XSL-ENV-BEGIN": (0, output, "")})
    env = harness.capture_build_env(probes, [(r"C:\VS\vcvarsall.bat", "x64"), (r"C:\oneAPI\compiler\latest\env\vars.bat", "")])
    assert env["INCLUDE"] == "C:\\VS\\include" and env["ONEAPI_ROOT"] == "C:\\oneAPI"
    assert "banner from vcvars" not in env
    command = "".join(probes.commands[0])  # a verbatim string, not an argv list
    assert command == (
        'cmd /d /s /c "call "C:\\VS\\vcvarsall.bat" x64 && call "C:\\oneAPI\\compiler\\latest\\env\\vars.bat"'
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
        responses={"--version": (0, "git version 2.45", ""), "core.longpaths": (1, "", ""), "version_info": (0, "3.12\n", "")},
    )
    findings = {f.check: f for f in harness.windows_prerequisites(probes)}
    assert findings["vs2022"].severity == doctor.ERROR
    assert findings["oneapi-compiler"].severity == doctor.OK
    assert findings["oneapi-ocloc"].severity == doctor.ERROR and "ocloc" in findings["oneapi-ocloc"].title
    assert findings["git-longpaths"].severity == doctor.ERROR and findings["git-longpaths"].fix == "git config --global core.longpaths true"
    assert findings["python"].severity == doctor.OK


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


def test_verify_script_checks_for_silent_fallback():
    script = harness.VERIFY_SCRIPT
    compile(script, "verify_static_launch.py", "exec")
    for needle in ("_StaticXpuLauncher", "StaticTritonCompileResult", "TritonCompileResult", "strict_static_triton_launcher", 'device="xpu"'):
        assert needle in script


class RecordingRunner:
    def __init__(self, fail_on=()):
        self.calls = []
        self.fail_on = fail_on

    def __call__(self, argv, log, cwd=None, env=None, timeout=None):
        self.calls.append((list(argv), cwd, dict(env) if env is not None else None))
        log.write("$ " + " ".join(map(str, argv)))
        return 1 if any(marker in " ".join(map(str, argv)) for marker in self.fail_on) else 0


def windows_ctx(tmp_path):
    ctx = make_ctx(tmp_path, probes=FakeProbes(platform="win32"))
    ctx.env = {"Path": r"C:\oneAPI\compiler\bin;C:\oneAPI\ocloc\bin"}
    ctx.src.mkdir(parents=True)
    (ctx.src / ".ci/docker").mkdir(parents=True)
    (ctx.src / ".ci/docker/triton_xpu_version.txt").write_text("3.5.0\n")
    return ctx


def test_build_step_runs_pip_editable_with_xpu_env(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    runner = RecordingRunner()
    monkeypatch.setattr(harness, "run_logged", runner)
    log = harness.StepLog(tmp_path / "build.log", lambda line: None)
    assert harness.step_build(ctx, log).status == harness.OK
    argv, cwd, env = runner.calls[-1]
    assert argv[1:] == ["-m", "pip", "install", "--no-build-isolation", "-v", "-e", "."] and cwd == ctx.src
    assert env["USE_XPU"] == "1" and env["TORCH_XPU_ARCH_LIST"] == "bmg" and env["Path"].startswith(r"C:\oneAPI")


def test_test_step_installs_pinned_triton_runs_both_tests_and_verifies(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    runner = RecordingRunner()
    monkeypatch.setattr(harness, "run_logged", runner)
    log = harness.StepLog(tmp_path / "test.log", lambda line: None)
    outcome = harness.step_test(ctx, log)
    assert outcome.status == harness.OK
    commands = [" ".join(map(str, argv)) for argv, _, _ in runner.calls]
    assert any("pytorch-triton-xpu==3.5.0 --index-url https://download.pytorch.org/whl/xpu" in c for c in commands)
    assert any("test/inductor/test_static_triton_launcher.py" in c and "--junitxml=" in c for c in commands)
    assert any("test_codecache.py -k test_autotune_cache_warm_start" in c for c in commands)
    assert commands[-1].endswith("verify_static_launch.py")
    assert (ctx.work / "verify_static_launch.py").read_text() == harness.VERIFY_SCRIPT
    # The oneAPI runtime must be on PATH for the tests too.
    assert all(env and env.get("Path", "").startswith(r"C:\oneAPI") for _, _, env in runner.calls)


def test_test_step_names_what_failed(tmp_path, monkeypatch):
    ctx = windows_ctx(tmp_path)
    monkeypatch.setattr(harness, "run_logged", RecordingRunner(fail_on=("test_codecache", "verify_static")))
    log = harness.StepLog(tmp_path / "test.log", lambda line: None)
    with pytest.raises(harness.StepFailed, match="autotune_cache_warm_start, static-launch verification"):
        harness.step_test(ctx, log)


def test_checkout_clones_shallow_with_submodules_and_long_paths(tmp_path, monkeypatch):
    ctx = make_ctx(tmp_path)
    runner = RecordingRunner()
    monkeypatch.setattr(harness, "run_logged", runner)
    log = harness.StepLog(tmp_path / "checkout.log", lambda line: None)
    harness.step_checkout(ctx, log)
    clone = " ".join(runner.calls[0][0])
    assert clone.startswith("git -c core.longpaths=true clone --depth 1 --branch v2.13.0 --recurse-submodules")
    assert "submodule update --init --recursive" in " ".join(runner.calls[1][0])


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
