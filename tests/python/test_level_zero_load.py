"""zebin-info --load through the real Level Zero loader and the test driver.

Linux only (the loader loads the test driver through ZE_ENABLE_ALT_DRIVERS);
the Windows loading path is covered by level_zero_test under wine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux test driver")


def _tool(build: Path) -> Path:
    tool = build / "csrc" / "tools" / "zebin-info"
    if not tool.is_file():
        pytest.skip(f"{tool} not built")
    return tool


def _driver(build: Path) -> Path:
    driver = build / "tests" / "ze_test_driver" / "libxsl_ze_test_driver.so"
    if not driver.is_file():
        pytest.skip(f"{driver} not built")
    return driver


def _run(args: list[str], env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("XSL_LEVEL_ZERO_LOADER", None)
    env.update(env_extra)
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)


def test_load_agrees_with_ze_info(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "spill_pvc_grf128.zebin"
    result = _run(
        [str(_tool(xsl_build_dir)), "--load", str(zebin)], {"ZE_ENABLE_ALT_DRIVERS": str(_driver(xsl_build_dir))}
    )
    assert result.returncode == 0, result.stderr
    assert "load on device 0 (XSL test device):" in result.stdout
    assert "kernel spill: loaded, driver agrees with .ze_info" in result.stdout
    assert "<-- disagree" not in result.stdout


def test_load_json_lists_every_property(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "many_args_pvc_grf128.zebin"
    result = _run(
        [str(_tool(xsl_build_dir)), "--load", "--json", "--device", "1", str(zebin)],
        {"ZE_ENABLE_ALT_DRIVERS": str(_driver(xsl_build_dir)), "XSL_TEST_DRIVER_DEVICES": "2"},
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 2  # metadata, then the load report
    metadata, load = lines
    assert load["device"] == 1 and load["loaded"] is True
    kernels = {k["name"]: k for k in load["kernels"]}
    assert set(kernels) == {k["name"] for k in metadata["kernels"]}
    for kernel in kernels.values():
        assert kernel["agree"] is True
        props = {p["property"]: p for p in kernel["properties"]}
        assert set(props) == {
            "numKernelArgs",
            "spillMemSize",
            "privateMemSize",
            "localMemSize",
            "requiredSubgroupSize",
            "maxSubgroupSize",
        }
        meta = next(k for k in metadata["kernels"] if k["name"] == kernel["name"])
        assert props["numKernelArgs"]["driver"] == len(meta["args"])


def test_load_rejects_zebin_for_another_device(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "add_dg2_grf128.zebin"
    result = _run(
        [str(_tool(xsl_build_dir)), "--load", str(zebin)], {"ZE_ENABLE_ALT_DRIVERS": str(_driver(xsl_build_dir))}
    )
    assert result.returncode == 1
    assert "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY" in result.stdout
    assert "build log: xsl test driver: zebin is for product family 1270" in result.stdout
    assert (
        "the zebin is for another GPU architecture (product family 1270 in its .note.intelgt.compat) "
        "than XPU device 0 ('XSL test device', PCI device id 0x0bd5): compile the kernel for this device"
    ) in result.stdout


def _metadata_then_load_error(result: subprocess.CompletedProcess, zebin: Path) -> str:
    """--load without a usable device still prints the metadata, then one error line."""
    assert result.stdout.startswith(f"{zebin}: zeinfo "), result.stdout
    assert "kernel add: simd" in result.stdout and "load on device" not in result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("zebin-info: --load: "), result.stderr
    return lines[0]


def test_load_without_driver_exits_3(xsl_build_dir: Path, zebin_corpus: Path, tmp_path: Path) -> None:
    zebin = zebin_corpus / "add_pvc_grf128.zebin"
    missing = tmp_path / "libno_driver.so"
    result = _run([str(_tool(xsl_build_dir)), "--load", str(zebin)], {"ZE_ENABLE_ALT_DRIVERS": str(missing)})
    assert result.returncode == 3
    error = _metadata_then_load_error(result, zebin)
    assert (
        f"zeInit failed: ZE_RESULT_ERROR_UNINITIALIZED (driver is not initialized): no driver named in "
        f"ZE_ENABLE_ALT_DRIVERS={missing} initialized" in error
    )
    assert "intel-level-zero-gpu" not in error


def test_load_without_loader_exits_3(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "add_pvc_grf128.zebin"
    result = _run(
        [str(_tool(xsl_build_dir)), "--load", str(zebin)], {"XSL_LEVEL_ZERO_LOADER": "libxsl_no_such_loader.so.1"}
    )
    assert result.returncode == 3
    assert "Level Zero loader not found (libxsl_no_such_loader.so.1)" in _metadata_then_load_error(result, zebin)


def test_load_with_a_driver_but_no_gpu_exits_3(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "add_pvc_grf128.zebin"
    result = _run(
        [str(_tool(xsl_build_dir)), "--json", "--load", str(zebin)],
        {"ZE_ENABLE_ALT_DRIVERS": str(_driver(xsl_build_dir)), "XSL_TEST_DRIVER_DEVICES": "0"},
    )
    assert result.returncode == 3
    assert json.loads(result.stdout)["kernels"][0]["name"] == "add"
    assert result.stderr == (
        "zebin-info: --load: XPU device 0 not found: no Intel GPU; the Level Zero driver is installed but "
        "reports no devices (check that the GPU is present and enabled)\n"
    )


@pytest.mark.parametrize(
    "env,device,expect",
    [
        (
            {"XSL_TEST_DRIVER_DEVICES": "2"},
            "5",
            "XPU device 5 not found: the Level Zero driver has 2 device(s); pass a device index below 2",
        ),
        (
            {"XSL_TEST_DRIVER_DEVICE_TYPE": "vpu", "XSL_TEST_DRIVER_DEVICE_NAME": "Intel(R) AI Boost"},
            "0",
            "XPU device 0 is 'Intel(R) AI Boost' (NPU/VPU, vendor 0x8086), not an Intel GPU: it cannot run zebins; "
            "pass the index of an Intel GPU",
        ),
        (
            {"XSL_TEST_DRIVER_VENDOR": "0x10de"},
            "0",
            "XPU device 0 is 'XSL test device' (GPU, vendor 0x10de), not an Intel GPU",
        ),
    ],
)
def test_load_on_a_bad_device_exits_4(
    xsl_build_dir: Path, zebin_corpus: Path, env: dict[str, str], device: str, expect: str
) -> None:
    zebin = zebin_corpus / "add_pvc_grf128.zebin"
    result = _run(
        [str(_tool(xsl_build_dir)), "--load", "--device", device, str(zebin)],
        dict(env, ZE_ENABLE_ALT_DRIVERS=str(_driver(xsl_build_dir))),
    )
    assert result.returncode == 4
    assert expect in _metadata_then_load_error(result, zebin)


def test_bad_device_option_is_a_usage_error(xsl_build_dir: Path) -> None:
    result = _run([str(_tool(xsl_build_dir)), "--load", "--device", "x", "f.zebin"], {})
    assert result.returncode == 2
    assert "--device needs a device index" in result.stderr


LOAD_KERNEL = """
import sys
from xpu_static_launcher._launcher import StaticXpuLauncher
try:
    StaticXpuLauncher._load_kernel(sys.argv[1], "add", 0, 0)
