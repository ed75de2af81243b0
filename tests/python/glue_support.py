"""Where the PyTorch glue's runtime build lives and the environment it runs
in (tests/python/test_glue_sycl_runtime.py, tests/bench/bench_glue_launch.py).

The SYCL runtime reaches the Level Zero test driver through the driver's
stand-in loader build: its folder goes first on the library search path,
which the dynamic linker reads only at process start, so the glue always
runs in a child process with this environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from launcher_support import BUILD_DIR, PACKAGE_DIR

CASES = Path(__file__).with_name("glue_runtime_cases.py")

# The test modules _xsl_torch_glue (helpers) and _xsl_glue_launcher (the
# glue); the package's torch-free backend _sycl_launcher is under PACKAGE_DIR.
RUNTIME_MODULE_DIR = BUILD_DIR / "tests" / "torch_glue"
LOADER_DIR = BUILD_DIR / "tests" / "ze_test_driver" / "loader"

# Device IP versions: Xe-HPC (pvc) selects the Unified Runtime's Level Zero
# adapter v1, Xe2 (0x05004000) and newer select v2.
XE_HPC = "0x030f0007"
XE2 = "0x05004000"


def missing(installed_package: bool = False) -> str | None:
    """Why the glue cannot run here, or None. installed_package: the
    package comes from the environment (an installed wheel), not the build."""
    if sys.platform != "linux":
        return "the glue runtime module is built on Linux only"
    if not installed_package and not list((PACKAGE_DIR / "xpu_static_launcher").glob("_sycl_launcher_sycl*")):
        return (
            f"the SYCL backend _sycl_launcher is not built under {PACKAGE_DIR} "
            "(needs intel-sycl-rt: bash scripts/dev.sh setup)"
        )
    for module in ("_xsl_torch_glue", "_xsl_glue_launcher"):
        if not list(RUNTIME_MODULE_DIR.glob(f"{module}*")):
            return f"test module {module} not built under {RUNTIME_MODULE_DIR}"
    if not (LOADER_DIR / "libze_loader.so.1").is_file():
        return f"stand-in loader not built under {LOADER_DIR}"
    return None


def glue_environment(config: dict[str, str]) -> dict[str, str]:
    """The environment the glue runs in: the stand-in loader first on the
    library path (for the SYCL runtime and the glue's own Level Zero calls
    alike), no other driver or runtime setting inherited, and the
    configuration's device settings on top. XSL_PACKAGE_FROM_ENVIRONMENT=1
    in the configuration: xpu_static_launcher is the one installed in the
    environment (a wheel), the build's package is not put first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XSL_TEST_DRIVER_", "ZE_", "UR_", "SYCL_"))}
    if "XSL_TEST_DRIVER_COMPILE_CACHE" in os.environ:  # the run's (conftest.py)
        env["XSL_TEST_DRIVER_COMPILE_CACHE"] = os.environ["XSL_TEST_DRIVER_COMPILE_CACHE"]
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        [str(LOADER_DIR)] + [p for p in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
    )
    env["ZEL_LIBRARY_PATH"] = str(LOADER_DIR)
    env["XSL_GLUE_RUNTIME"] = "1"
    env["XSL_BUILD_DIR"] = str(BUILD_DIR)
    first = [] if config.get("XSL_PACKAGE_FROM_ENVIRONMENT") == "1" else [str(PACKAGE_DIR)]
    env["PYTHONPATH"] = os.pathsep.join(first + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(config)
    return env


def pytest_child(
    python: str, cases: Path, basetemp: Path, env: dict[str, str], *args: str, timeout: int = 600
) -> subprocess.CompletedProcess[str]:
    """A cases file run by pytest in a child process of `python` (its own
    environment: the library search path is read at process start), every
    skip listed with its reason (-rs)."""
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", "--basetemp", str(basetemp), str(cases)]
    return subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=timeout)


def run_cases(config: dict[str, str], basetemp: Path, python: str = sys.executable) -> str:
    """Run glue_runtime_cases.py in a child process of `python` with
    glue_environment(config); returns its output after checking that it
    passed."""
    env = glue_environment(config)
    # The kept native binaries of SPIR-V loads: the run's own folder.
    env.setdefault("XSL_KERNEL_CACHE_DIR", str(basetemp.parent / "kernel-cache"))
    result = pytest_child(python, CASES, basetemp, env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert " passed" in result.stdout and " failed" not in result.stdout, output[-3000:]
    return result.stdout


def run_bench_in_child(script: str, adapter: str, missing_too: str | None = None) -> int:
    """A benchmark's parent half: the same script run again in a child with
    glue_environment on `adapter` (v1 or v2) and the test driver in
    no-record mode (the library search path is read at process start);
    returns its exit status, or 2 with the reason when the glue cannot run."""
    missing_now = missing() or missing_too
    if missing_now is not None:
        print(f"cannot run: {missing_now}", file=sys.stderr)
        return 2
    ip_version = XE2 if adapter == "v2" else XE_HPC
    env = glue_environment({"XSL_TEST_DRIVER_IP_VERSION": ip_version, "XSL_TEST_DRIVER_NO_RECORD": "1"})
    return subprocess.run([sys.executable, script] + sys.argv[1:], env=env).returncode
