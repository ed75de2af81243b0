"""python -m xpu_static_launcher enable-at-startup / disable-at-startup / check:
the .pth file in a temporary site folder, and what it does in a new
interpreter (a stand-in torch on disk and a stand-in SYCL backend)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest

import xpu_static_launcher

PACKAGE_PARENT = str(Path(xpu_static_launcher.__file__).resolve().parents[1])
PTH = "xpu_static_launcher-startup.pth"


def run(args: List[str], env: Dict[str, str] = None, code: str = None) -> subprocess.CompletedProcess:
    base = {"PYTHONPATH": PACKAGE_PARENT, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/tmp")}
    base.update(env or {})
    cmd = [sys.executable] + (["-c", code] if code is not None else ["-m", "xpu_static_launcher"]) + args
    return subprocess.run(cmd, capture_output=True, text=True, env=base, timeout=120)


def test_enable_writes_one_pth_line_and_disable_removes_it(tmp_path):
    site_dir = tmp_path / "site"
    proc = run(["enable-at-startup", "--site-dir", str(site_dir)])
    assert proc.returncode == 0, proc.stderr
    pth = site_dir / PTH
    assert proc.stdout.startswith(f"wrote {pth}: every Python start in this environment now calls "
                                  "xpu_static_launcher.install() when torch's Inductor is imported")
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


def test_user_goes_to_the_user_site_folder(tmp_path):
    env = {"PYTHONUSERBASE": str(tmp_path / "userbase")}
    user_site = run([], env, "import site; print(site.getusersitepackages())").stdout.strip()
    assert user_site.startswith(str(tmp_path / "userbase"))
    proc = run(["enable-at-startup", "--user"], env)
    if "user site folder turned off" in proc.stderr:
        pytest.skip("this Python has no user site folder")
    assert proc.returncode == 0, proc.stderr
    assert (Path(user_site) / PTH).is_file()
    assert proc.stdout.rstrip().endswith("disable-at-startup --user")
    # The next interpreter runs it (user site folders are processed at start-up).
    armed = run([], env, "import sys; from xpu_static_launcher import _startup; "
                         "print(_startup.installed_hook() is not None)")
    assert armed.stdout.strip() == "True", armed.stderr
    assert run(["disable-at-startup", "--user"], env).returncode == 0
    assert not (Path(user_site) / PTH).exists()
    armed = run([], env, "import sys; print(any(type(f).__name__ == 'StartupHook' for f in sys.meta_path))")
    assert armed.stdout.strip() == "False"


def test_unwritable_site_folder_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = run(["enable-at-startup", "--site-dir", str(blocker / "sub")])
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: cannot write {blocker / 'sub' / PTH}: ")
    assert "Traceback" not in proc.stderr


def _fake_torch(root: Path) -> None:
    (root / "torch" / "_inductor").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(textwrap.dedent("""\
        import sys, types
        __version__ = "2.15.0+xpu"
        _C = types.ModuleType("torch._C")
        _C._xpu_getCurrentRawStream = lambda device: 0
        sys.modules["torch._C"] = _C
        xpu = types.SimpleNamespace(is_available=lambda: True)
        """))
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
        assert proc.stderr == ("xpu_static_launcher: refused: xpu_static_launcher._sycl_launcher was built "
                               "against libsycl major 8 but this process loaded libsycl major 9; rebuild the "
                               "package (pip install --no-build-isolation .) in the environment torch runs in\n")
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
    assert proc.stderr.startswith("xpu_static_launcher: installed the SYCL backend (libsycl 9) as "
                                  "torch._C._StaticXpuLauncher; but kernels stay SPIR-V")
    assert proc.stderr.count("\n") == 1
    # A compile worker inherits the variable and stays quiet; verbose still prints.
    assert run(args, {"XSL_STARTUP_WARNED": "1"}, code).stderr == ""
    assert "kernels stay SPIR-V" in run(args, {"XSL_STARTUP_WARNED": "1", "XSL_STARTUP_VERBOSE": "1"}, code).stderr


def test_pth_left_behind_after_the_package_is_gone_is_harmless(tmp_path):
    site_dir = tmp_path / "site"
    assert run(["enable-at-startup", "--site-dir", str(site_dir)]).returncode == 0
    proc = subprocess.run([sys.executable, "-c", f"import site; site.addsitedir({str(site_dir)!r}); print('ok')"],
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"},
                          timeout=60, cwd=str(tmp_path))
    assert proc.stdout == "ok\n" and proc.stderr == ""


def test_check_runs_install_once_and_says_what_it_did():
    proc = run(["check", "--no-zebin"])
    assert proc.returncode in (0, 1)
    assert proc.stdout.count("\n") == 1 and proc.stdout.strip()
    try:
        import torch  # noqa: F401
        import torch._C as torch_c
    except ImportError:
        assert proc.stdout.startswith("nothing installed: torch cannot be imported")
        return
    if not hasattr(torch_c, "_xpu_getCurrentRawStream"):
        assert proc.returncode == 1 and "is not an XPU build" in proc.stdout


def test_help_lists_the_commands():
    proc = run(["--help"])
    assert proc.returncode == 0
    for word in ("enable-at-startup", "disable-at-startup", "check", "verify"):
        assert word in proc.stdout
