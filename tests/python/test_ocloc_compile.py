"""In-process compilation from Python through the C ABI (xsl_compile_capi):
same .ze_info as the subprocess for the same flags, GRF retry, errors."""

from __future__ import annotations

import pytest

from ocloc_support import (
    BACKEND_EXECUTABLE,
    BACKEND_LIBRARY,
    OclocCapi,
    OclocError,
    capi_library_path,
    corpus_spirv,
    ze_info,
)


@pytest.fixture(scope="module")
def capi():
    library = capi_library_path()
    if library is None:
        pytest.skip("xsl_compile_capi is not built in XSL_BUILD_DIR (build the xsl_compile_capi target)")
    return library


@pytest.fixture(scope="module")
def add_spirv():
    spirv = corpus_spirv("add")
    if spirv is None:
        pytest.skip("no SPIR-V corpus in XSL_BUILD_DIR/corpus (build the xsl_zebin_corpus target)")
    return spirv


def open_or_skip(capi, backend):
    try:
        return OclocCapi(capi, backend)
    except OclocError as exc:
        pytest.skip(f"ocloc cannot be opened here: {exc}")


def test_in_process_ze_info_is_byte_identical_to_subprocess(capi, add_spirv):
    with open_or_skip(capi, BACKEND_LIBRARY) as lib, open_or_skip(capi, BACKEND_EXECUTABLE) as exe:
        assert lib.describe()["backend"].startswith("ocloc library")
        assert exe.describe()["backend"].startswith("ocloc executable")
        for flags in ("", "-cl-intel-256-GRF-per-thread"):
            a = lib.compile(add_spirv, "pvc", flags, retry_large_grf=False)
            b = exe.compile(add_spirv, "pvc", flags, retry_large_grf=False)
            assert a.build_flags == b.build_flags == flags
            assert ze_info(a.zebin) == ze_info(b.zebin)
            assert (b"grf_count:       256" in ze_info(a.zebin)) == bool(flags)


def test_spilling_kernel_keeps_the_large_grf_build(capi):
    spirv = corpus_spirv("spill")
    if spirv is None:
        pytest.skip("no spill.spv in the corpus")
    with open_or_skip(capi, BACKEND_LIBRARY) as lib:
        result = lib.compile(spirv, "pvc")
        assert result.build_flags == "-cl-intel-256-GRF-per-thread"
        assert result.spill_bytes > 0
        plain = lib.compile(spirv, "pvc", retry_large_grf=False)
        assert plain.build_flags == "" and plain.spill_bytes > result.spill_bytes


def test_errors_are_clear(capi, add_spirv):
    with open_or_skip(capi, BACKEND_LIBRARY) as lib:
        with pytest.raises(OclocError, match="does not know device 'nosuchgpu'"):
            lib.compile(add_spirv, "nosuchgpu")
        with pytest.raises(OclocError, match="not SPIR-V"):
            lib.compile(b"__kernel void f() {}", "pvc")
    with pytest.raises(OclocError, match="XSL_OCLOC=/nonexistent/ocloc does not exist"):
        OclocCapi(capi, BACKEND_LIBRARY, ocloc_path="/nonexistent/ocloc")
