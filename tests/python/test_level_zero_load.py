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
from typing import Dict, List

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


def _run(args: List[str], env_extra: Dict[str, str]) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("XSL_LEVEL_ZERO_LOADER", None)
    env.update(env_extra)
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)


def test_load_agrees_with_ze_info(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "spill_pvc_grf128.zebin"
    result = _run([str(_tool(xsl_build_dir)), "--load", str(zebin)],
                  {"ZE_ENABLE_ALT_DRIVERS": str(_driver(xsl_build_dir))})
    assert result.returncode == 0, result.stderr
    assert "load on device 0 (XSL test device):" in result.stdout
    assert "kernel spill: loaded, driver agrees with .ze_info" in result.stdout
    assert "<-- disagree" not in result.stdout


def test_load_json_lists_every_property(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "many_args_pvc_grf128.zebin"
    result = _run([str(_tool(xsl_build_dir)), "--load", "--json", "--device", "1", str(zebin)],
                  {"ZE_ENABLE_ALT_DRIVERS": str(_driver(xsl_build_dir)),
                   "XSL_TEST_DRIVER_DEVICES": "2"})
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
        assert set(props) == {"numKernelArgs", "spillMemSize", "privateMemSize",
                              "localMemSize", "requiredSubgroupSize", "maxSubgroupSize"}
        meta = next(k for k in metadata["kernels"] if k["name"] == kernel["name"])
        assert props["numKernelArgs"]["driver"] == len(meta["args"])


def test_load_rejects_zebin_for_another_device(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "add_dg2_grf128.zebin"
    result = _run([str(_tool(xsl_build_dir)), "--load", str(zebin)],
                  {"ZE_ENABLE_ALT_DRIVERS": str(_driver(xsl_build_dir))})
    assert result.returncode == 1
    assert "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY" in result.stdout
    assert "build log: xsl test driver: zebin is for product family 1270" in result.stdout


def test_load_without_driver_exits_2(xsl_build_dir: Path, zebin_corpus: Path, tmp_path: Path) -> None:
    zebin = zebin_corpus / "add_pvc_grf128.zebin"
    result = _run([str(_tool(xsl_build_dir)), "--load", str(zebin)],
                  {"ZE_ENABLE_ALT_DRIVERS": str(tmp_path / "libno_driver.so")})
    assert result.returncode == 2
    assert "no usable GPU driver" in result.stderr
    assert result.stdout == ""


def test_load_without_loader_exits_2(xsl_build_dir: Path, zebin_corpus: Path) -> None:
    zebin = zebin_corpus / "add_pvc_grf128.zebin"
    result = _run([str(_tool(xsl_build_dir)), "--load", str(zebin)],
                  {"XSL_LEVEL_ZERO_LOADER": "libxsl_no_such_loader.so.1"})
    assert result.returncode == 2
    assert "Level Zero loader not found (libxsl_no_such_loader.so.1)" in result.stderr


def test_bad_device_option_is_a_usage_error(xsl_build_dir: Path) -> None:
    result = _run([str(_tool(xsl_build_dir)), "--load", "--device", "x", "f.zebin"], {})
    assert result.returncode == 2
    assert "--device needs a device index" in result.stderr
