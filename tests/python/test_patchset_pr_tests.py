"""The test code the PR stack adds to PyTorch, run on the installed torch.

PR 3 ("XPU static launcher: load SPIR-V kernels") changes three of
Inductor's Python files and adds test/inductor/test_xpu_kernel_format.py
(CPU only). The test file is written out of the patch and run as PyTorch's
CI would (`python <file>`, torch's own run_tests), with the installed
torch's utils.py, static_triton_launcher.py and triton_heuristics.py
replaced by their PR 3 versions, in the test process and in the
subprocesses it starts. The same overlay shows that the patched Inductor
takes SPIR-V kernels for a static launch with their build flags, and that
the doctor reads such a torch as one that launches SPIR-V itself. With the
upstream pre-images at hand (XSL_PYTORCH_PREIMAGES), the patched
test_static_triton_launcher.py is imported and run the same way; without a
GPU each of its tests skips, which still proves the module loads with this
torch's test utilities. `scripts/dev.sh test` runs this file on torch 2.13.0
and on the latest release's wheel (2.15.0).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from patchset_support import PATCH_DIR, apply_to_file, load_script

patchset = load_script("patchset")
doctor = load_script("doctor")
torch = pytest.importorskip("torch")

SPIRV_PR = 2  # index of "XPU static launcher: load SPIR-V kernels"
# The Inductor modules PR 3 changes, by the file each one is.
MODULES = {
    "torch._inductor.utils": "torch/_inductor/utils.py",
    "torch._inductor.runtime.static_triton_launcher": "torch/_inductor/runtime/static_triton_launcher.py",
    "torch._inductor.runtime.triton_heuristics": "torch/_inductor/runtime/triton_heuristics.py",
}
FORMAT_TEST = "test/inductor/test_xpu_kernel_format.py"
LAUNCHER_TEST = "test/inductor/test_static_triton_launcher.py"
PREIMAGES = os.environ.get("XSL_PYTORCH_PREIMAGES", "")

# Imports the modules from their patched files, in every process that has
# this folder on PYTHONPATH (the tests start subprocesses too).
SITECUSTOMIZE = """
import importlib.abc, importlib.util, json, os, sys

class _Patched(importlib.abc.MetaPathFinder):
    files = json.loads(os.environ["XSL_PATCHED_MODULES"])

    def find_spec(self, name, path, target=None):
        if name in self.files:
            return importlib.util.spec_from_file_location(name, self.files[name])
        return None

