"""The test code the PR stack adds to PyTorch, run on the installed torch.

PR 3 adds test/inductor/test_xpu_kernel_format.py (CPU only). It is written
out of the patch and run as PyTorch's CI would (`python <file>`, torch's own
run_tests), with torch._inductor.utils replaced by the installed utils.py
with PR 3 applied, in the test process and in the subprocesses it starts.
With the upstream pre-images at hand (XSL_PYTORCH_PREIMAGES), the patched
test_static_triton_launcher.py is imported and run the same way; without a
GPU each of its tests skips, which still proves the module loads with this
torch's test utilities. `scripts/dev.sh test` runs this file on torch 2.13.0
and on the latest release's wheel (2.15.0).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from patchset_support import PATCH_DIR, load_script

patchset = load_script("patchset")
torch = pytest.importorskip("torch")

UTILS = "torch/_inductor/utils.py"
FORMAT_TEST = "test/inductor/test_xpu_kernel_format.py"
LAUNCHER_TEST = "test/inductor/test_static_triton_launcher.py"
PREIMAGES = os.environ.get("XSL_PYTORCH_PREIMAGES", "")

# Imports torch._inductor.utils from the patched file, in every process that
# has this folder on PYTHONPATH (the tests start subprocesses too).
SITECUSTOMIZE = """
import importlib.abc, importlib.util, os, sys

class _PatchedUtils(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "torch._inductor.utils":
            return importlib.util.spec_from_file_location(name, os.environ["XSL_PATCHED_UTILS"])
        return None

sys.meta_path.insert(0, _PatchedUtils())
"""


def _series():
    version = torch.__version__.split("+")[0]
    for series in patchset.list_series(PATCH_DIR):
        if any(version.startswith(v + ".") for v in series.versions):
            return series
    pytest.skip(f"no release series for the installed torch {version}")


def _apply(patch, path: str, before: bytes | None) -> bytes:
    fdiff = next(f for f in patch.files if f.path == path)
    current = patchset.TextFile.parse(before) if before is not None else None
    if fdiff.kind == "new":
        return "".join(line + "\n" for line in fdiff.hunks[0].new_lines).encode()
    plan = patchset._apply_hunks(patch, fdiff, current, reverse=False)
    assert plan.state == patchset.UNAPPLIED, plan.problems
    return plan.result.render()


def _overlay(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder with the patched utils.py and the import hook, and the environment using it."""
    series = _series()
    utils_fix = series.patches()[2]
    installed = Path(torch.__file__).parent / "_inductor" / "utils.py"
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "patched_utils.py").write_bytes(_apply(utils_fix, UTILS, installed.read_bytes()))
    (overlay / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = dict(os.environ, XSL_PATCHED_UTILS=str(overlay / "patched_utils.py"))
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
    test_file.write_bytes(_apply(series.patches()[2], FORMAT_TEST, None))
    output = _run_test_file(test_file, env)
    ran = re.search(r"^Ran (\d+) tests?", output, re.M)
    assert ran and int(ran.group(1)) == 7, output[-3000:]
    assert re.search(r"^OK$", output, re.M) and "skipped" not in output, output[-3000:]


@pytest.mark.skipif(
    not PREIMAGES, reason="needs the upstream pre-image files (XSL_PYTORCH_PREIMAGES=<dir>/<series>/<path>)"
)
def test_the_patched_launcher_tests_load_on_this_torch(tmp_path):
    series = _series()
    overlay, env = _overlay(tmp_path)
    text = (Path(PREIMAGES) / series.name / LAUNCHER_TEST).read_bytes()
    for patch in series.patches():
        if any(f.path == LAUNCHER_TEST for f in patch.files):
            text = _apply(patch, LAUNCHER_TEST, text)
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
        "test_non_ascii_cache_path",
        "test_long_cache_path",
        "test_missing_kernel_binary",
    ):
        assert name in output, name
