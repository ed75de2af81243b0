"""Triton-XPU's own launch path (triton-xpu 3.3.0b1 from PyPI) on the real
SYCL runtime and the Level Zero test driver, adapter v1 and v2: runs
tests/triton_xpu/launch_cases.py with triton-xpu's Python in a subprocess
(the stand-in loader must be first on the library path from process start,
as for the glue tests).

triton_xpu_support.py says where triton-xpu's Python is. Triton builds its
native modules with the C++ compiler it finds (clang++ or g++ here).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import glue_support
import triton_xpu_support as triton_xpu

CASES = triton_xpu.TRITON_DIR / "launch_cases.py"

pytestmark = triton_xpu.triton_tests()


@pytest.fixture(scope="module")
def triton_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One Triton cache for both runs: the native modules Triton builds do not
    # depend on the adapter.
    return tmp_path_factory.mktemp("triton-cache")


@pytest.mark.parametrize("adapter", list(triton_xpu.ADAPTERS))
def test_triton_launch_path(adapter: str, triton_cache_dir: Path, tmp_path: Path) -> None:
    env = triton_xpu.environment(adapter, triton_cache_dir)
    result = glue_support.pytest_child(str(triton_xpu.triton_python()), CASES, tmp_path / "inner", env, timeout=1200)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert " passed" in result.stdout and " failed" not in result.stdout, output[-3000:]
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    # Only the SPIR-V JIT call may skip, and only on v2 (ocloc 22.43 has no Xe2).
    if adapter == "v1":
        assert not skipped, output[-3000:]
    assert all("Xe2" in line for line in skipped), output[-3000:]
    print(result.stdout[-2000:], file=sys.stderr)
