"""The SYCL launch's two paths on one kernel (sycl_launch_paths_cases.py):
a direct append after a SYCL submit must set again the arguments and group
size the submit left on the shared Level Zero kernel. Runs the cases in a
child process on adapter v2 (the only adapter that appends directly), for
the PyTorch glue and the package's torch-free backend.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import glue_support
import launcher_support as support

CASES = Path(__file__).with_name("sycl_launch_paths_cases.py")


def _missing() -> str | None:
    return glue_support.missing() or support.missing_prerequisites()


if os.environ.get("XSL_REQUIRE_GLUE_RUNTIME") == "1" and _missing() is not None:
    raise RuntimeError(f"XSL_REQUIRE_GLUE_RUNTIME=1 but the glue cannot run: {_missing()}")
pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


@pytest.mark.parametrize("launcher", ["glue", "backend"])
def test_sycl_launch_paths_on_adapter_v2(launcher, tmp_path):
    env = glue_support.glue_environment(
        {"XSL_TEST_DRIVER_IP_VERSION": glue_support.XE2, "XSL_GLUE_UNDER_TEST": launcher}
    )
    result = glue_support.pytest_child(sys.executable, CASES, tmp_path / "inner", env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert " passed" in result.stdout and " skipped" not in result.stdout, output[-3000:]
