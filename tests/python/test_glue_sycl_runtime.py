"""The PyTorch glue on the real SYCL runtime: runs
glue_runtime_cases.py in a subprocess for each adapter of
the Unified Runtime (v1 and v2, chosen by the devices' IP version), with one
and two devices, and again behind the Level Zero validation layer. The
package's torch-free backend (_sycl_launcher) runs the same cases on both
adapters with two devices and with forced batches (BACKEND_CONFIGS).

The SYCL runtime reaches the test driver through the driver's stand-in
loader build (tests/ze_test_driver/loader_entry_points.cpp says why the
system loader is not used). Everything else is real: the torch wheel's
libtorch_python, intel-sycl-rt's libsycl and the UR adapters, and the
validation layer from Debian's libze1.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path

import pytest

import glue_support
import launcher_support as support

VALIDATION_LAYER_DIRS = (Path("/usr/lib/x86_64-linux-gnu"), Path("/usr/lib64"), Path("/usr/lib"))
XE_HPC, XE2 = glue_support.XE_HPC, glue_support.XE2


def _missing() -> str | None:
    return glue_support.missing() or support.missing_prerequisites()


# scripts/dev.sh test sets XSL_REQUIRE_GLUE_RUNTIME=1: there a missing build
# is a failure, not a skip.
if os.environ.get("XSL_REQUIRE_GLUE_RUNTIME") == "1" and _missing() is not None:
    raise RuntimeError(f"XSL_REQUIRE_GLUE_RUNTIME=1 but the glue cannot run: {_missing()}")
pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def validation_layer_version() -> tuple[int, ...] | None:
    """The installed validation layer's version, from the file the
    libze_validation_layer.so.1 link resolves to (e.g. ...so.1.8.0)."""
    for folder in VALIDATION_LAYER_DIRS:
        link = folder / "libze_validation_layer.so.1"
        if link.exists():
            suffix = link.resolve().name.split(".so.", 1)[-1]
            try:
                return tuple(int(part) for part in suffix.split("."))
            except ValueError:
                return (1,)
    return None


# Adapter v2 creates its in-order immediate lists with
# ZE_COMMAND_QUEUE_FLAG_IN_ORDER (spec 1.7, loader and layers 1.13); older
# validation layers refuse that flag as an unknown enumeration value.
IN_ORDER_FLAG_LAYER = (1, 13)


CONFIGS: dict[str, dict[str, str]] = {
    "v1": {"XSL_TEST_DRIVER_IP_VERSION": XE_HPC, "XSL_GLUE_EXPECT_ADAPTER": "v1"},
    "v2": {"XSL_TEST_DRIVER_IP_VERSION": XE2, "XSL_GLUE_EXPECT_ADAPTER": "v2"},
    "v1-two-devices": {
        "XSL_TEST_DRIVER_IP_VERSION": XE_HPC,
        "XSL_TEST_DRIVER_DEVICES": "2",
        "XSL_GLUE_EXPECT_ADAPTER": "v1",
    },
    "v2-two-devices": {
        "XSL_TEST_DRIVER_IP_VERSION": XE2,
        "XSL_TEST_DRIVER_DEVICES": "2",
        "XSL_GLUE_EXPECT_ADAPTER": "v2",
    },
    # Adapter v2 batching every queue (commands in regular lists, run at a
    # flush): the glue must not append to the immediate list under them.
    "v2-batched": {"XSL_TEST_DRIVER_IP_VERSION": XE2, "XSL_GLUE_EXPECT_ADAPTER": "v2", "UR_L0_V2_FORCE_BATCHED": "1"},
    # Adapter v2 chosen by SYCL_UR_USE_LEVEL_ZERO_V2 for an Xe-HPC device:
    # the SPIR-V cases, which the Xe2 device cannot run here (ocloc 22.43,
    # the test driver's compiler, has no Xe2 target).
    "v2-spirv": {
        "XSL_TEST_DRIVER_IP_VERSION": XE_HPC,
        "XSL_GLUE_EXPECT_ADAPTER": "v2",
        "SYCL_UR_USE_LEVEL_ZERO_V2": "1",
    },
    "v1-validation": {
        "XSL_TEST_DRIVER_IP_VERSION": XE_HPC,
        "XSL_TEST_DRIVER_DEVICES": "2",
        "XSL_GLUE_EXPECT_ADAPTER": "v1",
        "ZE_ENABLE_VALIDATION_LAYER": "1",
        "ZE_ENABLE_PARAMETER_VALIDATION": "1",
    },
    "v2-validation": {
        "XSL_TEST_DRIVER_IP_VERSION": XE2,
        "XSL_TEST_DRIVER_DEVICES": "2",
        "XSL_GLUE_EXPECT_ADAPTER": "v2",
        "ZE_ENABLE_VALIDATION_LAYER": "1",
        "ZE_ENABLE_PARAMETER_VALIDATION": "1",
    },
}


# The backend shares the glue's launch (csrc/sycl_launch); what is its own
# is where devices, context and stream 0 come from, and the tensor read:
# two devices on each adapter cover those, forced batches the queue check.
BACKEND_CONFIGS = ("v1-two-devices", "v2-two-devices", "v2-batched", "v2-spirv")
RUNS = [(name, "glue") for name in CONFIGS] + [(name, "backend") for name in BACKEND_CONFIGS]


def adapter_v2_batches() -> bool:
    """Whether this environment's Unified Runtime adapter v2 (next to libsycl
    in sys.prefix/lib) has batched queues, which it makes for every queue
    when UR_L0_V2_FORCE_BATCHED is set: intel-sycl-rt 2026.2.0's does,
    2025.3.3's does not know the variable."""
    for library in sorted(Path(sys.prefix, "lib").glob("libur_adapter_level_zero_v2.so*")):
        return b"UR_L0_V2_FORCE_BATCHED" in library.read_bytes()
    return False


