"""The doctor's Level Zero check through the real loader and the test driver.

Each case runs the doctor's device probe in a child process with its own
environment, as on a user's machine: no loader, a driver without devices, a
device that is not an Intel GPU, and an Intel GPU.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from patchset_support import load_script

doctor = load_script("doctor")

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux test driver")


@pytest.fixture(scope="module")
def driver(xsl_build_dir: Path) -> str:
    path = xsl_build_dir / "tests" / "ze_test_driver" / "libxsl_ze_test_driver.so"
    if not path.is_file():
        pytest.skip(f"{path} not built")
    if doctor.Probes().find_library(["libze_loader.so.1"]) is None:
        pytest.skip("no Level Zero loader (libze1) on this machine")
    return str(path)


def level_zero(env: dict[str, str]):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("XSL_TEST_DRIVER_", "ZE_", "XSL_LEVEL_ZERO"))}
    return doctor.check_level_zero(doctor.Probes(env=dict(base, **env)))


def test_missing_loader_is_no_driver_at_all() -> None:
    [finding] = level_zero({"XSL_LEVEL_ZERO_LOADER": "libxsl_no_such_loader.so.1"})
    assert finding.severity == doctor.ERROR
    assert (
        finding.title
        == "no Level Zero driver: the loader (libxsl_no_such_loader.so.1) is missing, so no kernel can run"
    )


def test_driver_without_devices_is_no_intel_gpu(driver: str) -> None:
    [loader, finding] = level_zero({"ZE_ENABLE_ALT_DRIVERS": driver, "XSL_TEST_DRIVER_DEVICES": "0"})
    assert loader.severity == doctor.OK
    assert finding.severity == doctor.ERROR
    assert finding.title == "Level Zero driver present but no Intel GPU: 1 driver(s), no devices"


def test_device_of_another_kind_is_not_an_intel_gpu(driver: str) -> None:
    [_, finding] = level_zero(
        {
            "ZE_ENABLE_ALT_DRIVERS": driver,
            "XSL_TEST_DRIVER_DEVICE_TYPE": "vpu",
            "XSL_TEST_DRIVER_DEVICE_NAME": "Intel(R) AI Boost",
        }
    )
    assert finding.severity == doctor.ERROR
    assert finding.title.startswith("no Intel GPU: the Level Zero devices here are of another kind or vendor")
    assert (
        finding.detail == "XPU device 0 of driver 0: 'Intel(R) AI Boost' (NPU/VPU, vendor 0x8086, PCI device id 0x0bd5)"
    )


def test_intel_gpu_is_listed(driver: str) -> None:
    [_, finding] = level_zero(
        {"ZE_ENABLE_ALT_DRIVERS": driver, "XSL_TEST_DRIVER_DEVICES": "2", "XSL_TEST_DRIVER_PRODUCT": "dg2"}
    )
    assert finding.severity == doctor.OK
    assert (
        finding.title
        == "Intel GPU: XPU device 0 of driver 0: 'XSL test device' (GPU, vendor 0x8086, PCI device id 0x56a0)"
    )
    assert [d["index"] for d in finding.data["devices"]] == [0, 1]


def test_alt_driver_that_does_not_initialize_is_named(driver: str, tmp_path: Path) -> None:
    missing = str(tmp_path / "libnothing.so")
    [_, finding] = level_zero({"ZE_ENABLE_ALT_DRIVERS": missing})
    assert finding.severity == doctor.ERROR
    assert finding.title == f"no driver named in ZE_ENABLE_ALT_DRIVERS={missing} initialized"


def test_ip_version_is_read_for_the_driver_backend(driver: str) -> None:
    [_, finding] = level_zero({"ZE_ENABLE_ALT_DRIVERS": driver, "XSL_TEST_DRIVER_PRODUCT": "dg2"})
    [gpu] = doctor.driver_gpus([finding])
    assert doctor.ip_version_text(gpu["ip_version"]) == "12.55.8"
