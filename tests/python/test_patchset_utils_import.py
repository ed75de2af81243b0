"""PR 2 (utils.py) imported for real: XPU_KERNEL_FORMAT on (faked) Windows and Linux.

The patched utils.py of the installed torch 2.13.0 is executed as
torch._inductor.utils in a subprocess whose sys.platform and shutil.which
are faked, so the Windows branch runs on Linux.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from patchset_support import FETCHED, PATCH_DIR, installed_torch_utils, load_script, wheel_2141_utils

patchset = load_script("patchset")

RUNNER = r"""
import importlib.util, json, logging, os, shutil, sys
import torch, torch._inductor.utils  # load the real dependencies first
cases = json.loads(sys.argv[1])
real_platform, real_which = sys.platform, shutil.which
records = []
class Capture(logging.Handler):
    def emit(self, record):
        records.append([record.levelname, record.getMessage()])
logger = logging.getLogger("torch._inductor.utils")
logger.addHandler(Capture()); logger.setLevel(logging.DEBUG); logger.propagate = False
out = []
for case in cases:
    records.clear()
    sys.platform = case["platform"]
    shutil.which = lambda name, *a, **k: case["ocloc"] if name == "ocloc" else None
    os.environ.pop("TORCHINDUCTOR_XPU_KERNEL_FORMAT", None)
    # A Triton XPU whose make_zebin can use the GPU driver (Triton-XPU patch
    # 0002), answering zebin_compiler_available() with case["driver"].
    for name in ("triton", "triton.backends", "triton.backends.intel", "triton.backends.intel.ocloc"):
        sys.modules.pop(name, None)
    if case.get("driver") is not None:
        import types
        for name in ("triton", "triton.backends", "triton.backends.intel"):
            sys.modules[name] = types.ModuleType(name)
            sys.modules[name].__path__ = []
        stub = types.ModuleType("triton.backends.intel.ocloc")
        stub.zebin_compiler_available = lambda answer=case["driver"]: answer
        sys.modules["triton.backends.intel.ocloc"] = stub
        sys.modules["triton.backends.intel"].ocloc = stub
    if case["env"] is not None:
        os.environ["TORCHINDUCTOR_XPU_KERNEL_FORMAT"] = case["env"]
    spec = importlib.util.spec_from_file_location("torch._inductor.utils", case["path"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.platform, shutil.which = real_platform, real_which
    out.append({"format": module.XPU_KERNEL_FORMAT, "ext": module.GPU_KERNEL_BIN_EXTS["xpu"], "logs": list(records)})
print(json.dumps(out))
"""

CASES = [
    {"platform": "win32", "ocloc": None, "env": None},
    {"platform": "win32", "ocloc": r"C:\oneAPI\ocloc\latest\bin\ocloc.exe", "env": None},
    {"platform": "win32", "ocloc": None, "env": "zebin"},
    {"platform": "win32", "ocloc": r"C:\ocloc.exe", "env": "spv"},
    {"platform": "linux", "ocloc": None, "env": None},
    {"platform": "linux", "ocloc": None, "env": "spv"},
    {"platform": "win32", "ocloc": None, "env": None, "driver": True},
    {"platform": "win32", "ocloc": None, "env": None, "driver": False},
]


def _utils_patch(series: str):
    patch = patchset.Series.load(PATCH_DIR / series).patches()[1]
    assert [f.path for f in patch.files] == ["torch/_inductor/utils.py"]
    return patch


def _patched(utils: bytes, series: str = "v2.13.0") -> bytes:
    patch = _utils_patch(series)
    plan = patchset._apply_hunks(patch, patch.files[0], patchset.TextFile.parse(utils), reverse=False)
    assert plan.state == patchset.UNAPPLIED, plan.problems
    return plan.result.render()


def _run(cases: list[dict]) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(cases)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, list[dict]]:
    tmp = tmp_path_factory.mktemp("utils")
    original = tmp / "original_utils.py"
    patched = tmp / "patched_utils.py"
    original.write_bytes(installed_torch_utils())
    patched.write_bytes(_patched(original.read_bytes()))
    both = _run([dict(c, path=str(patched)) for c in CASES] + [dict(CASES[2], path=str(original))])
    return {"patched": both[: len(CASES)], "original": both[len(CASES) :]}


def test_windows_without_ocloc_keeps_spv_and_says_why(results):
    case = results["patched"][0]
    assert case["format"] == "spv" and case["ext"] == ".spv"
    # torch here is a CPU build, so the reason is logged at info level.
    assert [level for level, _ in case["logs"]] == ["INFO"]
    message = case["logs"][0][1]
    assert "no ocloc on PATH" in message and "cannot compile with the GPU driver" in message
    assert "TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin" in message


def test_windows_without_ocloc_uses_zebin_when_triton_compiles_with_the_driver(results):
    with_driver, without = results["patched"][6], results["patched"][7]
    assert with_driver["format"] == "zebin" and with_driver["ext"] == ".zebin" and with_driver["logs"] == []
    assert without["format"] == "spv" and [level for level, _ in without["logs"]] == ["INFO"]


def test_windows_with_ocloc_uses_zebin(results):
    case = results["patched"][1]
    assert case["format"] == "zebin" and case["ext"] == ".zebin" and case["logs"] == []


def test_env_override_wins_on_windows(results):
    assert results["patched"][2]["format"] == "zebin"
    assert results["patched"][3]["format"] == "spv"
    # Unpatched 2.13.0 ignores the variable on Windows: the bug being fixed.
    assert results["original"][0]["format"] == "spv"


def test_linux_behaviour_is_unchanged(results):
    assert results["patched"][4]["format"] == "zebin" and results["patched"][4]["logs"] == []
    assert results["patched"][5]["format"] == "spv"


@pytest.mark.parametrize(("version", "series"), [("2.14.1", "v2.13.0"), ("2.15.0", "v2.15.0")])
def test_patched_release_utils_is_valid_python_with_the_same_shape(version, series):
    utils = wheel_2141_utils() if version == "2.14.1" else None
    fetched = FETCHED / version / "_inductor" / "utils.py"
    if utils is None and fetched.is_file():
        utils = fetched.read_bytes()
    if utils is None:
        pytest.skip(f"torch {version} utils.py not fetched: run scripts/dev.sh setup")
    # No series is based on 2.14.1; the v2.13.0 hunk fits its text.
    tree = ast.parse(_patched(utils, series))
    names = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            names.append(node.targets[0].id)
        elif isinstance(node, ast.FunctionDef):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.extend(a.asname or a.name for a in node.names)
    # Everything the new function uses exists before it is called.
    call_index = names.index("XPU_KERNEL_FORMAT")
    for needed in ("os", "shutil", "torch", "log", "_IS_WINDOWS", "_xpu_kernel_format"):
        assert needed in names[:call_index], needed
