"""torch 2.13.0's and 2.15.0's Inductor launch a real
Triton-XPU 3.3.0b1 SPIR-V kernel statically through the package's SYCL
backend after xpu_static_launcher.install(), on the real SYCL runtime and the
Level Zero test driver (adapter v1), and hostile SPIR-V gives one clear
error. Runs tests/triton_xpu/spirv_inductor_cases.py with triton-xpu's
Python in a subprocess (the stand-in loader must be first on the library
path from process start), as test_triton_xpu_launch.py does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import glue_support
import triton_xpu_support as triton_xpu

CASES = triton_xpu.TRITON_DIR / "spirv_inductor_cases.py"
# Build flags holding this text are refused by the test driver, as a driver
# refuses an option it does not support.
REJECTED_FLAG = "-xsl-option-the-driver-refuses"

pytestmark = triton_xpu.triton_tests()


@pytest.fixture(scope="module")
def triton_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One Triton cache for both runs: Triton's native modules are built once.
    return tmp_path_factory.mktemp("triton-cache")


def run_cases(tmp_path: Path, triton_cache: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    env = triton_xpu.environment(
        "v1",
        triton_cache,
        dict(
            extra,
            # Windows' kernel format, read by torch itself at import.
            TORCHINDUCTOR_XPU_KERNEL_FORMAT="spv",
            XSL_TEST_DRIVER_REJECT_FLAG=REJECTED_FLAG,
            # The run's own kept native binaries.
            XSL_KERNEL_CACHE_DIR=str(tmp_path / "kernel-cache"),
        ),
    )
    return glue_support.pytest_child(
        str(triton_xpu.triton_python()), CASES, tmp_path / "inner", env, *args, timeout=1200
    )


def test_inductor_launches_triton_spirv_statically(tmp_path: Path, triton_cache_dir: Path) -> None:
    result = run_cases(tmp_path, triton_cache_dir)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert " passed" in result.stdout and " failed" not in result.stdout, output[-3000:]
    # Nothing may skip on adapter v1 (2.15.0's sources come with
    # `scripts/dev.sh setup`).
    assert " skipped" not in result.stdout, output[-3000:]
    print(result.stdout[-2000:], file=sys.stderr)