def adapters_take_v2_request() -> bool:
    """Whether this environment's Unified Runtime Level Zero adapters read
    SYCL_UR_USE_LEVEL_ZERO_V2, which hands any device to adapter v2."""
    for library in sorted(Path(sys.prefix, "lib").glob("libur_adapter_level_zero_v2.so*")):
        return b"SYCL_UR_USE_LEVEL_ZERO_V2" in library.read_bytes()
    return False


def expected_torch() -> str:
    """The torch release the cases must run on: XSL_GLUE_EXPECT_TORCH when
    set (scripts/dev.sh names the wheel it installed), else the installed
    distribution's version."""
    if "XSL_GLUE_EXPECT_TORCH" in os.environ:
        return os.environ["XSL_GLUE_EXPECT_TORCH"]
    return importlib.metadata.version("torch").split("+", 1)[0]


@pytest.mark.parametrize(
    "name, launcher", RUNS, ids=[name if launcher == "glue" else f"backend-{name}" for name, launcher in RUNS]
)
def test_glue_on_the_sycl_runtime(name, launcher, tmp_path):
    config = dict(CONFIGS[name], XSL_GLUE_UNDER_TEST=launcher)
    if "ZE_ENABLE_VALIDATION_LAYER" in config:
        layer = validation_layer_version()
        if layer is None:
            pytest.skip("libze_validation_layer.so.1 is not installed (Debian: libze1)")
        if config["XSL_GLUE_EXPECT_ADAPTER"] == "v2" and layer < IN_ORDER_FLAG_LAYER:
            pytest.skip(
                f"validation layer {'.'.join(map(str, layer))} predates "
                "ZE_COMMAND_QUEUE_FLAG_IN_ORDER, which adapter v2 uses (needs 1.13)"
            )
    if "UR_L0_V2_FORCE_BATCHED" in config and not adapter_v2_batches():
        pytest.skip("this intel-sycl-rt's adapter v2 has no batched queues (UR_L0_V2_FORCE_BATCHED; 2026.2.0 has them)")
    if "SYCL_UR_USE_LEVEL_ZERO_V2" in config and not adapters_take_v2_request():
        pytest.skip("this intel-sycl-rt's adapters do not read SYCL_UR_USE_LEVEL_ZERO_V2")
    config = dict(config, XSL_GLUE_EXPECT_TORCH=expected_torch())
    output = glue_support.run_cases(config, tmp_path / "inner")
    if name == "v2-spirv":
        # Here the SPIR-V cases run on adapter v2 (-rs lists every skip).
        skips = [line for line in output.splitlines() if line.startswith("SKIPPED")]
        assert not [line for line in skips if "SPIR-V" in line or "Xe2" in line], output[-3000:]
    if config.get("XSL_TEST_DRIVER_DEVICES") == "2":
        assert "needs XSL_TEST_DRIVER_DEVICES=2" not in output, output[-3000:]