sys.meta_path.insert(0, _Patched())
"""


def _series():
    version = torch.__version__.split("+")[0]
    for series in patchset.list_series(PATCH_DIR):
        if any(version.startswith(v + ".") for v in series.versions):
            return series
    pytest.skip(f"no release series for the installed torch {version}")


def _overlay(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder with PR 3's versions of the installed Inductor modules and the
    import hook, and the environment using it."""
    spirv_pr = _series().patches()[SPIRV_PR]
    assert spirv_pr.subject == "XPU static launcher: load SPIR-V kernels"
    installed = Path(torch.__file__).parent
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    files = {}
    for module, path in MODULES.items():
        patched = overlay / Path(path).name
        patched.write_bytes(apply_to_file(spirv_pr, path, (installed / Path(path).relative_to("torch")).read_bytes()))
        files[module] = str(patched)
    (overlay / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ, XSL_PATCHED_MODULES=json.dumps(files))
    env["PYTHONPATH"] = os.pathsep.join([str(overlay), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # With CI set, torch's test utilities write a JUnit report through
    # xmlrunner (unittest-xml-reporting), which these runs do not need.
    env.pop("CI", None)
    return overlay, env


def _run_test_file(path: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, str(path), "-v"], cwd=path.parent, env=env, capture_output=True, text=True, timeout=600
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    return output


def test_the_kernel_format_unit_tests_pass_on_this_torch(tmp_path):
    series = _series()
    overlay, env = _overlay(tmp_path)
    test_file = tmp_path / Path(FORMAT_TEST).name
    test_file.write_bytes(apply_to_file(series.patches()[SPIRV_PR], FORMAT_TEST, None))
    output = _run_test_file(test_file, env)
    ran = re.search(r"^Ran (\d+) tests?", output, re.M)
    assert ran and int(ran.group(1)) == 4, output[-3000:]
    assert re.search(r"^OK$", output, re.M) and "skipped" not in output, output[-3000:]


# Runs in a process with the overlay: PR 3's Inductor given a Triton SPIR-V
# kernel (a stand-in CompiledKernel) on XPU.
SPIRV_INDUCTOR = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
import launcher_support as support
from torch._inductor.runtime import static_triton_launcher as stl, triton_heuristics as th
spirv = bytes.fromhex("03022307") + bytes(60)
flags = "-cl-intel-256-GRF-per-thread"
compiled = support.StandInCompiledKernel(None, with_scratch_fields=True, spirv=spirv, build_flags=flags)
calls = []
class Launcher:
    @staticmethod
    def _load_kernel(*args):
        calls.append(list(args))
        return (object(), 0, 0)
kernel = stl.statically_launched_kernel_by_device(compiled, "xpu")
raw = kernel.cubin_raw
kernel.__dict__["C_impl"] = Launcher
kernel.cubin_path = os.path.join(sys.argv[2], "k.spv")
kernel.load_kernel(0)
outer = th.StaticTritonCompileResult.can_statically_launch
nested = [c for c in getattr(outer, "__func__", outer).__code__.co_consts if hasattr(c, "co_consts")]
print(json.dumps({"raw": raw == spirv, "flags": kernel.build_flags, "call": calls[0][1:],
                  "refuses": any(sys.argv[3] in c.co_consts for c in nested), "nested": len(nested)}))
"""


def test_the_patched_inductor_takes_spirv_with_its_build_flags(tmp_path):
    overlay, env = _overlay(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", SPIRV_INDUCTOR, str(Path(__file__).parent), str(tmp_path), doctor.SPIRV_REFUSAL],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    flags = "-cl-intel-256-GRF-per-thread"
    # asm["spv"], and _load_kernel(path, name, shared, device, build_flags).
    assert result["raw"] and result["flags"] == flags
    assert len(result["call"]) == 4 and result["call"][2:] == [0, flags]
    # can_statically_launch's nested check no longer holds the refusal.
    assert result["nested"] >= 1 and result["refuses"] is False


def test_the_doctor_reads_the_patched_torch_as_launching_spirv(tmp_path):
    overlay, env = _overlay(tmp_path)
    code = doctor.TORCH_PROBE % {"dists": doctor.TRITON_DISTRIBUTIONS, "refusal": doctor.SPIRV_REFUSAL}
    for environment, expected in ((env, True), (dict(os.environ), False)):
        proc = subprocess.run(
            [sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=600
        )
        line = next(x for x in proc.stdout.splitlines() if x.startswith("XSL-DOCTOR "))
        info = json.loads(line[len("XSL-DOCTOR ") :])
        assert info["torch_launches_spirv"] is expected, info
        assert info["utils_patched"] is expected, info


@pytest.mark.skipif(
    not PREIMAGES, reason="needs the upstream pre-image files (XSL_PYTORCH_PREIMAGES=<dir>/<series>/<path>)"
)
def test_the_patched_launcher_tests_load_on_this_torch(tmp_path):
    series = _series()
    overlay, env = _overlay(tmp_path)
    text = (Path(PREIMAGES) / series.name / LAUNCHER_TEST).read_bytes()
    for patch in series.patches():
        if any(f.path == LAUNCHER_TEST for f in patch.files):
            text = apply_to_file(patch, LAUNCHER_TEST, text)
    test_file = tmp_path / Path(LAUNCHER_TEST).name
    test_file.write_bytes(text)
    output = _run_test_file(test_file, env)
    # No GPU here: every test skips, none errors at import or collection.
    ran = re.search(r"^Ran (\d+) tests?", output, re.M)
    assert ran and int(ran.group(1)) > 20, output[-3000:]
    assert re.search(rf"^OK \(skipped={ran.group(1)}\)$", output, re.M), output[-3000:]
    for name in (
        "test_load_kernel_returns_owned_capsule",
        "test_launch_with_zero_num_warps_raises",
        "test_zero_grid_dimension_is_a_no_op",
        "test_grid_dimension_over_int32_max_raises",
        "test_spirv_kernel",
        "test_format_comes_from_the_content",
        "test_spirv_reports_what_its_zebin_reports",
        "test_a_bad_binary_is_one_error_that_names_it",
        "test_non_ascii_cache_path",
        "test_long_cache_path",
        "test_missing_kernel_binary",
        "test_pointer_check_on_request",
    ):
        assert name in output, name
