"""PR 3's utils.py imported for real: XPU_KERNEL_FORMAT on (faked) Windows and Linux.

The patched utils.py of the installed torch 2.13.0 is executed as
torch._inductor.utils in a subprocess whose sys.platform is faked, so the
Windows default runs on Linux with a CPU torch. Windows keeps SPIR-V and
honours TORCHINDUCTOR_XPU_KERNEL_FORMAT (opt-in zebin); an unknown value is
one error at import.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from patchset_support import FETCHED, PATCH_DIR, apply_to_file, installed_torch_utils, load_script, wheel_2141_utils

patchset = load_script("patchset")
UTILS = "torch/_inductor/utils.py"

RUNNER = r"""
import importlib.util, json, os, sys
import torch, torch._inductor.utils  # load the real dependencies first
cases = json.loads(sys.argv[1])
real_platform = sys.platform
out = []
for case in cases:
    sys.platform = case["platform"]
    os.environ.pop("TORCHINDUCTOR_XPU_KERNEL_FORMAT", None)
    if case["env"] is not None:
        os.environ["TORCHINDUCTOR_XPU_KERNEL_FORMAT"] = case["env"]
    spec = importlib.util.spec_from_file_location("torch._inductor.utils", case["path"])
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        out.append({"format": module.XPU_KERNEL_FORMAT, "ext": module.GPU_KERNEL_BIN_EXTS["xpu"]})
    except ValueError as err:
        out.append({"error": str(err)})
    finally:
        sys.platform = real_platform
print(json.dumps(out))
"""

CASES = [
    {"platform": "win32", "env": None},
    {"platform": "win32", "env": "zebin"},
    {"platform": "win32", "env": "spv"},
    {"platform": "linux", "env": None},
    {"platform": "linux", "env": "spv"},
    {"platform": "win32", "env": "cubin"},
]


def _utils_patch(series: str):
    patch = patchset.Series.load(PATCH_DIR / series).patches()[2]
    assert patch.subject == "XPU static launcher: load SPIR-V kernels"
    assert UTILS in [f.path for f in patch.files]
    return patch


def _patched(utils: bytes, series: str = "v2.13.0") -> bytes:
    return apply_to_file(_utils_patch(series), UTILS, utils)


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
    both = _run([dict(c, path=str(patched)) for c in CASES] + [dict(CASES[1], path=str(original))])
    return {"patched": both[: len(CASES)], "original": both[len(CASES) :]}


def test_windows_keeps_spirv_by_default(results):
    assert results["patched"][0] == {"format": "spv", "ext": ".spv"}


def test_the_variable_is_an_opt_in_on_windows(results):
    assert results["patched"][1] == {"format": "zebin", "ext": ".zebin"}
    assert results["patched"][2] == {"format": "spv", "ext": ".spv"}
    # Unpatched 2.13.0 ignores the variable on Windows.
    assert results["original"][0]["format"] == "spv"


def test_linux_behaviour_is_unchanged(results):
    assert results["patched"][3] == {"format": "zebin", "ext": ".zebin"}
    assert results["patched"][4] == {"format": "spv", "ext": ".spv"}


def test_an_unknown_format_is_one_error_naming_the_variable(results):
    error = results["patched"][5]["error"]
    assert "TORCHINDUCTOR_XPU_KERNEL_FORMAT='cubin' is not an XPU kernel format" in error
    assert '"spv" or "zebin"' in error


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
    # The getter comes after what it uses, and the constants the other
    # modules import by name are still assigned, from it.
    for needed in ("os", "_IS_WINDOWS"):
        assert needed in names[: names.index("get_xpu_kernel_format")], needed
    getter = names.index("get_xpu_kernel_format")
    assert names.index("XPU_KERNEL_FORMAT") == getter + 1
    assert "GPU_KERNEL_BIN_EXTS" in names[getter:]
