"""PR 3 (utils.py) imported for real: XPU_KERNEL_FORMAT on (faked) Windows and Linux.

The patched utils.py of the installed torch 2.13.0 is executed as
torch._inductor.utils in a subprocess whose sys.platform, shutil.which and
torch.xpu._is_compiled are faked, so the Windows branch of an XPU build runs
on Linux with a CPU torch.
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
real_platform, real_which, real_compiled = sys.platform, shutil.which, torch.xpu._is_compiled
records = []
class Capture(logging.Handler):
    def emit(self, record):
        records.append([record.levelname, record.getMessage()])
logger = logging.getLogger("torch._inductor.utils")
logger.addHandler(Capture()); logger.setLevel(logging.DEBUG); logger.propagate = False
out = []
for case in cases:
    records.clear()
    probes = []
    sys.platform = case["platform"]
    def which(name, *a, **k):
        probes.append(name)
        return case["ocloc"] if name == "ocloc" else None
    shutil.which = which
    torch.xpu._is_compiled = lambda answer=case.get("xpu_build", True): answer
    os.environ.pop("TORCHINDUCTOR_XPU_KERNEL_FORMAT", None)
    if case["env"] is not None:
        os.environ["TORCHINDUCTOR_XPU_KERNEL_FORMAT"] = case["env"]
    spec = importlib.util.spec_from_file_location("torch._inductor.utils", case["path"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    at_import = list(probes)
    formats = [module.XPU_KERNEL_FORMAT, module.XPU_KERNEL_FORMAT]
    ext = module.GPU_KERNEL_BIN_EXTS["xpu"]
    sys.platform, shutil.which, torch.xpu._is_compiled = real_platform, real_which, real_compiled
    out.append({"format": formats[0], "again": formats[1], "ext": ext, "logs": list(records),
                "probes_at_import": at_import, "probes": list(probes)})
print(json.dumps(out))
"""

OCLOC = r"C:\oneAPI\ocloc\latest\bin\ocloc.exe"
CASES = [
    {"platform": "win32", "ocloc": None, "env": None},
    {"platform": "win32", "ocloc": OCLOC, "env": None},
    {"platform": "win32", "ocloc": None, "env": "zebin"},
    {"platform": "win32", "ocloc": OCLOC, "env": "spv"},
    {"platform": "linux", "ocloc": None, "env": None},
    {"platform": "linux", "ocloc": None, "env": "spv"},
    {"platform": "win32", "ocloc": OCLOC, "env": None, "xpu_build": False},
]


def _utils_patch(series: str):
    patch = patchset.Series.load(PATCH_DIR / series).patches()[2]
    assert [f.path for f in patch.files] == ["test/inductor/test_xpu_kernel_format.py", "torch/_inductor/utils.py"]
    return patch


def _patched(utils: bytes, series: str = "v2.13.0") -> bytes:
    patch = _utils_patch(series)
    plan = patchset._apply_hunks(patch, patch.files[1], patchset.TextFile.parse(utils), reverse=False)
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


def test_windows_xpu_build_without_ocloc_keeps_spv_and_warns_once(results):
    case = results["patched"][0]
    assert case["format"] == case["again"] == "spv" and case["ext"] == ".spv"
    # One warning, however often the attribute is read: the probe is cached.
    assert [level for level, _ in case["logs"]] == ["WARNING"] and case["probes"] == ["ocloc"]
    message = case["logs"][0][1]
    assert "ocloc is not on PATH" in message
    # The advice is one that works: "zebin" without a zebin compiler fails in make_zebin.
    assert "TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv" in message and "=zebin" not in message


def test_windows_xpu_build_with_ocloc_uses_zebin(results):
    case = results["patched"][1]
    assert case["format"] == "zebin" and case["ext"] == ".zebin" and case["logs"] == []


def test_import_probes_nothing(results):
    assert all(case["probes_at_import"] == [] for case in results["patched"])


def test_cpu_or_cuda_build_on_windows_does_not_probe(results):
    case = results["patched"][6]
    assert case["format"] == "spv" and case["probes"] == [] and case["logs"] == []


def test_env_override_wins_on_windows_without_a_probe(results):
    assert results["patched"][2]["format"] == "zebin" and results["patched"][2]["probes"] == []
    assert results["patched"][3]["format"] == "spv" and results["patched"][3]["probes"] == []
    # Unpatched 2.13.0 ignores the variable on Windows: the bug being fixed.
    assert results["original"][0]["format"] == "spv"


def test_linux_behaviour_is_unchanged(results):
    assert results["patched"][4]["format"] == "zebin" and results["patched"][4]["logs"] == []
    assert results["patched"][4]["probes"] == []
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
    # The names are module attributes no longer: a module __getattr__ serves them.
    assert "XPU_KERNEL_FORMAT" not in names and "GPU_KERNEL_BIN_EXTS" not in names
    for needed in ("functools", "os", "shutil", "torch", "log", "_IS_WINDOWS", "Any"):
        assert needed in names[: names.index("_xpu_kernel_format")], needed
    assert "__getattr__" in names
