"""python -m xpu_static_launcher enable-at-startup / disable-at-startup / check:
the .pth file in a temporary site folder, and what it does in a new
interpreter (a stand-in torch on disk and a stand-in SYCL backend)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import xpu_static_launcher

PACKAGE_PARENT = str(Path(xpu_static_launcher.__file__).resolve().parents[1])
PTH = "xpu_static_launcher-startup.pth"


def run(
    args: list[str], env: dict[str, str] = None, code: str = None, python: str = sys.executable
) -> subprocess.CompletedProcess:
    base = {
        "PYTHONPATH": PACKAGE_PARENT,
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
    }
    base.update(env or {})
    cmd = [python] + (["-c", code] if code is not None else ["-m", "xpu_static_launcher"]) + args
    return subprocess.run(cmd, capture_output=True, text=True, env=base, timeout=120)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new environment of this Python with the user site folder on (as a
    Python outside a virtual environment has it), without the package
    installed: it comes from PYTHONPATH."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(root)], check=True, timeout=120
    )
    return root


def test_enable_writes_one_pth_line_and_disable_removes_it(tmp_path):
    site_dir = tmp_path / "site"
    proc = run(["enable-at-startup", "--site-dir", str(site_dir)])
    assert proc.returncode == 0, proc.stderr
    pth = site_dir / PTH
    assert proc.stdout.startswith(
        f"wrote {pth}: every Python start in this environment now calls "
        "xpu_static_launcher.install() when torch's Inductor is imported"
    )
    assert proc.stdout.rstrip().endswith(f"disable-at-startup --site-dir {site_dir}")
    lines = pth.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("import ")
    assert run(["enable-at-startup", "--site-dir", str(site_dir)]).returncode == 0  # again: same file
    assert pth.read_text().splitlines() == lines
    proc = run(["disable-at-startup", "--site-dir", str(site_dir)])
    assert proc.returncode == 0 and proc.stdout == f"removed {pth}\n"
    assert not pth.exists()
    proc = run(["disable-at-startup", "--site-dir", str(site_dir)])
    assert proc.returncode == 0 and proc.stdout == f"nothing to remove: {pth} does not exist\n"


def test_user_goes_to_the_user_site_folder(tmp_path, venv):
    python = str(venv / "bin" / "python")
    env = {"PYTHONUSERBASE": str(tmp_path / "userbase")}
    user_site = run([], env, "import site; print(site.getusersitepackages())", python).stdout.strip()
    assert user_site.startswith(str(tmp_path / "userbase"))
    proc = run(["enable-at-startup", "--user"], env, python=python)
    if "user site folder turned off" in proc.stderr:
        pytest.skip("this Python has no user site folder")
    assert proc.returncode == 0, proc.stderr
    assert (Path(user_site) / PTH).is_file()
    assert proc.stdout.rstrip().endswith("disable-at-startup --user")
    # The next interpreter runs it (user site folders are processed at start-up).
    armed = run(
        [],
        env,
        "import sys; from xpu_static_launcher import _startup; print(_startup.installed_hook() is not None)",
        python,
    )
    assert armed.stdout.strip() == "True", armed.stderr
    assert run(["disable-at-startup", "--user"], env, python=python).returncode == 0
    assert not (Path(user_site) / PTH).exists()
    armed = run([], env, "import sys; print(any(type(f).__name__ == 'StartupHook' for f in sys.meta_path))", python)
    assert armed.stdout.strip() == "False"


def test_user_in_a_virtual_environment_is_one_clear_error(tmp_path):
    code = "import site, sys; print(site.ENABLE_USER_SITE)"
    if run([], {}, code).stdout.strip() != "False":
        pytest.skip("this Python has a user site folder")
    proc = run(["enable-at-startup", "--user"], {"PYTHONUSERBASE": str(tmp_path / "userbase")})
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (
        "error: --user: this Python has the user site folder turned off (a virtual environment "
        "or -s); leave out --user to use the environment's site-packages\n"
    )


def test_unwritable_site_folder_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = run(["enable-at-startup", "--site-dir", str(blocker / "sub")])
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: cannot write {blocker / 'sub' / PTH}: ")
    assert "Traceback" not in proc.stderr


def _fake_torch(root: Path) -> None:
    (root / "torch" / "_inductor").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(
        textwrap.dedent("""\
        import sys, types
        __version__ = "2.15.0+xpu"
        _C = types.ModuleType("torch._C")
        _C._xpu_getCurrentRawStream = lambda device: 0
        sys.modules["torch._C"] = _C
        xpu = types.SimpleNamespace(is_available=lambda: True)
        """)
    )
    (root / "torch" / "_inductor" / "__init__.py").write_text("")


STARTUP_SCRIPT = """\
import site, sys, types
site.addsitedir(sys.argv[1])   # processes the .pth file, as at start-up
backend = types.ModuleType("xpu_static_launcher._sycl_launcher")
backend.SYCL_MAJOR = int(sys.argv[3])
class StaticXpuLauncher:
    _load_kernel = staticmethod(lambda *a: None)
    _launch_kernel = staticmethod(lambda *a: None)
