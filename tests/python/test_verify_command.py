"""python -m xpu_static_launcher verify: one clear line where torch, an XPU
build, a GPU or Triton-XPU is missing; the launcher count against the real
Inductor classes; the verdict."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any, Dict, List

import pytest

import xpu_static_launcher
from xpu_static_launcher import verify

PACKAGE_PARENT = str(Path(xpu_static_launcher.__file__).resolve().parents[1])


def fake_modules(*, compiled: bool = True, available: bool = True, triton: bool = True,
                 launcher: bool = True) -> Dict[str, Any]:
    torch = types.ModuleType("torch")
    torch.__version__ = "2.15.0+xpu"
    torch.xpu = types.SimpleNamespace(_is_compiled=lambda: compiled, is_available=lambda: available)
    torch._C = types.SimpleNamespace(**({"_StaticXpuLauncher": object()} if launcher else {}))
    torch.randn = lambda *shape, device: (shape, device)
    modules: Dict[str, Any] = {"torch": torch}
    if triton:
        modules["triton.backends.intel"] = types.ModuleType("triton.backends.intel")
    return modules


def importer(modules: Dict[str, Any]):
    def import_module(name: str) -> Any:
        if name not in modules:
            raise ImportError(f"No module named '{name}'")
        return modules[name]
    return import_module


def verify_lines(modules: Dict[str, Any], **kwargs: Any) -> tuple:
    lines: List[str] = []
    rc = verify.run(out=lines.append, import_module=importer(modules), **kwargs)
    return rc, lines


@pytest.mark.parametrize("modules, line", [
    ({}, "verify: FAILED: torch cannot be imported (No module named 'torch'); install a PyTorch XPU wheel: "
         "pip install torch --index-url https://download.pytorch.org/whl/xpu"),
    (fake_modules(compiled=False), "verify: FAILED: torch 2.15.0+xpu is not an XPU build; install a PyTorch XPU "
                                   "wheel: pip install torch --index-url https://download.pytorch.org/whl/xpu"),
    (fake_modules(available=False), "verify: FAILED: torch 2.15.0+xpu sees no XPU device (torch.xpu.is_available() "
                                    "is False): verify needs an Intel GPU and its driver"),
    (fake_modules(triton=False), "verify: FAILED: Triton-XPU cannot be imported (No module named "
                                 "'triton.backends.intel'); install the pytorch-triton-xpu that torch 2.15.0+xpu "
                                 "pins (pip install pytorch-triton-xpu==<version> --index-url "
                                 "https://download.pytorch.org/whl/xpu; python scripts/doctor.py names the version)"),
])
def test_what_is_missing_is_one_line(modules, line):
    assert verify_lines(modules) == (1, [line])


def test_a_torch_without_a_launcher_is_one_line():
    rc, lines = verify_lines(fake_modules(launcher=False), install_first=False)
    assert rc == 1 and lines == ["verify: FAILED: torch._C._StaticXpuLauncher is missing (run without --no-install, "
                                 "or use a torch built with the PR stack)"]


@pytest.mark.parametrize("launches, rc, last", [
    (verify.Launches(static=["StaticallyLaunchedXpuKernel"] * 2), 0,
     "verify: OK: Inductor launched every kernel through torch._C._StaticXpuLauncher"),
    (verify.Launches(fallback=["triton_poi_0"], refusals=["Static XPU Triton kernel launch does not support "
                                                           "SPIR-V kernel."]), 1,
     "verify: FAILED: no kernel went through the static launcher (reasons above)"),
    (verify.Launches(static=["StaticallyLaunchedXpuKernel"], fallback=["triton_red_1"]), 1,
     "verify: FAILED: 1 kernel(s) fell back to Triton's launcher (reasons above)"),
])
def test_the_verdict_follows_the_count(monkeypatch, launches, rc, last):
    monkeypatch.setattr(verify, "count_launches", lambda torch, fn, *args: launches)
    got, lines = verify_lines(fake_modules(), install_first=False)
    assert got == rc and lines == [launches.summary(), last]


def test_summary_names_the_refusal():
    launches = verify.Launches(fallback=["k0", "k1"], refusals=["Static XPU Triton kernel launch does not "
                                                                "support SPIR-V kernel."] * 2)
    assert launches.summary() == ("static launches set up: 0; fallbacks: 2; Inductor refused static launch: "
                                  "Static XPU Triton kernel launch does not support SPIR-V kernel.")


def test_the_count_hooks_the_real_inductor_classes():
    torch = pytest.importorskip("torch")
    heuristics = pytest.importorskip(verify.HEURISTICS)
    before = (heuristics.StaticTritonCompileResult.can_statically_launch,
              heuristics.StaticTritonCompileResult.make_launcher, heuristics.TritonCompileResult.make_launcher)
    # Dynamo's eager backend on the CPU: no kernel is made, so nothing is
    # counted, but every hook must find its real attribute, every config key
    # must exist in this torch, and all of it must be put back.
    launches = verify.count_launches(torch, lambda x: x * 2 + 1, torch.ones(8), backend="eager")
    assert launches == verify.Launches() and not launches.ok
    after = (heuristics.StaticTritonCompileResult.can_statically_launch,
             heuristics.StaticTritonCompileResult.make_launcher, heuristics.TritonCompileResult.make_launcher)
    assert after == before


def test_the_command_on_this_machine_prints_one_line():
    env = {"PYTHONPATH": PACKAGE_PARENT, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "HOME": os.environ.get("HOME", "/tmp")}
    proc = subprocess.run([sys.executable, "-m", "xpu_static_launcher", "verify"], capture_output=True, text=True,
                          env=env, timeout=300)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.xpu._is_compiled() and torch.xpu.is_available():
        pytest.skip("this machine has an XPU: the one-line failure cannot be shown here")
    assert proc.returncode == 1
    assert proc.stdout.count("\n") == 1 and proc.stdout.startswith("verify: FAILED: "), proc.stdout
    if torch is not None:
        assert f"torch {torch.__version__} " in proc.stdout