except RuntimeError as error:
    print(error)
"""


@pytest.mark.parametrize(
    "env,expect",
    [
        (
            {"XSL_LEVEL_ZERO_LOADER": "libxsl_no_such_loader.so.1"},
            "Level Zero loader not found (libxsl_no_such_loader.so.1)",
        ),
        ({"XSL_TEST_DRIVER_DEVICES": "0"}, "XPU device 0 not found: no Intel GPU; the Level Zero driver is installed"),
        (
            {"XSL_TEST_DRIVER_DEVICE_TYPE": "vpu", "XSL_TEST_DRIVER_DEVICE_NAME": "Intel(R) AI Boost"},
            "XPU device 0 is 'Intel(R) AI Boost' (NPU/VPU, vendor 0x8086), not an Intel GPU",
        ),
        (
            {"XSL_TEST_DRIVER_PRODUCT": "dg2"},
            "the zebin is for another GPU architecture (product family 1271 in its .note.intelgt.compat) "
            "than XPU device 0",
        ),
    ],
)
def test_load_kernel_tells_the_cases_apart(
    xsl_build_dir: Path, zebin_corpus: Path, env: dict[str, str], expect: str
) -> None:
    package = xsl_build_dir / "python"
    if not list((package / "xpu_static_launcher").glob("_launcher*")):
        pytest.skip("the Python extensions are not built")
    env = dict(env, ZE_ENABLE_ALT_DRIVERS=str(_driver(xsl_build_dir)), PYTHONPATH=str(package))
    result = _run([sys.executable, "-c", LOAD_KERNEL, str(zebin_corpus / "add_pvc_grf128.zebin")], env)
    assert result.returncode == 0, result.stderr
    assert expect in result.stdout
    assert "intel-level-zero-gpu" not in result.stdout