backend.StaticXpuLauncher = StaticXpuLauncher
sys.modules[backend.__name__] = backend
from xpu_static_launcher import torch_install
torch_install.loaded_libraries = lambda: ["libsycl.so.9"]
sys.path.insert(0, sys.argv[2])
import torch
print("before", hasattr(torch._C, "_StaticXpuLauncher"), flush=True)
import torch._inductor
print("after", getattr(torch._C, "_StaticXpuLauncher", None) is StaticXpuLauncher, flush=True)
"""


@pytest.mark.parametrize("major, installed", [(9, True), (8, False)])
def test_pth_installs_when_inductor_is_imported(tmp_path, major, installed):
    site_dir, fake = tmp_path / "site", tmp_path / "fake"
    _fake_torch(fake)
    args = [str(site_dir), str(fake), str(major)]
    # Without the .pth file nothing happens.
    proc = run(args, code=STARTUP_SCRIPT)
    assert proc.stdout.split("\n")[:2] == ["before False", "after False"], proc.stderr
    assert proc.stderr == ""
    assert run(["enable-at-startup", "--site-dir", str(site_dir)]).returncode == 0
    proc = run(args, code=STARTUP_SCRIPT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["before False", f"after {installed}"]
    if installed:
        assert proc.stderr == ""
    else:
        assert proc.stderr == (
            "xpu_static_launcher: refused: xpu_static_launcher._sycl_launcher was built "
            "against libsycl major 8 but this process loaded libsycl major 9; rebuild the "
            "package (pip install --no-build-isolation .) in the environment torch runs in\n"
        )
    verbose = run(args, {"XSL_STARTUP_VERBOSE": "1"}, STARTUP_SCRIPT)
    assert verbose.stderr.startswith("xpu_static_launcher: ")
    off = run(args, {"XSL_STARTUP": "0"}, STARTUP_SCRIPT)
    assert off.stdout.split("\n")[:2] == ["before False", "after False"]


def test_spirv_kernels_are_reported_once_per_program(tmp_path):
    site_dir, fake = tmp_path / "site", tmp_path / "fake"
    _fake_torch(fake)
    # An Inductor that keeps SPIR-V (on Linux only the variable does that).
    (fake / "torch" / "_inductor" / "utils.py").write_text('XPU_KERNEL_FORMAT = "spv"\n')
    (fake / "torch" / "_inductor" / "__init__.py").write_text("from . import utils\n")
    assert run(["enable-at-startup", "--site-dir", str(site_dir)]).returncode == 0
    args = [str(site_dir), str(fake), "9"]
    code = STARTUP_SCRIPT + "import os; print('warned', os.environ.get('XSL_STARTUP_WARNED'))\n"
    proc = run(args, code=code)
    assert proc.stdout.split("\n")[1:3] == ["after True", "warned 1"], proc.stderr
    assert proc.stderr.startswith(
        "xpu_static_launcher: installed the SYCL backend (libsycl 9) as "
        "torch._C._StaticXpuLauncher; but kernels stay SPIR-V"
    )
    assert proc.stderr.count("\n") == 1
    # A compile worker inherits the variable and stays quiet; verbose still prints.
    assert run(args, {"XSL_STARTUP_WARNED": "1"}, code).stderr == ""
    assert "kernels stay SPIR-V" in run(args, {"XSL_STARTUP_WARNED": "1", "XSL_STARTUP_VERBOSE": "1"}, code).stderr


# Run with the package nowhere on sys.path: what the .pth line imports when
# Python processes the site folder (as at start-up), and what it prints.
PTH_PROBE = """\
import sys, site
before = set(sys.modules)
site.addsitedir(sys.argv[1])
print(sorted(set(sys.modules) - before))
"""


def _without_package(site_dir: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PTH_PROBE, str(site_dir)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"},
        timeout=60,
        cwd=str(cwd),
    )


def test_pth_left_behind_after_the_package_is_gone_imports_nothing(tmp_path):
    site_dir = tmp_path / "site"
    assert run(["enable-at-startup", "--site-dir", str(site_dir)]).returncode == 0
    assert sorted(p.name for p in site_dir.iterdir()) == [PTH]
    code = "import importlib.util as u; print(u.find_spec('xpu_static_launcher'))"
    found = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"},
        timeout=60,
        cwd=str(tmp_path),
    )
    if found.stdout != "None\n":
        pytest.skip("xpu_static_launcher is installed in this Python: it cannot be shown gone")
    proc = _without_package(site_dir, tmp_path)
    assert (proc.stdout, proc.stderr) == ("[]\n", "")
    # A package folder pip left behind (no __init__.py: a namespace package) is
    # not the package either.
    (site_dir / "xpu_static_launcher" / "__pycache__").mkdir(parents=True)
    proc = _without_package(site_dir, tmp_path)
    assert (proc.stdout, proc.stderr) == ("[]\n", "")


def test_pth_line_imports_the_package_when_it_is_there(tmp_path):
    from xpu_static_launcher import __main__ as cli

    assert cli.PTH_LINE.startswith("import sys;") and cli.PTH_LINE.count("\n") == 1
    site_dir = tmp_path / "site"
    assert run(["enable-at-startup", "--site-dir", str(site_dir)]).returncode == 0
    assert (site_dir / PTH).read_text() == cli.PTH_LINE
    proc = run([str(site_dir)], code=PTH_PROBE)
    assert proc.stderr == "" and "'xpu_static_launcher._startup'" in proc.stdout


def test_check_runs_install_once_and_says_what_it_did():
    proc = run(["check", "--no-zebin"])
    assert proc.returncode in (0, 1)
    assert proc.stdout.count("\n") == 1 and proc.stdout.strip()
    try:
        import torch  # noqa: F401
        import torch._C as torch_c
    except ImportError:
        assert proc.stdout.startswith("not static: nothing installed: torch cannot be imported")
        return
    if not hasattr(torch_c, "_xpu_getCurrentRawStream"):
        assert proc.returncode == 1 and proc.stdout.startswith("not static: nothing installed: ")
        assert "is not an XPU build" in proc.stdout
        assert proc.stderr.splitlines()[-1] == (
            "check: no kernel will be launched statically (the reason and the "
            "fix are named above); python scripts/doctor.py says more"
        )


SPIRV_INSTALLED = (
    "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher; Inductor's XPU kernels "
    "stay SPIR-V and are launched statically as SPIR-V (compiled by the GPU driver at first load, "
    "kept afterwards)"
)
ZEBIN_INSTALLED = (
    "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher; Inductor XPU kernel "
    "format: zebin (zebin: Triton-XPU makes it with ocloc)"
)
SPIRV_REFUSED = (
    "installed the SYCL backend (libsycl 9) as torch._C._StaticXpuLauncher; but kernels stay SPIR-V, "
    "so Inductor launches none of them statically: kept SPIR-V (.spv) ..."
)
OWN = "torch._C._StaticXpuLauncher is present (torch has its own, left alone)"
NOTE = (
    "check: no kernel will be launched statically (the reason and the fix are named above); python "
    "scripts/doctor.py says more\n"
)
FIX = "kept SPIR-V (.spv), which cannot be launched statically: ocloc was not found; install ..."


# status, message, Inductor's format, whether Inductor refuses SPIR-V, torch.xpu.is_available(); the line.
CHECK_STATES = [
    ("installed", SPIRV_INSTALLED, "spv", False, True, f"static (SPIR-V): {SPIRV_INSTALLED}"),
    ("installed", ZEBIN_INSTALLED, "zebin", True, True, f"static (zebin): {ZEBIN_INSTALLED}"),
    ("installed-spirv", SPIRV_REFUSED, "spv", True, True, f"not static: {SPIRV_REFUSED}"),
    (
        "installed",
        ZEBIN_INSTALLED,
        None,
        True,
        True,
        f"not static: {ZEBIN_INSTALLED}; but torch's Inductor cannot be imported, so no kernel is compiled at all",
    ),
    ("present", OWN, "zebin", True, True, f"static (zebin): {OWN}"),
    ("present", OWN, "spv", False, True, f"static (SPIR-V): {OWN}"),
    (
        "present",
        OWN,
        "spv",
        True,
        True,
        f"not static: {OWN}; but Inductor's XPU kernels are SPIR-V, which it refuses to launch statically with this "
        f"launcher: {FIX}",
    ),
    (
        "present",
        OWN,
        None,
        True,
        True,
        f"not static: {OWN}; but torch's Inductor cannot be imported, so no kernel is compiled at all",
    ),
    (
        "present",
        OWN,
        "zebin",
        True,
        False,
        f"not static: {OWN}; but torch.xpu.is_available() is False (no Intel GPU or driver visible to torch)",
    ),
    (
        "no-torch",
        "nothing installed: torch cannot be imported (No module named 'torch')",
        None,
        True,
        False,
        "not static: nothing installed: torch cannot be imported (No module named 'torch')",
    ),
    (
        "not-xpu",
        "nothing installed: torch 2.15.0+cpu is not an XPU build ...",
        None,
        True,
        False,
        "not static: nothing installed: torch 2.15.0+cpu is not an XPU build ...",
    ),
    (
        "no-backend",
        "nothing installed: the SYCL backend ...",
        "spv",
        True,
        True,
        "not static: nothing installed: the SYCL backend ...",
    ),
    (
        "sycl-mismatch",
        "refused: xpu_static_launcher._sycl_launcher was built against ...",
        "spv",
        True,
        True,
        "not static: refused: xpu_static_launcher._sycl_launcher was built against ...",
    ),
    (
        "sycl-unknown",
        "nothing installed: no libsycl is loaded by torch ...",
        "spv",
        True,
        True,
        "not static: nothing installed: no libsycl is loaded by torch ...",
    ),
]


@pytest.mark.parametrize("status, message, kernel_format, refuses, xpu, line", CHECK_STATES)
def test_check_says_the_outcome_first_in_every_state(
    monkeypatch, capsys, status, message, kernel_format, refuses, xpu, line
):
    from xpu_static_launcher import __main__ as cli
    from xpu_static_launcher import torch_install

    monkeypatch.setattr(
        xpu_static_launcher, "install", lambda zebin, verbose: torch_install.InstallResult(status, message)
    )
    monkeypatch.setattr(cli, "_kernel_format", lambda: kernel_format)
    monkeypatch.setattr(cli, "_inductor_refuses_spirv", lambda: refuses)
    monkeypatch.setattr(cli, "_xpu_available", lambda: xpu)
    monkeypatch.setattr(cli, "_not_spirv_fix", lambda: FIX)
    static = line.startswith("static (")
    assert cli.check(None) == (0 if static else 1)
    out, err = capsys.readouterr()
    assert out == line + "\n"
    assert err == ("" if static else NOTE)
    if not static:  # nothing reads like success
        assert not any(text.lower().startswith(("installed", "ok")) for text in (out + err).splitlines())


def _heuristics_module(refusal: bool) -> types.ModuleType:
    """An Inductor triton_heuristics with can_statically_launch nesting a
    check_can_launch, as the releases have it."""
    source = textwrap.dedent(f"""\
        class StaticTritonCompileResult:
            @staticmethod
            def can_statically_launch(kernel):
                def check_can_launch():
                    if XPU_KERNEL_FORMAT == "spv":
                        raise RuntimeError({
        "'Static XPU Triton kernel launch does not support SPIR-V kernel.'" if refusal else "'other'"
    })
                return check_can_launch()
        """)
    module = types.ModuleType("torch._inductor.runtime.triton_heuristics")
    exec(compile(source, "<heuristics>", "exec"), module.__dict__)
    return module


@pytest.mark.parametrize("refusal", [True, False])
def test_check_reads_the_refusal_from_inductors_code(monkeypatch, refusal):
    from xpu_static_launcher import __main__ as cli
    from xpu_static_launcher import inductor_spirv

    monkeypatch.setitem(sys.modules, inductor_spirv.HEURISTICS, _heuristics_module(refusal))
    assert cli._inductor_refuses_spirv() is refusal
    monkeypatch.setattr(inductor_spirv, "is_enabled", lambda: True)  # install() lifted it
    assert cli._inductor_refuses_spirv() is False


def test_check_assumes_the_refusal_when_inductor_cannot_be_read(monkeypatch):
    from xpu_static_launcher import __main__ as cli
    from xpu_static_launcher import inductor_spirv

    monkeypatch.setitem(sys.modules, inductor_spirv.HEURISTICS, types.ModuleType("empty"))
    assert cli._inductor_refuses_spirv() is True


def test_check_finds_the_refusal_in_the_installed_torch():
    pytest.importorskip("torch")
    from xpu_static_launcher import __main__ as cli

    heuristics = pytest.importorskip("torch._inductor.runtime.triton_heuristics")
    check = heuristics.StaticTritonCompileResult.__dict__["can_statically_launch"]
    assert cli._code_holds(
        getattr(check, "__func__", check).__code__, "Static XPU Triton kernel launch does not support SPIR-V kernel."
    )
    assert cli._inductor_refuses_spirv() is True


@pytest.mark.parametrize(
    "variable, fix",
    [
        (None, "zebin is the default off Windows; call xpu_static_launcher.enable_zebin() before torch.compile"),
        ("spv", "TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv; unset it for zebin"),
        (
            "elf",
            "TORCHINDUCTOR_XPU_KERNEL_FORMAT='elf' is not a kernel format Inductor knows; set it to 'zebin' or "
            "'spv', or unset it",
        ),
    ],
)
def test_check_names_the_fix_for_spirv_with_torchs_own_launcher(monkeypatch, variable, fix):
    from xpu_static_launcher import __main__ as cli
    from xpu_static_launcher import inductor_format

    monkeypatch.setattr(inductor_format, "is_windows", lambda: False)
    if variable is None:
        monkeypatch.delenv(inductor_format.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(inductor_format.ENV_VAR, variable)
    assert cli._not_spirv_fix() == fix


def test_help_lists_the_commands():
    proc = run(["--help"])
    assert proc.returncode == 0
    for word in ("enable-at-startup", "disable-at-startup", "check", "verify", "cache", "uninstall"):
        assert word in proc.stdout
    proc = run(["uninstall", "--help"])
    assert proc.returncode == 0
    for text in (
        "--site-dir DIR",
        "also look in this folder",
        "--keep-cache",
        "leave the kept native binaries where they are",
        "pip command",
    ):
        assert text in " ".join(proc.stdout.split())


# --- uninstall

FINISH = "to finish, run: pip uninstall xpu-static-launcher\n"
KEPT = "kept native binaries left as they are (--keep-cache)\n"


def venv_run(venv: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    python = venv / "bin" / "python"
    base = {"PYTHONPATH": PACKAGE_PARENT, "PATH": "/usr/bin:/bin", "HOME": env.get("HOME", "/tmp")}
    base.update(env)
    return subprocess.run(
        [str(python), "-m", "xpu_static_launcher"] + args, capture_output=True, text=True, env=base, timeout=120
    )


def venv_paths(venv: Path, env: dict[str, str]) -> dict[str, str]:
    code = (
        "import json, site, sysconfig; print(json.dumps({'purelib': sysconfig.get_paths()['purelib'], "
        "'user': site.getusersitepackages(), 'enabled': bool(site.ENABLE_USER_SITE)}))"
    )
    proc = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code],
        capture_output=True,
        text=True,
        env=dict(env, PATH="/usr/bin:/bin"),
        timeout=60,
        check=True,
    )
    import json

    return json.loads(proc.stdout)


def test_uninstall_removes_what_enable_wrote_everywhere(venv, tmp_path):
    env = {
        "PYTHONUSERBASE": str(tmp_path / "userbase"),
        "XSL_KERNEL_CACHE_DIR": str(tmp_path / "kept"),
        "HOME": str(tmp_path),
    }
    paths = venv_paths(venv, env)
    if not paths["enabled"]:
        pytest.skip("this Python has no user site folder")
    site_dir = tmp_path / "site"
    for where in ([], ["--user"], ["--site-dir", str(site_dir)]):
        proc = venv_run(venv, ["enable-at-startup"] + where, env)
        assert proc.returncode == 0, proc.stderr
    written = [Path(paths["purelib"]) / PTH, Path(paths["user"]) / PTH, site_dir / PTH]
    assert all(path.is_file() for path in written)
    (tmp_path / "kept").mkdir()
    for name in ("a.xslnb", "b.xslnb"):
        (tmp_path / "kept" / name).write_bytes(b"\0" * 1000)
    proc = venv_run(venv, ["uninstall", "--site-dir", str(site_dir)], env)
    assert proc.returncode == 0 and proc.stderr == ""
    assert (
        proc.stdout
        == "".join(f"removed {path}\n" for path in written)
        + (f"removed 2 kept native binaries (0.0 MB) from {tmp_path / 'kept'}\n")
        + FINISH
    )
    assert not any(path.exists() for path in written)
    assert not list((tmp_path / "kept").glob("*.xslnb"))
    # Nothing left: says where it looked.
    proc = venv_run(venv, ["uninstall", "--keep-cache"], env)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines(keepends=True)
    assert lines[0].startswith(f"no {PTH} in: {paths['purelib']}, {paths['user']}, ")
    assert lines[1:] == [KEPT, FINISH]


def test_uninstall_finds_the_pth_in_a_folder_on_sys_path(tmp_path):
    site_dir = tmp_path / "site"
    assert run(["enable-at-startup", "--site-dir", str(site_dir)]).returncode == 0
    proc = run(["uninstall", "--keep-cache"], {"PYTHONPATH": PACKAGE_PARENT + os.pathsep + str(site_dir)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"removed {site_dir / PTH}\n" + KEPT + FINISH
    assert not (site_dir / PTH).exists()


def test_uninstall_says_when_the_kept_binaries_are_off(tmp_path):
    proc = run(["uninstall", "--site-dir", str(tmp_path)], {"XSL_KERNEL_CACHE": "0"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == [
        "kept native binaries not cleared: they are off here (XSL_KERNEL_CACHE=0)",
        FINISH.strip(),
    ]


def test_uninstall_without_the_launcher_module_still_removes_the_pth(monkeypatch, capsys, tmp_path):
    from xpu_static_launcher import __main__ as cli

    (tmp_path / PTH).write_text(cli.PTH_LINE)
    monkeypatch.setattr(cli, "startup_places", lambda site_dirs: [Path(d) for d in site_dirs])
    # The import fails, also after another test imported the module (the
    # package then holds it as an attribute, which `from . import` reads first).
    monkeypatch.setitem(sys.modules, "xpu_static_launcher._launcher", None)
    monkeypatch.delattr(sys.modules["xpu_static_launcher"], "_launcher", raising=False)
    assert cli.uninstall([str(tmp_path)], keep_cache=False) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"removed {tmp_path / PTH}"
    assert out[1].startswith("kept native binaries not cleared: the package's launcher module cannot be imported (")
    assert out[1].endswith(
        "); their folder is XSL_KERNEL_CACHE_DIR, else xpu_static_launcher in %LOCALAPPDATA% (Windows) or ~/.cache"
    )
    assert out[2:] == [FINISH.strip()]


def test_uninstall_that_cannot_remove_says_so_and_names_no_pip_command(monkeypatch, capsys, tmp_path):
    from xpu_static_launcher import __main__ as cli

    (tmp_path / PTH).write_text(cli.PTH_LINE)
    monkeypatch.setattr(cli, "startup_places", lambda site_dirs: [Path(d) for d in site_dirs])

    def refuse(self, missing_ok=False):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "unlink", refuse)
    assert cli.uninstall([str(tmp_path)], keep_cache=True) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        f"error: cannot remove {tmp_path / PTH}: Permission denied; run again with rights to that folder\n"
    )
    assert captured.out == KEPT


def test_startup_places_are_site_packages_user_site_sys_path_and_the_named_folders(monkeypatch, tmp_path):
    import site
    import sysconfig

    from xpu_static_launcher import __main__ as cli

    monkeypatch.setattr(
        sysconfig, "get_paths", lambda: {"purelib": str(tmp_path / "pure"), "platlib": str(tmp_path / "pure")}
    )
    monkeypatch.setattr(site, "getusersitepackages", lambda: str(tmp_path / "user"))
    (tmp_path / "on-path").mkdir()
    monkeypatch.setattr(sys, "path", ["", str(tmp_path / "on-path"), str(tmp_path / "missing"), str(tmp_path / "pure")])
    monkeypatch.setattr(site, "ENABLE_USER_SITE", True)
    assert cli.startup_places([str(tmp_path / "named")]) == [
        tmp_path / "pure",
        tmp_path / "user",
        tmp_path / "on-path",
        tmp_path / "named",
    ]
    monkeypatch.setattr(site, "ENABLE_USER_SITE", False)
    assert tmp_path / "user" not in cli.startup_places([])
