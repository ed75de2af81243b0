"""ocloc in process (libocloc) and as a subprocess, through the package's
compile_spirv: the same .ze_info for the same flags, GRF retry, errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from launcher_support import PACKAGE_DIR
from ocloc_support import corpus_spirv, ze_info

xc = pytest.importorskip("xpu_static_launcher.compile", reason="xpu_static_launcher._compile is not built")


@pytest.fixture(scope="module")
def add_spirv():
    spirv = corpus_spirv("add")
    if spirv is None:
        pytest.skip("no SPIR-V corpus in XSL_BUILD_DIR/corpus (build the xsl_zebin_corpus target)")
    return spirv


def backend_or_skip(backend: str) -> str:
    try:
        info = xc.find_compiler(backend)
    except xc.ZebinCompileError as exc:
        pytest.skip(f"ocloc cannot be opened here: {exc}")
    return str(info["backend"])


def test_in_process_ze_info_is_byte_identical_to_subprocess(add_spirv):
    assert backend_or_skip("ocloc-library").startswith("ocloc library")
    assert backend_or_skip("ocloc-executable").startswith("ocloc executable")
    for flags in ("", "-cl-intel-256-GRF-per-thread"):
        a = xc.compile_spirv(add_spirv, "pvc", flags, backend="ocloc-library", retry_large_grf=False)
        b = xc.compile_spirv(add_spirv, "pvc", flags, backend="ocloc-executable", retry_large_grf=False)
        assert a["build_flags"] == b["build_flags"] == flags
        assert ze_info(a["zebin"]) == ze_info(b["zebin"])
        assert (b"grf_count:       256" in ze_info(a["zebin"])) == bool(flags)


def test_spilling_kernel_keeps_the_large_grf_build():
    spirv = corpus_spirv("spill")
    if spirv is None:
        pytest.skip("no spill.spv in the corpus")
    backend_or_skip("ocloc-library")
    result = xc.compile_spirv(spirv, "pvc", backend="ocloc-library")
    assert result["build_flags"] == "-cl-intel-256-GRF-per-thread"
    assert result["spill_bytes"] > 0 and result["large_grf"]
    plain = xc.compile_spirv(spirv, "pvc", backend="ocloc-library", retry_large_grf=False)
    assert plain["build_flags"] == "" and plain["spill_bytes"] > result["spill_bytes"]


def test_errors_are_clear(add_spirv):
    backend_or_skip("ocloc-library")
    with pytest.raises(xc.ZebinCompileError, match="does not know device 'nosuchgpu'"):
        xc.compile_spirv(add_spirv, "nosuchgpu", backend="ocloc-library")
    with pytest.raises(xc.ZebinCompileError, match="not SPIR-V"):
        xc.compile_spirv(b"__kernel void f() {}", "pvc", backend="ocloc-library")
    with pytest.raises(ValueError, match="backend must be one of auto, ocloc, ocloc-library, ocloc-executable"):
        xc.compile_spirv(add_spirv, "pvc", backend="ocloc-dll")
    # An explicit ocloc that is not there is an error, not a fallback (in a
    # child: this process keeps the compiler it opened).
    code = "from xpu_static_launcher import compile as xc; xc.find_compiler('ocloc-library')"
    env = dict(os.environ, XSL_OCLOC="/nonexistent/ocloc", PYTHONPATH=str(PACKAGE_DIR))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 1
    assert "ZebinCompileError" in proc.stderr and "XSL_OCLOC=/nonexistent/ocloc does not exist" in proc.stderr


def test_backend_names_are_the_modules_table():
    # One list: the names C++ parses are the ones the Python API checks first.
    assert xc.BACKENDS is xc._compile.BACKENDS
    assert xc.BACKENDS == ("auto", "ocloc", "ocloc-library", "ocloc-executable", "driver")
    names = ", ".join(xc.BACKENDS)
    with pytest.raises(ValueError, match=f"zebin compiler 'ocloc-dll' is not one of {names}$"):
        xc._compile.find("ocloc-dll", "")
