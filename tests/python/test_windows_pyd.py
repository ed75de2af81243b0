"""The Windows extension modules built by real MSVC under wine: what they
export and which DLLs they import, read with MSVC's `dumpbin`.

Each build tree in $XSL_WINDOWS_PYD_BUILDS (os.pathsep-separated; scripts/dev.sh
test sets it) is an MSVC build under wine (cmake/toolchains/msvc-wine.cmake)
with the Windows Python kit (cmake/WindowsPythonKit.cmake). Every .pyd there
must export only its PyInit_<name>, and import exactly: python311.dll, the C
runtime (MSVCP140, VCRUNTIME140, the api-ms-win-crt set), KERNEL32.dll (the
Windows API the loader code loads ze_loader.dll with), sycl<N>.dll where the
module runs SYCL (the backend _sycl_launcher_sycl<N> the sycl<N>.dll of its
name), and torch's DLLs only for the PyTorch glue's module. Never
ze_loader.dll: the Level Zero loader is loaded at run time, so a machine
without a GPU driver can still import the package.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("build_wheel", REPO / "scripts" / "build_wheel.py")
assert _spec and _spec.loader
build_wheel = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("build_wheel", build_wheel)
_spec.loader.exec_module(build_wheel)

BUILDS = [Path(p) for p in os.environ.get("XSL_WINDOWS_PYD_BUILDS", "").split(os.pathsep) if p]
REQUIRED = os.environ.get("XSL_REQUIRE_WINDOWS_PYD") == "1"

CRT = re.compile(r"^(msvcp140(_\d)?|vcruntime140(_\d)?|api-ms-win-crt-[a-z0-9-]+)\.dll$")
PYTHON = re.compile(r"^python3\d+\.dll$")
SYCL = re.compile(r"^sycl\d+\.dll$")
TORCH = {"c10.dll", "c10_xpu.dll", "torch.dll", "torch_cpu.dll", "torch_python.dll"}
PACKAGE_MODULES = ("_launcher", "_zebin", "_compile")
# The package's SYCL backend, named for its libsycl major (cmake/SyclBackend.cmake).
SYCL_BACKEND = re.compile(r"^_sycl_launcher_sycl(\d+)$")
# A C++ name whose innermost scope is in c10 or caffe2 (MSVC decoration).
TORCH_OWN_EXPORT = re.compile(r"^\?\S*@(c10|caffe2)@@")


def parse_exports(listing: str) -> list[str]:
    """Names in `dumpbin /exports` output ("ordinal hint RVA name ...")."""
    return re.findall(r"^\s+\d+\s+[0-9A-Fa-f]+\s+[0-9A-Fa-f]{8}\s+(\S+)", listing, re.M)


def parse_dependents(listing: str) -> list[str]:
    """DLLs under "Image has the following [delay load] dependencies:"."""
    names: list[str] = []
    for section in re.split(r"Image has the following (?:delay load )?dependencies:", listing)[1:]:
        in_section: list[str] = []
        for line in section.splitlines()[1:]:
            if not line.strip():
                if in_section:
                    break
                continue
            match = re.match(r"^\s{4}(\S+\.dll)\s*$", line, re.I)
            if not match:
                break
            in_section.append(match.group(1))
        names += in_section
    return names


def dumpbin(build: Path, *args: str) -> str:
    tool = build / "msvc-wine" / "bin" / "dumpbin"
    result = subprocess.run(
        [str(tool), "/nologo", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300
    )
    assert result.returncode == 0, f"dumpbin {' '.join(args)} failed:\n{result.stdout}"
    return result.stdout


def modules_of(build: Path) -> list[Path]:
    """The package's modules (<build>/python) and the glue's (tests/windows_sycl)."""
    folders = (build / "python", build / "tests" / "windows_sycl")
    return sorted(p for folder in folders for p in folder.rglob("*.pyd") if "CMakeFiles" not in p.parts)


def test_parsers_read_dumpbin_output() -> None:
    listing = (
        "Dump of file x.pyd\n\nFile Type: DLL\n\n"
        "  Section contains the following exports for _zebin.cp311-win_amd64.pyd\n\n"
        "    ordinal hint RVA      name\n\n          1    0 000037BF PyInit__zebin = @ILT+10170(PyInit__zebin)\n\n"
        "  Image has the following dependencies:\n\n    python311.dll\n    KERNEL32.dll\n\n"
        "  Image has the following delay load dependencies:\n\n    sycl9.dll\n\n  Summary\n\n        1000 .data\n"
    )
    assert parse_exports(listing) == ["PyInit__zebin"]
    assert parse_dependents(listing) == ["python311.dll", "KERNEL32.dll", "sycl9.dll"]


@pytest.fixture(scope="module", params=BUILDS or [None], ids=lambda b: b.name if b else "none")
def build(request: pytest.FixtureRequest) -> Path:
    build_dir = request.param
    if build_dir is None:
        if REQUIRED:
            pytest.fail("XSL_REQUIRE_WINDOWS_PYD=1 but XSL_WINDOWS_PYD_BUILDS names no build")
        pytest.skip("no MSVC build under wine named in XSL_WINDOWS_PYD_BUILDS (scripts/dev.sh test makes them)")
    if not (build_dir / "msvc-wine" / "bin" / "dumpbin").is_file():
        pytest.fail(f"{build_dir} is not an MSVC build under wine (no msvc-wine/bin/dumpbin)")
    return build_dir


def cache_value(build: Path, name: str) -> str:
    text = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", text, re.M)
    return match.group(1) if match else ""


def test_every_expected_module_was_built(build: Path) -> None:
    found = [p.name.split(".")[0] for p in modules_of(build)]
    backends = [m for m in found if SYCL_BACKEND.match(m)]
    assert len(backends) == 1, f"{build}: SYCL backends {backends}, expected one _sycl_launcher_sycl<N>"
    kits = [k for k in cache_value(build, "XSL_WINDOWS_TORCH_KITS").split(";") if k]
    glue = found.count("_xsl_glue_launcher")
    assert glue == len(kits), f"{build}: {glue} glue modules for the torch kits {kits}"


def test_the_package_modules_were_built() -> None:
    if not BUILDS:
        if REQUIRED:
            pytest.fail("XSL_REQUIRE_WINDOWS_PYD=1 but XSL_WINDOWS_PYD_BUILDS names no build")
        pytest.skip("no MSVC build under wine named in XSL_WINDOWS_PYD_BUILDS")
    found = {p.name.split(".")[0] for b in BUILDS for p in modules_of(b)}
    assert set(PACKAGE_MODULES) <= found, f"missing {sorted(set(PACKAGE_MODULES) - found)} in {BUILDS}"


def test_modules_export_only_pyinit_and_import_only_what_they_may(build: Path) -> None:
    problems: dict[str, str] = {}
    modules = modules_of(build)
    assert modules, f"no .pyd in {build}"
    for module in modules:
        name = module.name.split(".")[0]
        exports = parse_exports(dumpbin(build, "/exports", str(module)))
        backend = SYCL_BACKEND.match(name)
        uses_sycl = bool(backend) or name == "_xsl_glue_launcher"
        uses_torch = name == "_xsl_glue_launcher"
        # torch's headers declare some of their own classes and specializations
        # __declspec(dllexport) outright (C10_EXPORT: c10::ivalue::Future,
        # Object, Await, RRefInterface, caffe2::TypeMeta::_typeMetaData<T>), so
        # every module that includes them re-exports those; none of ours may be.
        extra = [e for e in exports if e != f"PyInit_{name}"]
        if uses_torch:
            extra = [e for e in extra if not TORCH_OWN_EXPORT.search(e)]
        if f"PyInit_{name}" not in exports or extra:
            problems[str(module)] = f"exports {extra or exports}, expected only PyInit_{name}"
            continue
        dependents = [d.lower() for d in parse_dependents(dumpbin(build, "/dependents", str(module)))]
        allowed = [PYTHON, CRT]
        unexpected = [
            d
            for d in dependents
            if not (
                any(p.match(d) for p in allowed)
                or d == "kernel32.dll"
                or (uses_sycl and SYCL.match(d))
                or (uses_torch and d in TORCH)
            )
        ]
        pythons = [d for d in dependents if PYTHON.match(d)]
        sycls = [d for d in dependents if SYCL.match(d)]
        if "ze_loader.dll" in dependents:
            problems[str(module)] = "imports ze_loader.dll (it must be loaded at run time)"
        elif unexpected:
            problems[str(module)] = (
                f"imports {unexpected} beyond Python, the C runtime, KERNEL32"
                + (", SYCL" if uses_sycl else "")
                + (", torch" if uses_torch else "")
            )
        elif len(pythons) != 1:
            problems[str(module)] = f"imports {pythons}, expected one python3X.dll"
        elif uses_sycl and len(sycls) != 1:
            problems[str(module)] = f"imports {sycls}, expected one sycl<N>.dll"
        elif backend and sycls != [f"sycl{backend.group(1)}.dll"]:
            problems[str(module)] = f"imports {sycls}, not the sycl{backend.group(1)}.dll it is named for"
        elif uses_torch and not {"c10.dll", "torch_python.dll"} <= set(dependents):
            problems[str(module)] = f"the glue imports {dependents}, without c10.dll and torch_python.dll"
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_the_wheel_checks_pe_reader_reads_what_dumpbin_reads(build: Path) -> None:
    # scripts/build_wheel.py checks the win_amd64 wheel's imports with its own
    # PE reader (stdlib only, for any host): it must agree with MSVC's dumpbin.
    for module in modules_of(build):
        dependents = parse_dependents(dumpbin(build, "/dependents", str(module)))
        assert build_wheel.pe_imports(module.read_bytes()) == dependents, module


def test_the_pe_reader_reads_delay_load_imports(build: Path, tmp_path: Path) -> None:
    # A delay-loaded sycl9.dll is as much a dependency as an imported one.
    tools = build / "msvc-wine" / "bin"
    (tmp_path / "sycl9.def").write_text("LIBRARY sycl9.dll\nEXPORTS\n    sycl_probe\n")
    (tmp_path / "probe.c").write_text(
        "int sycl_probe(void);\n__declspec(dllexport) int probe(void) { return sycl_probe(); }\n"
    )

    def tool(name: str, *args: str) -> None:
        result = subprocess.run(
            [str(tools / name), "/nologo", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert result.returncode == 0, f"{name} {' '.join(args)}:\n{result.stdout}"

    tool("lib", "/machine:x64", f"/def:{tmp_path}/sycl9.def", f"/out:{tmp_path}/sycl9.lib")
    tool(
        "cl",
        "/LD",
        f"{tmp_path}/probe.c",
        f"/Fo{tmp_path}/probe.obj",
        f"/Fe{tmp_path}/probe.dll",
        "/link",
        f"{tmp_path}/sycl9.lib",
        "delayimp.lib",
        "/DELAYLOAD:sycl9.dll",
    )
    listing = dumpbin(build, "/dependents", str(tmp_path / "probe.dll"))
    assert "delay load dependencies" in listing and "sycl9.dll" in parse_dependents(listing)
    assert build_wheel.pe_imports((tmp_path / "probe.dll").read_bytes()) == parse_dependents(listing)


def test_c10_xpu_def_lists_the_imported_c10_xpu_symbols(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "c10_xpu_def", Path(__file__).resolve().parents[1] / "windows_sycl" / "c10_xpu_def.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    listing = (
        "008 00000000 UNDEF  notype       External     | __imp_?get_raw_device@xpu@c10@@YAAEAVdevice@_V1@sycl@@C@Z\n"
        "009 00000000 UNDEF  notype       External     | __imp_?queue@XPUStream@xpu@c10@@QEBAAEAV0_V1@sycl@@XZ\n"
        "00A 00000000 UNDEF  notype       External     | __imp_?warn@c10@@YAXAEBVWarning@1@@Z\n"
        "00B 00000000 UNDEF  notype       External     | __imp_PyLong_FromLong\n"
        "00C 00000000 SECT1  notype ()    External     | ?device_count@xpu@c10@@YACXZ\n"
    )
    assert module.c10_xpu_imports([listing]) == [
        "?get_raw_device@xpu@c10@@YAAEAVdevice@_V1@sycl@@C@Z",
        "?queue@XPUStream@xpu@c10@@QEBAAEAV0_V1@sycl@@XZ",
    ]
    (tmp_path / "symbols.txt").write_text(listing)
    assert module.main([str(tmp_path / "symbols.txt"), "--out", str(tmp_path / "c10_xpu.def")]) == 0
    assert (tmp_path / "c10_xpu.def").read_text().startswith("LIBRARY c10_xpu.dll\nEXPORTS\n    ?get_raw_device")
