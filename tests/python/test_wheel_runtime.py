"""The prebuilt wheel (scripts/build_wheel.py) installed into a fresh venv
and run: the glue's runtime cases with the package's SYCL backend, through
install(), over the test driver, on both Unified Runtime adapters.

The venv sees this environment's packages (torch, pytest, intel-sycl-rt)
through a .pth file and has nothing of its own but the wheel, installed
with pip. scripts/dev.sh runs this file in each of its environments with
the same wheel file (XSL_WHEEL): torch 2.13.0 with intel-sycl-rt 2026.2.0
(the wheel's sycl9 backend), the pinned 2025.3.3 line (sycl8) and torch
2.15.0. Skipped when XSL_WHEEL is not set.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import glue_support
import launcher_support as support
from test_glue_sycl_runtime import CONFIGS, expected_torch

WHEEL = os.environ.get("XSL_WHEEL", "")


def _missing() -> str | None:
    if not WHEEL:
        return "XSL_WHEEL is not set (scripts/dev.sh test builds the wheel and names it)"
    if not Path(WHEEL).is_file():
        return f"XSL_WHEEL={WHEEL} is not a file"
    return glue_support.missing(installed_package=True) or support.missing_prerequisites()


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh venv's Python with the wheel installed by pip."""
    venv = tmp_path_factory.mktemp("wheel-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Every site folder this environment sees, with those its own .pth
    # files add (the dev.sh venvs chain to the project venv that way).
    folders = [sysconfig.get_paths()["purelib"]] + [
        entry for entry in sys.path if entry.endswith(("site-packages", "dist-packages"))
    ]
    Path(site, "xsl-base-environment.pth").write_text("\n".join(dict.fromkeys(folders)) + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", WHEEL],
        check=True,
        env=dict(os.environ, PIP_CONSTRAINT=os.devnull),
    )
    return python


@pytest.mark.parametrize("name", ["v1-two-devices", "v2-two-devices"])
def test_the_wheel_runs_the_glue_cases_through_install(wheel_python, name, tmp_path):
    config = dict(
        CONFIGS[name],
        XSL_GLUE_UNDER_TEST="backend",
        XSL_PACKAGE_FROM_ENVIRONMENT="1",
        XSL_GLUE_EXPECT_TORCH=expected_torch(),
    )
    output = glue_support.run_cases(config, tmp_path / "inner", python=wheel_python)
    # Every case runs for the backend with two devices, install() included,
    # but the SPIR-V ones on adapter v2, whose test device is Xe2: Debian's
    # ocloc 22.43, the test driver's compiler, has no Xe2 target.
    skipped = [line for line in output.splitlines() if line.startswith("SKIPPED")]
    assert all("knows no Xe2" in line for line in skipped), output[-3000:]
    assert not skipped or config["XSL_GLUE_EXPECT_ADAPTER"] == "v2", output[-3000:]
