"""python -m xpu_static_launcher verify: one clear line where torch, an XPU
build, a GPU or Triton-XPU is missing; the launcher count against the real
Inductor classes; the verdict."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import xpu_static_launcher
from xpu_static_launcher import verify

PACKAGE_PARENT = str(Path(xpu_static_launcher.__file__).resolve().parents[1])


def fake_modules(
    *, compiled: bool = True, available: bool = True, triton: bool = True, launcher: bool = True
) -> dict[str, Any]:
    torch = types.ModuleType("torch")
    torch.__version__ = "2.15.0+xpu"
    torch.xpu = types.SimpleNamespace(_is_compiled=lambda: compiled, is_available=lambda: available)
    torch._C = types.SimpleNamespace(**({"_StaticXpuLauncher": object()} if launcher else {}))
    torch.randn = lambda *shape, device: (shape, device)
    modules: dict[str, Any] = {"torch": torch}
    if triton:
        modules["triton.backends.intel"] = types.ModuleType("triton.backends.intel")
    return modules


def importer(modules: dict[str, Any]):
    def import_module(name: str) -> Any:
        if name not in modules:
            raise ImportError(f"No module named '{name}'")
        return modules[name]

    return import_module


def verify_lines(modules: dict[str, Any], **kwargs: Any) -> tuple:
    lines: list[str] = []
    rc = verify.run(out=lines.append, import_module=importer(modules), **kwargs)
    return rc, lines


@pytest.mark.parametrize(
    "modules, line",
    [
        (
            {},
            "verify: FAILED: torch cannot be imported (No module named 'torch'); install a PyTorch XPU wheel: "
            "pip install torch --index-url https://download.pytorch.org/whl/xpu",
        ),
        (
            fake_modules(compiled=False),
            "verify: FAILED: torch 2.15.0+xpu is not an XPU build; install a PyTorch XPU "
            "wheel: pip install torch --index-url https://download.pytorch.org/whl/xpu",
        ),
        (
            fake_modules(available=False),
            "verify: FAILED: torch 2.15.0+xpu sees no XPU device (torch.xpu.is_available() "
            "is False): verify needs an Intel GPU and its driver",
        ),
        (
            fake_modules(triton=False),
            "verify: FAILED: Triton-XPU cannot be imported (No module named "
            "'triton.backends.intel'); install the pytorch-triton-xpu that torch 2.15.0+xpu "
            "pins (pip install pytorch-triton-xpu==<version> --index-url "
            "https://download.pytorch.org/whl/xpu; python scripts/doctor.py names the version)",
        ),
    ],
)
def test_what_is_missing_is_one_line(modules, line):
    assert verify_lines(modules) == (1, [line])


def test_a_torch_without_a_launcher_is_one_line():
    rc, lines = verify_lines(fake_modules(launcher=False), install_first=False)
    assert rc == 1 and lines == [
        "verify: FAILED: torch._C._StaticXpuLauncher is missing (run without --no-install, "
        "or use a torch built with the PR stack)"
    ]


@pytest.mark.parametrize(
    "launches, rc, last",
    [
        (
            verify.Launches(static=["StaticallyLaunchedXpuKernel"] * 2),
            0,
            "verify: OK: Inductor launched every kernel through torch._C._StaticXpuLauncher",
        ),
        (
            verify.Launches(
                fallback=["triton_poi_0"], refusals=["Static XPU Triton kernel launch does not support SPIR-V kernel."]
            ),
            1,
            "verify: FAILED: no kernel went through the static launcher (reasons above)",
        ),
        (
            verify.Launches(static=["StaticallyLaunchedXpuKernel"], fallback=["triton_red_1"]),
            1,
            "verify: FAILED: 1 kernel(s) fell back to Triton's launcher (reasons above)",
        ),
    ],
)
def test_the_verdict_follows_the_count(monkeypatch, launches, rc, last):
    monkeypatch.setattr(verify, "count_launches", lambda torch, fn, *args: launches)
    got, lines = verify_lines(fake_modules(), install_first=False)
    assert got == rc and lines == [verify.COMPILING, launches.summary(), last]


def test_summary_names_the_refusal():
    launches = verify.Launches(
        fallback=["k0", "k1"], refusals=["Static XPU Triton kernel launch does not support SPIR-V kernel."] * 2
    )
    assert launches.summary() == (
        "static launches set up: 0; fallbacks: 2; Inductor refused static launch: "
        "Static XPU Triton kernel launch does not support SPIR-V kernel."
    )


def test_the_count_hooks_the_real_inductor_classes():
    torch = pytest.importorskip("torch")
    heuristics = pytest.importorskip(verify.HEURISTICS)
    before = (
        heuristics.StaticTritonCompileResult.can_statically_launch,
        heuristics.StaticTritonCompileResult.make_launcher,
        heuristics.TritonCompileResult.make_launcher,
    )
    # Dynamo's eager backend on the CPU: no kernel is made, so nothing is
    # counted, but every hook must find its real attribute, every config key
    # must exist in this torch, and all of it must be put back.
    launches = verify.count_launches(torch, lambda x: x * 2 + 1, torch.ones(8), backend="eager")
    assert launches == verify.Launches() and not launches.ok
    after = (
        heuristics.StaticTritonCompileResult.can_statically_launch,
        heuristics.StaticTritonCompileResult.make_launcher,
        heuristics.TritonCompileResult.make_launcher,
    )
    assert after == before


def test_the_command_on_this_machine_prints_one_line():
    env = {
        "PYTHONPATH": PACKAGE_PARENT,
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "xpu_static_launcher", "verify"], capture_output=True, text=True, env=env, timeout=300
    )
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


# --- Triton-XPU finds no C compiler (the first torch.compile builds its
# helper modules with cl.exe on Windows).

# Triton's own words: 3.3 (the pytorch-triton-xpu of torch 2.13) and 3.9
# (torch 2.15), from triton/runtime/build.py; the venvs hold them, and
# test_the_installed_tritons_say_these_words checks them there.
TRITON_WORDS = [
    "Failed to find C compiler. Please specify via CC environment variable.",
    "Failed to find C compiler. Please specify via CC environment variable or set triton.knobs.build.impl.",
    "Failed to find C++ compiler. Please specify via CXX environment variable.",
]
REPO = Path(__file__).resolve().parents[2]
PROMPT_2022 = (
    r'open an "x64 Native Tools Command Prompt for VS 2022" (or for VS 2026) from the Start menu, or '
    r'in cmd run "C:\Program Files\Microsoft Visual Studio\2022\Community\VC\Auxiliary\Build'
    r'\vcvars64.bat" (from PowerShell: cmd /k "<that path>"; the pattern is <Program Files or Program '
    r"Files (x86)>\Microsoft Visual Studio\<2022, or 18 for VS 2026>\<Community, Professional, Enterprise "
    r"or BuildTools>\VC\Auxiliary\Build\vcvars64.bat; none was found there, so install Visual Studio with "
    r'"Desktop development with C++" if it is missing), then run python -m xpu_static_launcher verify '
    r"again in that prompt"
)


def windows_line(words: str, tail: str) -> str:
    return (
        "Triton-XPU found no C compiler: it builds its helper modules with cl.exe at the first torch.compile, "
        f"and cl.exe is not on PATH ({words}); {tail}"
    )


@pytest.mark.parametrize("words", TRITON_WORDS)
def test_no_c_compiler_on_windows_names_the_prompt_and_vcvars64(words):
    line = verify.no_c_compiler(words, windows=True, environ={}, exists=lambda path: False)
    assert line == windows_line(words, PROMPT_2022)


@pytest.mark.parametrize(
    "installed, name",
    [
        (r"C:\Program Files\Microsoft Visual Studio\2022\Community\VC\Auxiliary\Build\vcvars64.bat", "VS 2022"),
        (r"C:\Program Files (x86)\Microsoft Visual Studio\2022\BuildTools\VC\Auxiliary\Build\vcvars64.bat", "VS 2022"),
        (r"D:\Apps\Microsoft Visual Studio\18\Enterprise\VC\Auxiliary\Build\vcvars64.bat", "VS 2026"),
    ],
)
def test_no_c_compiler_on_windows_names_the_vcvars64_found(installed, name):
    environ = {"ProgramFiles": r"D:\Apps"} if installed.startswith("D:") else {}
    line = verify.no_c_compiler(TRITON_WORDS[0], windows=True, environ=environ, exists=lambda path: path == installed)
    assert line == windows_line(
        TRITON_WORDS[0],
        f'open an "x64 Native Tools Command Prompt for {name}" from the '
        f'Start menu, or in cmd run "{installed}" (from PowerShell: cmd /k "{installed}"), '
        "then run python -m xpu_static_launcher verify again in that prompt",
    )


def test_vcvars64_places_cover_2026_and_2022_every_edition_both_program_files():
    places = verify.vcvars64_candidates({})
    assert len(places) == 16 and len(set(places)) == 16
    assert places[0] == (
        r"C:\Program Files\Microsoft Visual Studio\18\Community\VC\Auxiliary\Build\vcvars64.bat",
        "VS 2026",
    )  # the newest first
    assert (
        r"C:\Program Files (x86)\Microsoft Visual Studio\2022\Professional\VC\Auxiliary\Build\vcvars64.bat",
        "VS 2022",
    ) in places


def test_no_c_compiler_elsewhere_names_a_compiler_to_install():
    assert verify.no_c_compiler(TRITON_WORDS[2], windows=False) == (
        "Triton-XPU found no C compiler for the helper modules it builds at the first torch.compile (Failed to find "
        "C++ compiler. Please specify via CXX environment variable.); install one (Debian/Ubuntu: sudo apt install "
        "g++) or name it in CC and CXX, then run python -m xpu_static_launcher verify again"
    )


def raising_backend(words: str):
    def backend(graph_module, example_inputs):
        raise RuntimeError(words)

    return backend


@pytest.mark.parametrize("words", TRITON_WORDS)
def test_compile_that_finds_no_c_compiler_is_one_clear_line(monkeypatch, words):
    """The failure faked as Triton raises it inside a torch.compile backend:
    Dynamo wraps it as it wraps Inductor's."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(verify, "_is_windows", lambda: True)
    monkeypatch.setattr(verify, "_is_file", lambda path: False)
    monkeypatch.delenv("ProgramFiles", raising=False)
    monkeypatch.delenv("ProgramFiles(x86)", raising=False)
    real_count = verify.count_launches
    monkeypatch.setattr(
        verify,
        "count_launches",
        lambda torch_, fn, *args: real_count(torch, fn, torch.ones(8), torch.ones(8), backend=raising_backend(words)),
    )
    rc, lines = verify_lines(fake_modules(), install_first=False)
    assert rc == 1 and lines == [verify.COMPILING, "verify: FAILED: " + windows_line(words, PROMPT_2022)]


