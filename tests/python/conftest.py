"""pytest setup shared by every tests/python module.

The build tree under test is $XSL_BUILD_DIR (default build/linux-gcc); its
assembled package <build>/python is put first on sys.path so
``import xpu_static_launcher`` gets the freshly built extensions.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("XSL_BUILD_DIR", str(REPO / "build" / "linux-gcc"))).resolve()

# XSL_SANITIZED_MODULES=1 (scripts/dev.sh's ASan+UBSan leg): this process
# runs with libasan preloaded for the instrumented modules; the programs the
# tests start (ocloc, which dlopens IGC with RTLD_DEEPBIND, refused under
# ASan) run without it.
if os.environ.get("XSL_SANITIZED_MODULES") == "1":
    os.environ.pop("LD_PRELOAD", None)

_package_dir = str(BUILD_DIR / "python")
# XSL_PACKAGE_FROM_ENVIRONMENT=1: the package under test is the one
# installed in this environment (a wheel, test_wheel_runtime.py).
if (
    os.environ.get("XSL_PACKAGE_FROM_ENVIRONMENT") != "1"
    and os.path.isdir(_package_dir)
    and _package_dir not in sys.path
):
    sys.path.insert(0, _package_dir)


@pytest.fixture(scope="session", autouse=True)
def driver_compile_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One folder per run (both xdist workers' and their children's) where
    the test driver keeps what it compiled from SPIR-V: each build is
    compiled once a run (tests/ze_test_driver/spirv_build.h)."""
    if "XSL_TEST_DRIVER_COMPILE_CACHE" not in os.environ:
        base = tmp_path_factory.getbasetemp()
        run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        os.environ["XSL_TEST_DRIVER_COMPILE_CACHE"] = str(run / "test-driver-compile-cache")


@pytest.fixture(scope="session")
def xsl_build_dir() -> Path:
    """The CMake build tree the tests run against."""
    if not BUILD_DIR.is_dir():
        pytest.skip(f"no build tree at {BUILD_DIR}: build a preset or set XSL_BUILD_DIR")
    return BUILD_DIR


@pytest.fixture(scope="session")
def zebin_corpus(xsl_build_dir: Path) -> Path:
    """<build>/corpus: the ocloc-built zebins with manifest.json."""
    corpus = xsl_build_dir / "corpus"
    if not (corpus / "manifest.json").is_file():
        pytest.skip(f"no zebin corpus in {corpus} (ocloc missing?): build target xsl_zebin_corpus")
    return corpus


@pytest.fixture(scope="session")
def exe(xsl_build_dir: Path) -> Path:
    """The build tree's zebin-info executable."""
    from zebin_support import zebin_info_exe

    path = zebin_info_exe(xsl_build_dir)
    if path is None:
        pytest.skip(f"zebin-info not built in {xsl_build_dir}")
    return path


# --- Launcher fixtures shared by the test_launcher_*.py modules, which set up
# the test driver environment (launcher_support.setup_environment) on import
# and skip themselves when it is missing.


@pytest.fixture(scope="module")
def records():
    """The test driver's launch records, with the driver loaded and the
    default command list created (so that setup is not recorded)."""
    import launcher_support as support
    from xpu_static_launcher import _launcher

    _launcher._default_command_list(0)
    return support.DriverRecords()


@pytest.fixture(scope="module")
def add_zebin() -> str:
    """Triton-XPU's pointwise add kernel (with scratch pointers) as a zebin."""
    import launcher_support as support

    return str(support.compile_opencl(support.TRITON_ADD_SOURCE))


@pytest.fixture(scope="module")
def kernels_zebin() -> str:
    """Every scalar type, dynamic shared memory, a zero-argument kernel."""
    import launcher_support as support

    return str(support.compile_opencl(support.LAUNCHER_KERNELS_SOURCE))


@pytest.fixture()
def installed():
    """torch._C._StaticXpuLauncher is the launcher during the test (what
    Inductor's StaticallyLaunchedXpuKernel calls), restored afterwards."""
    import torch
    from xpu_static_launcher._launcher import StaticXpuLauncher

    previous = getattr(torch._C, "_StaticXpuLauncher", None)
    torch._C._StaticXpuLauncher = StaticXpuLauncher
    yield
    if previous is None:
        del torch._C._StaticXpuLauncher
    else:
        torch._C._StaticXpuLauncher = previous
