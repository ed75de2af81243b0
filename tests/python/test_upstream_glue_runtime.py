"""PyTorch's own static_launcher/xpu.cpp with the PR stack applied, run on the
real SYCL runtime and the test driver: the cases of the project's glue
(glue_runtime_cases.py, XSL_GLUE_UNDER_TEST=upstream) in a subprocess for
adapter v1 and v2 with two devices, and behind the validation layer.

Needs an upstream source tree, which CI does not have: configure with
-DXSL_PYTORCH_UPSTREAM_SOURCES=<tree> (patches/pytorch/README.md gives the
commands and records the result); otherwise these tests skip.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import glue_support
import launcher_support as support
from test_glue_sycl_runtime import CONFIGS, IN_ORDER_FLAG_LAYER, expected_torch, validation_layer_version

# The cases of glue_runtime_cases.py that skip for upstream's xpu.cpp: those
# marked PROJECT_ONLY and BACKEND_ONLY (the package's SYCL backend: devices,
# context, install()), and the SPIR-V comparisons (4 kernels x 2 GRF modes)
# without the SPIR-V PR, or on adapter v2, whose Xe2 device no ocloc here
# compiles for. test_the_skip_counts_follow_the_cases keeps them equal to
# the cases file, also where no upstream tree is built.
PROJECT_ONLY_CASES = 3
BACKEND_ONLY_CASES = 5
SPIRV_CASES = 8
# The launch-cost PR's switch (checked pointers on request).
POINTER_CHECK_SWITCH = "TORCHINDUCTOR_STATIC_LAUNCHER_CHECK_POINTERS"


def upstream_tree() -> Path | None:
    """The tree the build took upstream's xpu.cpp from (its CMake cache)."""
    cache = support.BUILD_DIR / "CMakeCache.txt"
    if not cache.is_file():
        return None
    match = re.search(r"^XSL_PYTORCH_UPSTREAM_SOURCES:PATH=(.+)$", cache.read_text(), re.M)
    return Path(match.group(1)) if match else None


def _missing() -> str | None:
    why = glue_support.missing() or support.missing_prerequisites()
    if why:
        return why
    if upstream_tree() is None or not list(glue_support.RUNTIME_MODULE_DIR.glob("_xsl_upstream_launcher*")):
        return (
            "no upstream build: configure with -DXSL_PYTORCH_UPSTREAM_SOURCES=<PyTorch tree "
            "with the PR stack applied> and build xsl_upstream_launcher_test"
        )
    return None


@pytest.mark.skipif(_missing() is not None, reason=_missing() or "")
@pytest.mark.parametrize("name", ["v1-two-devices", "v2-two-devices", "v1-validation"])
def test_upstream_launcher_on_the_sycl_runtime(name, tmp_path):
    config = dict(CONFIGS[name])
    if "ZE_ENABLE_VALIDATION_LAYER" in config:
        layer = validation_layer_version()
        if layer is None:
            pytest.skip("libze_validation_layer.so.1 is not installed (Debian: libze1)")
        if config["XSL_GLUE_EXPECT_ADAPTER"] == "v2" and layer < IN_ORDER_FLAG_LAYER:
            pytest.skip("the validation layer predates ZE_COMMAND_QUEUE_FLAG_IN_ORDER")
    tree = upstream_tree()
    assert tree is not None
    source = (tree / "torch/csrc/inductor/static_launcher/xpu.cpp").read_text()
    config.update(
        XSL_GLUE_UNDER_TEST="upstream",
        XSL_GLUE_EXPECT_TORCH=expected_torch(),
        XSL_UPSTREAM_CAPSULE_FIX="1" if '"(Nii)"' in source else "0",
    )
    loads_spirv = "ZE_MODULE_FORMAT_IL_SPIRV" in source
    config["XSL_UPSTREAM_LOADS_SPIRV"] = "1" if loads_spirv else "0"
    if POINTER_CHECK_SWITCH in source:
        # The launch-cost PR: pointers are checked on request only. Adapter
        # v2 runs with the check off (its default), v1 with it on.
        on = config["XSL_GLUE_EXPECT_ADAPTER"] == "v1"
        config["XSL_UPSTREAM_CHECKS_POINTERS"] = config[POINTER_CHECK_SWITCH] = "1" if on else "0"
    output = glue_support.run_cases(config, tmp_path / "inner")
    # Only the project-only and backend-only cases skip.
    skipped = re.findall(r"SKIPPED \[(\d+)\]", output)
    spirv_skips = 0 if loads_spirv else SPIRV_CASES
    if loads_spirv and config["XSL_GLUE_EXPECT_ADAPTER"] == "v2":
        spirv_skips = SPIRV_CASES  # no ocloc here compiles for adapter v2's Xe2 device
    assert sum(map(int, skipped)) == PROJECT_ONLY_CASES + BACKEND_ONLY_CASES + spirv_skips, output[-3000:]


def test_the_skip_counts_follow_the_cases():
    cases = glue_support.CASES.read_text(encoding="utf-8")
    assert len(re.findall(r"^@PROJECT_ONLY\b", cases, re.M)) == PROJECT_ONLY_CASES
    assert len(re.findall(r"^@BACKEND_ONLY\b", cases, re.M)) == BACKEND_ONLY_CASES
    spirv = re.search(
        r'((?:@pytest\.mark\.parametrize\("\w+", \[[^\]]*\]\)\n)+)def test_spirv_reports_what_the_driver_compiled',
        cases,
    )
    assert spirv is not None
    combinations = 1
    for values in re.findall(r"\[([^\]]*)\]", spirv.group(1)):
        combinations *= len(values.split(","))
    assert combinations == SPIRV_CASES