def test_other_compile_failures_keep_their_first_line():
    err = RuntimeError("backend='inductor' raised:\nAssertionError: something else")
    assert verify.compile_failure(err) == (
        "torch.compile of one tiny kernel failed: RuntimeError: backend='inductor' raised:"
    )
    assert verify.compile_failure(err, "the bench's model").startswith("torch.compile of the bench's model failed: ")


def test_the_words_are_found_in_the_errors_it_was_raised_from():
    try:
        try:
            raise RuntimeError(TRITON_WORDS[1])
        except RuntimeError as inner:
            raise ValueError("compile failed") from inner
    except ValueError as err:
        line = verify.compile_failure(err, windows=False)
    assert line.startswith(
        f"Triton-XPU found no C compiler for the helper modules it builds at the first "
        f"torch.compile ({TRITON_WORDS[1]}); "
    )


@pytest.mark.parametrize(
    "venv, code",
    [
        (".venv-triton", "from triton.runtime.build import _build; _build('m', 'm.c', '.', [], [], [])"),
        (".venv-torch-2.15.0", "from triton.runtime.build import _find_compiler; _find_compiler('c')"),
    ],
)
def test_the_installed_tritons_say_these_words(tmp_path, venv, code):
    python = REPO / venv / "bin" / "python3"
    if not python.exists():
        pytest.skip(f"no {venv}")
    proc = subprocess.run(
        [str(python), "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": str(tmp_path), "HOME": str(tmp_path)},
        cwd=str(tmp_path),
    )
    if "No module named 'triton'" in proc.stderr:
        pytest.skip(f"no Triton in {venv}")
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: ")
    assert last[len("RuntimeError: ") :] in TRITON_WORDS
    assert verify.NO_C_COMPILER.search(last).group(0) == last[len("RuntimeError: ") :]
