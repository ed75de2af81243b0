"""scripts/windows_build_kit.py: the .def of python311.dll from CPython's
headers, the deb-src entries taken from the system's apt sources, which wheel
members are unpacked, and the pins. No download here (scripts/dev.sh test
runs the real fetches for the MSVC builds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchset_support import load_script

kit = load_script("windows_build_kit")


def test_api_declarations_find_functions_and_data() -> None:
    header = """
#define PyAPI_FUNC(RTYPE) RTYPE
/* PyAPI_FUNC(int) Commented_Out(void); */
PyAPI_FUNC(PyObject *) PyLong_FromLong(long);
PyAPI_FUNC(void) _Py_NO_RETURN Py_FatalError(const char *message);
PyAPI_DATA(PyTypeObject) PyLong_Type;
PyAPI_DATA(int) (*PyOS_InputHook)(void);
PyAPI_FUNC(int) PyArg_ParseTuple(PyObject *, const char *, ...);
"""
    assert list(kit.api_declarations(header)) == [
        ("PyLong_FromLong", False),
        ("Py_FatalError", False),
        ("PyLong_Type", True),
        ("PyOS_InputHook", True),
        ("PyArg_ParseTuple", False),
    ]


def test_module_definition_marks_data_adds_size_t_renames_and_drops_non_python_names(tmp_path: Path) -> None:
    (tmp_path / "modsupport.h").write_text(
        "#ifdef PY_SSIZE_T_CLEAN\n#define PyArg_ParseTuple _PyArg_ParseTuple_SizeT\n#endif\n"
        "PyAPI_FUNC(int) PyArg_ParseTuple(PyObject *, const char *, ...);\n"
    )
    (tmp_path / "cpython").mkdir()
    (tmp_path / "cpython" / "stubs.h").write_text(
        "PyAPI_FUNC(int) pthread_create(void);\nPyAPI_DATA(PyObject *) PyExc_TypeError;\n"
    )
    text = kit.module_definition(tmp_path)
    assert text.splitlines() == [
        "LIBRARY python311.dll",
        "EXPORTS",
        "    PyArg_ParseTuple",
        "    PyExc_TypeError DATA",
        "    _PyArg_ParseTuple_SizeT",
    ]


def test_deb_src_entries_mirror_the_deb_entries(tmp_path: Path) -> None:
    (tmp_path / "debian.sources").write_text(
        "Types: deb\n# a comment\nURIs: http://archive.example/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\nSigned-By: /usr/share/keyrings/k.gpg\n\n"
        "Types: deb-src\nURIs: http://archive.example/other\nSuites: x\nComponents: main\n"
    )
    assert kit.deb_src_entries(tmp_path) == (
        "Types: deb-src\nURIs: http://archive.example/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\nSigned-By: /usr/share/keyrings/k.gpg\n"
    )
    assert kit.deb_src_entries(tmp_path / "missing") == ""


def test_wheel_members_unpacked() -> None:
    torch = {
        "torch/include/c10/core/Device.h",
        "torch/lib/c10.lib",
        "torch/lib/torch_cpu.dll",
        "torch/lib/c10.dll",
        "torch/lib/libshm/socket.h",
        "torch/_C.pyi",
    }
    picked = {m: kit.wanted_member("torch", m, torch) for m in sorted(torch)}
    assert picked == {
        "torch/_C.pyi": None,
        "torch/include/c10/core/Device.h": "include/c10/core/Device.h",
        "torch/lib/c10.dll": "lib/c10.dll",
        "torch/lib/c10.lib": "lib/c10.lib",
        "torch/lib/libshm/socket.h": None,
        "torch/lib/torch_cpu.dll": None,
    }
    data = "intel_sycl_rt-2026.2.0.data/data/Library/"
    sycl = {
        data + "bin/sycl9.dll",
        data + "bin/sycl9d.dll",
        data + "bin/libmmd.dll",
        data + "bin/sycl-jit.dll",
        data + "lib/sycl.lib",
        data + "lib/sycld.lib",
        data + "lib/libsycl-crt-nvptx64-nvidia-cuda.bc",
        "intel_sycl_rt-2026.2.0.dist-info/METADATA",
        "intel_sycl_rt-2026.2.0.data/data/include/ur_api.h",
    }
    kept = sorted(r for m in sycl if (r := kit.wanted_member("intel-sycl-rt", m, sycl)))
    assert kept == [
        "Library/bin/libmmd.dll",
        "Library/bin/sycl9.dll",
        "Library/include/ur_api.h",
        "Library/lib/sycl.lib",
    ]


def test_specs_must_be_pinned() -> None:
    assert kit.parse_spec("torch==2.15.0") == ("torch", "2.15.0")
    assert kit.parse_spec("intel_sycl_rt==2026.2.0") == ("intel-sycl-rt", "2026.2.0")
    for spec in ("torch", "torch==2.14.1"):
        with pytest.raises(ValueError, match="not a pinned wheel"):
            kit.parse_spec(spec)
    assert all(len(digest) == 64 for digest in kit.WHEELS.values())
