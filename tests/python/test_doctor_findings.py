"""Every doctor finding, driven through injected probes (Windows faked on Linux)."""

from __future__ import annotations

import json

import pytest

from patchset_support import load_script

doctor = load_script("doctor")

WIN_TEMP = r"C:\Users\averagedeveloper\AppData\Local\Temp"


class FakeProbes(doctor.Probes):
    def __init__(
        self, platform="win32", env=None, files=(), registry=None, symbols=None, ocloc=None, torch_info=None, ze=None
    ):
        super().__init__(python="python-under-test", env=env or {})
        self.platform = platform
        self.files = set(files)
        self.registry = registry or {}
        self.symbols = symbols
        self.ocloc = ocloc
        self.torch_info = torch_info or {}
        self.ze = ze if ze is not None else {"init_error": "0x78000001"}
        self.commands = []

    def level_zero_devices(self, loader):
        return self.ze

    def is_file(self, path):
        return path in self.files

    def registry_dword(self, key, value):
        return self.registry.get((key, value))

    def find_ocloc(self):
        if self.ocloc is not None:
            return self.ocloc
        return doctor._fallback_find_ocloc(self.env, self.windows, self.is_file)

    def library_symbols(self, path, names):
        return set(names) if self.symbols is None else set(self.symbols)

    def library_version(self, path):
        return "1.17.6"

    def temp_dir(self):
        return WIN_TEMP if self.windows else "/tmp"

    def user_name(self):
        return "averagedeveloper"

    def run(self, argv, timeout=120):
        self.commands.append(list(argv))
        return (0, "noise\nXSL-DOCTOR " + json.dumps(self.torch_info) + "\n", "")


def windows_with_loader(*more_files, **probes):
    """A Windows machine with the Level Zero loader in System32."""
    return FakeProbes(
        env={"SystemRoot": r"C:\Windows"}, files={r"C:\Windows\System32\ze_loader.dll", *more_files}, **probes
    )


def by_check(findings, check):
    return [f for f in findings if f.check == check]


def test_no_ocloc_lists_where_it_looked():
    probes = FakeProbes(env={"PATH": r"C:\Windows;C:\Python311", "ONEAPI_ROOT": r"D:\oneAPI"})
    [finding] = doctor.check_ocloc(probes)
    assert finding.severity == doctor.ERROR
    assert r"C:\Windows\ocloc.exe" in finding.detail
    assert r"D:\oneAPI\ocloc\latest\bin\ocloc.exe" in finding.detail
    assert "vars.bat" in finding.fix


def test_ocloc_found_on_path_is_ok():
    probes = FakeProbes(env={"PATH": r"C:\tools"}, files={r"C:\tools\ocloc.exe"})
    [finding] = doctor.check_ocloc(probes)
    assert finding.severity == doctor.OK and r"C:\tools\ocloc.exe" in finding.title


def test_ocloc_off_path_is_a_warning_with_the_folder_to_add():
    report = doctor.OclocReport(r"C:\oneAPI\ocloc\latest\bin\ocloc.exe", "25.05", "oneAPI", [])
    [finding] = doctor.check_ocloc(FakeProbes(ocloc=report))
    assert finding.severity == doctor.WARNING and "not on PATH" in finding.title
    assert finding.fix.startswith(r"cmd: set PATH=C:\oneAPI\ocloc\latest\bin;%PATH%")
    assert r"PowerShell: $env:PATH = 'C:\oneAPI\ocloc\latest\bin;' + $env:PATH" in finding.fix
    assert "patch 0003" not in finding.detail and "only PATH counts when zebin is asked for" in finding.detail


def test_real_discovery_module_is_loaded():
    probes = doctor.Probes(env={"PATH": "/nonexistent-xsl"})
    report = probes.find_ocloc()
    assert not any("ocloc_discovery.py failed" in t for t in report.tried)
    assert any("/nonexistent-xsl" in t for t in report.tried)


def test_ocloc_discovery_module_result_is_used():
    report = doctor._report_from_discovery(
        type("Found", (), {"path": "/x/ocloc", "version": "24.35", "source": "PATH", "tried": ["/a", "/x/ocloc"]})()
    )
    probes = FakeProbes(ocloc=report)
    [finding] = doctor.check_ocloc(probes)
    assert finding.severity == doctor.OK and "from PATH, version 24.35" in finding.title
    missing = doctor._report_from_discovery(type("Missing", (), {"path": None, "found": False, "tried": ["/a"]})())
    assert missing.path is None and missing.tried == ["/a"]


@pytest.mark.parametrize(
    "env,patched,expect",
    [
        ({}, False, "picks spv on Windows"),
        ({}, True, "its Inductor refuses to launch SPIR-V kernels statically"),
        ({"TORCHINDUCTOR_XPU_KERNEL_FORMAT": "spv"}, True, "TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv is set"),
    ],
)
def test_kernel_format_spv_explains_the_cause(env, patched, expect):
    probes = FakeProbes(env=env)
    [finding] = doctor.check_kernel_format(probes, {"kernel_format": "spv", "utils_patched": patched})
    assert finding.severity == doctor.ERROR
    assert expect in finding.detail and "silently" in finding.detail
    assert finding.fix


def test_kernel_format_zebin_is_ok():
    [finding] = doctor.check_kernel_format(FakeProbes(), {"kernel_format": "zebin"})
    assert finding.severity == doctor.OK


def test_static_launcher_missing_in_a_source_built_torch_names_the_rebuild():
    # Only a torch built from source (an editable checkout) is offered route (b).
    info = {"torch": "2.13.0a0+git", "xpu_compiled": True, "static_launcher": False, "source_build": True}
    [finding] = doctor.check_static_launcher(info, windows=True)
    assert finding.severity == doctor.ERROR and "_StaticXpuLauncher is missing" in finding.title
    assert "harness.py all" in finding.fix and "as this torch is built from source" in finding.fix
    assert finding.fix.index("Route (a)") < finding.fix.index("harness.py all")
    # The harness builds PyTorch on Windows only: elsewhere the fix names the patchset.
    [linux] = doctor.check_static_launcher(info, windows=False)
    assert "harness.py" not in linux.fix and "scripts/patchset.py apply <checkout>" in linux.fix


@pytest.mark.parametrize(
    "package",
    [
        None,
        {"version": "0.1.0", "status": "not-xpu", "message": "nothing installed: torch 2.15.0+cpu is not an XPU build"},
    ],
)
def test_cpu_torch_is_the_error_with_the_xpu_wheel_in_a_fresh_venv(package):
    info = {"torch": "2.15.0+cpu", "xpu_compiled": False}
    if package:
        info["package"] = package
    [cpu] = doctor.check_static_launcher(info, windows=True)
    assert cpu.severity == doctor.ERROR and cpu.check == "torch"
    assert cpu.title == "torch 2.15.0+cpu is a CPU-only build: nothing runs on the Intel GPU"
    assert "fresh venv: py -3 -m venv C:\\xsl\\venv" in cpu.fix
    assert f"pip install torch --index-url {doctor.XPU_WHEEL_INDEX}" in cpu.fix
    assert "harness" not in cpu.fix and "PR stack" not in cpu.fix and "--no-build-isolation" not in cpu.fix
    assert "Requirement already satisfied" in cpu.detail
    [cpu_linux] = doctor.check_static_launcher(info, windows=False)
    assert "python3 -m venv" in cpu_linux.fix and "harness.py" not in cpu_linux.fix and "--index-url" in cpu_linux.fix
    [ok] = doctor.check_static_launcher(
        {"torch": "2.13.0+xpu", "xpu_compiled": True, "static_launcher": True}, windows=True
    )
    assert ok.severity == doctor.OK


def test_no_linux_fix_suggests_the_windows_only_harness_command(capsys):
    probes = FakeProbes(
        platform="linux",
        env={"PATH": ""},
        torch_info={
            "torch": "2.13.0+cpu",
            "xpu_compiled": False,
            "kernel_format": "spv",
            "utils_patched": False,
            "dists": {},
        },
    )
    doctor.main([], probes=probes)
    assert "harness.py all" not in capsys.readouterr().out
    probes.torch_info = {
        "torch": "2.13.0+xpu",
        "xpu_compiled": True,
        "static_launcher": False,
        "kernel_format": "spv",
        "dists": {},
    }
    doctor.main([], probes=probes)
    assert "harness.py all" not in capsys.readouterr().out


def test_triton_mismatch_shows_a_version_table_and_attrs_descriptor():
    info = {
        "torch": "2.13.0+xpu",
        "xpu_compiled": True,
        "dists": {"pytorch-triton-xpu": "3.3.0", "triton": "3.4.0"},
        "torch_requires": ['pytorch-triton-xpu==3.5.0; platform_system == "Windows"'],
        "triton": "3.4.0",
        "inductor_import_error": "ImportError: cannot import name 'AttrsDescriptor' from 'triton.backends.compiler'",
    }
    findings = doctor.check_triton(info)
    titles = " | ".join(f.title for f in findings)
    assert all(f.severity == doctor.ERROR for f in findings)
    assert "several Triton distributions" in titles
    assert "needs pytorch-triton-xpu==3.5.0" in titles
    assert "AttrsDescriptor moved between Triton releases" in titles
    table = findings[0].detail
    assert "installed pytorch-triton-xpu" in table and "3.3.0" in table and "required by torch" in table
    assert "pip uninstall -y pytorch-triton-xpu triton && pip install pytorch-triton-xpu==3.5.0" in findings[0].fix


def test_source_build_uses_the_checkout_pin():
    info = {
        "torch": "2.13.0a0+git",
        "xpu_compiled": True,
        "dists": {"pytorch-triton-xpu": "3.4.0"},
        "torch_requires": [],
        "source_pin": "pytorch-triton-xpu==3.5.0",
        "triton": "3.4.0",
    }
    [finding] = doctor.check_triton(info)
    assert finding.severity == doctor.ERROR and "needs pytorch-triton-xpu==3.5.0" in finding.title


def test_triton_fix_takes_the_pin_from_the_wheel_metadata():
    info = {
        "torch": "2.13.0+xpu",
        "xpu_compiled": True,
        "dists": {},
        "torch_requires": ['triton==3.4.0; extra == "cuda"', 'pytorch-triton-xpu==3.5.0; platform_system == "Linux"'],
    }
    [finding] = doctor.check_triton(info)
    assert finding.fix == f"pip install pytorch-triton-xpu==3.5.0 --index-url {doctor.XPU_WHEEL_INDEX}"


def test_triton_fix_takes_the_pin_from_a_checkout(tmp_path):
    checkout = tmp_path / "pytorch"
    (checkout / ".ci" / "docker").mkdir(parents=True)
    (checkout / ".ci" / "docker" / "triton_xpu_version.txt").write_text("3.6.0\n")
    info = {
        "torch": "2.13.0a0+gitcf30153",
        "xpu_compiled": True,
        "dists": {"pytorch-triton-xpu": "3.4.0"},
        "torch_requires": [],
        "triton": "3.4.0",
        "source_root": str(tmp_path / "site-packages"),
    }
    probes = FakeProbes(env={"PATH": ""}, torch_info=info)
    findings = by_check(doctor.run_checks(probes, src=checkout), "triton")
    [finding] = findings
    assert "needs pytorch-triton-xpu==3.6.0" in finding.title
    assert "pip install pytorch-triton-xpu==3.6.0 --index-url" in finding.fix
    assert str(checkout / ".ci" / "docker" / "triton_xpu_version.txt") in finding.detail
    # torch's own folder (an editable source build) is read first.
    (tmp_path / "site-packages" / ".ci" / "docker").mkdir(parents=True)
    (tmp_path / "site-packages" / ".ci" / "docker" / "triton_xpu_version.txt").write_text("3.7.0\n")
    [first] = by_check(doctor.run_checks(probes, src=checkout), "triton")
    assert "needs pytorch-triton-xpu==3.7.0" in first.title


@pytest.mark.parametrize(
    "torch_info,where",
    [
        (
            {"torch": "2.13.0a0+gitcf30153", "git_version": "cf30153c4c131c8164ee7798e5022d810682e2cb"},
            "https://github.com/pytorch/pytorch/blob/cf30153c4c131c8164ee7798e5022d810682e2cb/.ci/docker/triton_xpu_version.txt",
        ),
        (
            {"torch": "2.13.0+xpu", "git_version": "Unknown"},
            "https://github.com/pytorch/pytorch/blob/v2.13.0/.ci/docker/triton_xpu_version.txt",
        ),
    ],
)
def test_triton_fix_without_a_pin_says_where_to_look(torch_info, where):
    info = dict(torch_info, xpu_compiled=True, dists={}, torch_requires=[])
    [finding] = doctor.check_triton(info)
    assert "<the version in" not in finding.fix
    assert finding.fix.startswith(f"Take <version> from {where} (the file .ci/docker/triton_xpu_version.txt")
    assert finding.fix.endswith(f"pip install pytorch-triton-xpu==<version> --index-url {doctor.XPU_WHEEL_INDEX}")
    assert "--src <checkout>" in finding.fix


def test_triton_matching_is_ok():
    info = {
        "torch": "2.13.0+xpu",
        "dists": {"pytorch-triton-xpu": "3.5.0"},
        "torch_requires": ["pytorch-triton-xpu==3.5.0"],
        "triton": "3.5.0",
    }
    [finding] = doctor.check_triton(info)
    assert finding.severity == doctor.OK


def test_long_paths_disabled_and_default_cache_too_deep():
    probes = FakeProbes(registry={})
    [finding] = doctor.check_long_paths(probes)
    inductor = WIN_TEMP + r"\torchinductor_averagedeveloper"
    assert finding.data["triton_cache_dir"] == inductor + r"\triton\0"
    expected = (
        len(inductor + r"\triton\0")
        + 1
        + 52
        + 1
        + len("tmp.pid_")
        + 6
        + 1
        + 36
        + 1
        + len("__grp__")
        + 110
        + len(".json")
    )
    assert finding.data["deepest_path_chars"] == expected > 259
    assert finding.severity == doctor.ERROR
    assert "LongPathsEnabled" in finding.fix and "TORCHINDUCTOR_CACHE_DIR=C:\\tic" in finding.fix


def test_long_paths_enabled_or_short_cache_is_fine():
    on = {(doctor.LONG_PATHS_KEY, "LongPathsEnabled"): 1}
    [enabled] = doctor.check_long_paths(FakeProbes(registry=on, env={"TRITON_CACHE_DIR": r"C:\t"}))
    assert enabled.severity == doctor.OK and "long paths are on" in enabled.title
    [short] = doctor.check_long_paths(FakeProbes(env={"TRITON_CACHE_DIR": r"C:\t"}))
    assert short.severity == doctor.OK and short.data["deepest_path_chars"] < 260
    # TORCHINDUCTOR_CACHE_DIR alone also moves Triton's default.
    [moved] = doctor.check_long_paths(FakeProbes(env={"TORCHINDUCTOR_CACHE_DIR": r"C:\tic"}))
    assert moved.data["triton_cache_dir"] == r"C:\tic\triton\0"


def test_long_paths_on_linux_is_informational():
    [finding] = doctor.check_long_paths(FakeProbes(platform="linux"))
    assert finding.severity == doctor.INFO


def test_level_zero_loader_missing():
    [finding] = doctor.check_level_zero(FakeProbes(env={"SystemRoot": r"C:\Windows", "PATH": ""}))
    assert finding.severity == doctor.ERROR and "ze_loader.dll" in finding.title
    assert r"C:\Windows\System32" in finding.detail


def test_level_zero_old_loader_and_missing_driver():
    probes = windows_with_loader(symbols=[s for s in doctor.REQUIRED_ZE_SYMBOLS if s != "zeKernelGetProperties"])
    findings = doctor.check_level_zero(probes)
    assert [f.severity for f in findings] == [doctor.ERROR, doctor.ERROR]
    assert "too old" in findings[0].title and "zeKernelGetProperties" in findings[0].title
    assert "no Level Zero GPU driver" in findings[1].title


ARC = {
    "driver": 0,
    "index": 0,
    "name": "Intel(R) Arc(TM) B580 Graphics",
    "type": 1,
    "vendor": 0x8086,
    "device_id": 0xE20B,
}
NPU = {"driver": 0, "index": 0, "name": "Intel(R) AI Boost", "type": 5, "vendor": 0x8086, "device_id": 0x7D1D}


def test_level_zero_present_is_ok():
    probes = windows_with_loader(r"C:\Windows\System32\ze_intel_gpu64.dll", ze={"drivers": 1, "devices": [ARC]})
    findings = doctor.check_level_zero(probes)
    assert [f.severity for f in findings] == [doctor.OK, doctor.OK]
    assert findings[1].title == (
        "Intel GPU: XPU device 0 of driver 0: 'Intel(R) Arc(TM) B580 Graphics' "
        "(GPU, vendor 0x8086, PCI device id 0xe20b)"
    )


def test_level_zero_driver_installed_but_no_gpu_is_not_a_missing_driver():
    probes = FakeProbes(
        platform="linux", env={"LD_LIBRARY_PATH": "/lib"}, files={"/lib/libze_loader.so.1", "/lib/libze_intel_gpu.so.1"}
    )
    [loader, finding] = doctor.check_level_zero(probes)
    assert loader.severity == doctor.OK
    assert finding.severity == doctor.ERROR
    assert finding.title == "the Intel GPU driver is installed (/lib/libze_intel_gpu.so.1) but found no Intel GPU"
    assert "ZE_RESULT_ERROR_UNINITIALIZED" in finding.detail
    assert "apt-get install" not in finding.fix and "/dev/dri/renderD*" in finding.fix
    # Without the driver library it is the driver that is missing.
    probes.files.discard("/lib/libze_intel_gpu.so.1")
    [_, missing] = doctor.check_level_zero(probes)
    assert missing.title.startswith("no Level Zero GPU driver (libze_intel_gpu.so.1 is not installed)")
    assert "apt-get install intel-level-zero-gpu" in missing.fix


def test_level_zero_npu_driver_before_the_gpu_driver_is_fine():
    # Core Ultra machines: the loader may list Intel's NPU driver first; the
    # launcher, like torch, takes its devices from the first driver with a GPU.
    gpu = dict(ARC, driver=1)
    probes = windows_with_loader(ze={"drivers": 2, "devices": [NPU, gpu]})
    findings = doctor.check_level_zero(probes)
    assert [f.severity for f in findings] == [doctor.OK, doctor.OK]
    assert "XPU device 0 of driver 1" in findings[1].title
    assert "Intel(R) AI Boost" in findings[1].detail


def test_level_zero_non_gpu_device_in_the_gpu_driver_is_a_warning():
    npu = dict(NPU, index=1)
    probes = windows_with_loader(ze={"drivers": 1, "devices": [ARC, npu]})
    findings = doctor.check_level_zero(probes)
    assert [f.severity for f in findings] == [doctor.OK, doctor.OK, doctor.WARNING]
    assert findings[2].title.startswith("XPU device 1 of driver 0: 'Intel(R) AI Boost' (NPU/VPU, vendor 0x8086")


def test_main_json_runs_every_check_through_the_probes(capsys):
    probes = FakeProbes(
        env={"PATH": ""},
        torch_info={
            "torch": "2.13.0+xpu",
            "xpu_compiled": True,
            "static_launcher": False,
            "kernel_format": "spv",
            "utils_patched": False,
            "dists": {},
        },
    )
    assert doctor.main(["--json"], probes=probes) == 1
    report = json.loads(capsys.readouterr().out)
    checks = {f["check"] for f in report["findings"]}
    assert {"ocloc", "static-launcher", "kernel-format", "triton", "long-paths", "level-zero"} <= checks
    assert report["errors"] >= 5
    assert probes.commands and probes.commands[0][0] == "python-under-test"


def test_text_output_shows_why_and_fix(capsys):
    probes = FakeProbes(
        env={"PATH": ""}, torch_info={"torch_import_error": "ModuleNotFoundError: No module named 'torch'"}
    )
    doctor.main([], probes=probes)
    text = capsys.readouterr().out
    assert "[error  ] torch cannot be imported" in text
    assert "fix: Install torch" in text


def test_no_ocloc_with_an_intel_gpu_names_the_driver_path():
    probes = FakeProbes(
        env={"PATH": r"C:\Windows", "SystemRoot": r"C:\Windows"},
        files={r"C:\Windows\System32\ze_loader.dll"},
        ze={"drivers": 1, "devices": [dict(ARC, ip_version=(20 << 22) | (1 << 14))]},
    )
    [finding] = doctor.check_ocloc(probes, doctor.driver_gpus(doctor.check_level_zero(probes)))
    assert finding.severity == doctor.WARNING
    assert finding.title == (
        "ocloc not found: zebins come from the Intel GPU driver instead, for "
        "'Intel(R) Arc(TM) B580 Graphics' (IP 20.1.0)"
    )
    assert r"C:\Windows\ocloc.exe" in finding.detail
    assert finding.fix.startswith("Nothing to install")
    # Forcing ocloc, or no Intel GPU, keeps the error.
    probes.env["XSL_ZEBIN_COMPILER"] = "ocloc"
    [forced] = doctor.check_ocloc(probes, doctor.driver_gpus(doctor.check_level_zero(probes)))
    assert forced.severity == doctor.ERROR
    [no_gpu] = doctor.check_ocloc(FakeProbes(env={"PATH": r"C:\Windows"}), [])
    assert no_gpu.severity == doctor.ERROR


def test_long_paths_enabled_with_deep_caches_is_not_taken_as_enough():
    on = {(doctor.LONG_PATHS_KEY, "LongPathsEnabled"): 1}
    [finding] = doctor.check_long_paths(FakeProbes(registry=on))
    assert finding.severity == doctor.WARNING and "not known to be enough" in finding.title
    assert "cl.exe and ocloc.exe" in finding.detail and "not verified" in finding.detail
    assert "$env:TORCHINDUCTOR_CACHE_DIR = 'C:\\tic'" in finding.fix and "setx TRITON_CACHE_DIR" in finding.fix
    [off] = doctor.check_long_paths(FakeProbes(registry={}))
    assert "set TORCHINDUCTOR_CACHE_DIR=C:\\tic" in off.fix and "$env:TRITON_CACHE_DIR" in off.fix


XPU = {"torch": "2.15.0+xpu", "xpu_compiled": True, "static_launcher": False}
REFUSED = "nothing installed: the SYCL backend xpu_static_launcher._sycl_launcher cannot be used (no module)"


@pytest.mark.parametrize(
    "package, severity, title, fix",
    [
        (
            {
                "version": "0.1.0",
                "status": "installed",
                "message": "installed the SYCL backend (libsycl 8) as torch._C._StaticXpuLauncher",
            },
            doctor.ERROR,
            "xpu_static_launcher 0.1.0 is installed but not enabled",
            "python -m xpu_static_launcher enable-at-startup, then python -m xpu_static_launcher verify",
        ),
        (
            {"version": "0.1.0", "status": "installed-spirv", "message": "installed ...; but kernels stay SPIR-V"},
            doctor.WARNING,
            "provides its SYCL backend when install() runs",
            "python -m xpu_static_launcher enable-at-startup",
        ),
        (
            {"version": "0.1.0", "status": "no-backend", "message": REFUSED},
            doctor.ERROR,
            "install() refuses (no-backend)",
            "pip install --no-build-isolation",
        ),
        (
            {"error": "ImportError: DLL load failed"},
            doctor.ERROR,
            "fails to import",
            "pip install --no-build-isolation",
        ),
    ],
)
def test_route_a_user_is_never_told_to_rebuild_torch(package, severity, title, fix):
    [finding] = doctor.check_static_launcher(dict(XPU, package=package), windows=True)
    assert finding.severity == severity and title in finding.title
    assert fix in finding.fix
    assert "harness.py" not in finding.fix and "PR stack" not in finding.fix


def test_launcher_set_at_startup_is_ok():
    package = {
        "status": "present",
        "message": "torch._C._StaticXpuLauncher is present (installed by xpu_static_launcher already)",
    }
    [finding] = doctor.check_static_launcher(
        dict(XPU, static_launcher=True, startup_hook=True, package=package), windows=True
    )
    assert finding.severity == doctor.OK and "set at start-up" in finding.title


def test_no_launcher_and_no_package_in_a_wheel_torch_names_route_a_only():
    [finding] = doctor.check_static_launcher(XPU, windows=True)
    assert finding.severity == doctor.ERROR and "package is not installed" in finding.title
    assert finding.fix.startswith("Route (a), no torch rebuild")
    assert "pip install --no-index --find-links <folder of the wheel> xpu_static_launcher" in finding.fix
    assert "python -m xpu_static_launcher check" in finding.fix
    assert "harness.py" not in finding.fix and "Route (b)" not in finding.fix and "PR stack" not in finding.fix


@pytest.mark.parametrize(
    "package, severity, text",
    [
        (
            {
                "status": "installed",
                "kernel_format": "zebin",
                "message": "installed ...; Inductor XPU kernel format: zebin",
            },
            doctor.OK,
            "install() switches it to zebin",
        ),
        (
            {"status": "installed-spirv", "kernel_format": "spv", "message": "installed ...; kept SPIR-V (.spv)"},
            doctor.ERROR,
            "ocloc_wheel.py",
        ),
    ],
)
def test_kernel_format_with_the_package(package, severity, text):
    info = {"kernel_format": "spv", "utils_patched": False, "package": package}
    [finding] = doctor.check_kernel_format(FakeProbes(), info)
    assert finding.severity == severity
    assert text in finding.title + finding.fix
    assert "harness.py" not in finding.fix and "whatever the environment says" not in finding.fix


def test_cl_on_path():
    probes = FakeProbes(
        env={"PATH": r"C:\Windows;C:\VS\VC\Tools\MSVC\14.44\bin\Hostx64\x64"},
        files={r"C:\VS\VC\Tools\MSVC\14.44\bin\Hostx64\x64\cl.exe"},
    )
    [ok] = doctor.check_msvc(probes, XPU)
    assert ok.severity == doctor.OK and ok.title.endswith(r"x64\cl.exe")
    [missing] = doctor.check_msvc(FakeProbes(env={"PATH": r"C:\Windows"}), XPU)
    assert missing.severity == doctor.ERROR and "cl.exe is not on PATH" in missing.title
    assert "#4465" in missing.detail and "vcvars64.bat" in missing.fix
    assert doctor.check_msvc(FakeProbes(platform="linux"), XPU) == []
    assert doctor.check_msvc(FakeProbes(), dict(XPU, xpu_compiled=False)) == []


@pytest.mark.parametrize(
    "env, files, sycl_rt, severity, text",
    [
        (
            {"PATH": r"C:\oneAPI\compiler\bin"},
            {r"C:\oneAPI\compiler\bin\icpx.exe"},
            None,
            doctor.OK,
            "from the compiler",
        ),
        (
            {"ONEAPI_ROOT": r"C:\oneAPI"},
            {r"C:\oneAPI\compiler\latest\include\sycl\sycl.hpp"},
            None,
            doctor.OK,
            "(ONEAPI_ROOT)",
        ),
        ({"ONEAPI_ROOT": r"C:\oneAPI"}, set(), None, doctor.ERROR, r"has no compiler\latest\include\sycl\sycl.hpp"),
        (
            {},
            set(),
            {"version": "2025.3.3", "header": r"C:\env\Library\include\sycl\sycl.hpp"},
            doctor.OK,
            "intel-sycl-rt 2025.3.3",
        ),
        (
            {},
            set(),
            {"version": "2024.2.1", "header": r"C:\env\Library\include\sycl\sycl.hpp"},
            doctor.ERROR,
            "has no usable headers",
        ),
        ({}, set(), None, doctor.ERROR, "intel-sycl-rt is not installed"),
    ],
)
def test_sycl_headers_follow_triton_xpus_search(env, files, sycl_rt, severity, text):
    [finding] = doctor.check_sycl_headers(FakeProbes(env=env, files=files), dict(XPU, sycl_rt=sycl_rt))
    assert finding.severity == severity and text in finding.title
    if severity == doctor.ERROR and not env:
        assert "AssertionError: sycl headers not found" in finding.title


@pytest.mark.parametrize("length, severity", [(3000, doctor.OK), (6500, doctor.WARNING), (8190, doctor.ERROR)])
def test_path_length_is_measured(length, severity):
    [finding] = doctor.check_path_length(FakeProbes(env={"PATH": "x" * length}))
    assert finding.severity == severity and finding.data["path_chars"] == length
    assert str(length) in finding.title
    assert doctor.check_path_length(FakeProbes(platform="linux", env={"PATH": "x" * 9000})) == []


def test_probe_imports_inductor_before_it_reads_the_launcher():
    # enable-at-startup installs the launcher when torch._inductor is imported.
    probe = doctor.TORCH_PROBE
    assert probe.index("import torch._inductor.utils") < probe.index('info["static_launcher"]')


def test_real_probe_reports_the_package(monkeypatch):
    pytest.importorskip("torch")
    package_parent = str(doctor.SCRIPTS.parent / "python")
    probes = doctor.Probes(env=dict(__import__("os").environ, PYTHONPATH=package_parent))
    info = doctor.probe_torch(probes)
    assert "torch_import_error" not in info, info
    assert info["package"]["status"] in ("not-xpu", "installed", "installed-spirv", "present"), info["package"]
    assert "startup_hook" in info and "sycl_rt" in info


def test_driver_path_needs_a_triton_xpu_that_can_use_it():
    probes = FakeProbes(
        env={"PATH": r"C:\Windows", "SystemRoot": r"C:\Windows"},
        files={r"C:\Windows\System32\ze_loader.dll"},
        ze={"drivers": 1, "devices": [ARC]},
    )
    gpus = doctor.driver_gpus(doctor.check_level_zero(probes))
    [stock] = doctor.check_ocloc(probes, gpus, triton_driver=False)
    assert stock.severity == doctor.ERROR and "cannot compile with the GPU driver" in stock.title
    assert "patches/triton-xpu 0002" in stock.detail and "ocloc_wheel.py" in stock.fix
    [patched] = doctor.check_ocloc(probes, gpus, triton_driver=True)
    assert patched.severity == doctor.WARNING and "from the Intel GPU driver instead" in patched.title
    # The probe's answer reaches the check (a torch with its own launcher: route (b)).
    probes.torch_info = {
        "torch": "2.15.0+xpu",
        "xpu_compiled": True,
        "static_launcher": True,
        "triton_driver_compiler": False,
        "dists": {},
    }
    [ocloc] = by_check(doctor.run_checks(probes), "ocloc")
    assert ocloc.severity == doctor.ERROR
    # Without a launcher and the package, that is the cause; ocloc merely follows.
    probes.torch_info = dict(probes.torch_info, static_launcher=False)
    findings = doctor.run_checks(probes)
    assert findings[0].check == "static-launcher" and findings[0].severity == doctor.ERROR
    [follows] = by_check(findings, "ocloc")
    assert follows.severity == doctor.INFO and not follows.fix and "(follows from the first error)" in follows.title


def test_kernel_format_with_the_package_says_the_reason_once():
    message = (
        "installed the SYCL backend (libsycl 8) as torch._C._StaticXpuLauncher; but kernels stay SPIR-V, so "
        "Inductor launches none of them statically: kept SPIR-V (.spv): ocloc was not found"
    )
    info = {
        "kernel_format": "spv",
        "utils_patched": False,
        "package": {"status": "installed-spirv", "kernel_format": "spv", "message": message},
    }
    [finding] = doctor.check_kernel_format(FakeProbes(), info)
    assert finding.detail.count("ocloc was not found") == 1
    assert "kept it: kept SPIR-V (.spv): ocloc was not found. triton_heuristics" in finding.detail


# Route (a) with a package whose SYCL backend loads SPIR-V: nothing needs ocloc.
SPIRV_PACKAGE = {
    "version": "0.1.0",
    "status": "installed",
    "kernel_format": "spv",
    "loads_spirv": True,
    "spirv_launch": True,
    "spirv_support": True,
    "spirv_support_reason": "enabled already",
    "message": "installed the SYCL backend (libsycl 8) as torch._C._StaticXpuLauncher; Inductor's XPU "
    "kernels stay SPIR-V and are launched statically as SPIR-V (compiled by the GPU driver "
    "at first load, kept afterwards)",
}
SPIRV_INFO = dict(XPU, kernel_format="spv", utils_patched=False, package=SPIRV_PACKAGE, dists={})


@pytest.mark.parametrize(
    "change, env, expected",
    [
        ({}, {}, True),
        ({"spirv_launch": False}, {}, True),  # not in place in the probe, but it applies to this torch
        ({"spirv_launch": False, "spirv_support": False}, {}, False),  # a torch the package cannot change
        ({"spirv_launch": False, "loads_spirv": False}, {}, False),  # an older package
        ({"spirv_launch": None, "loads_spirv": None, "spirv_support": None}, {}, False),
        ({"kernel_format": "zebin"}, {}, False),  # zebin after all
        ({}, {"TORCHINDUCTOR_XPU_KERNEL_FORMAT": "zebin"}, False),  # the zebin opt-in needs ocloc
        ({}, {"TORCHINDUCTOR_XPU_KERNEL_FORMAT": "spv"}, True),
    ],
)
def test_spirv_route_a_is_recognised(change, env, expected):
    info = dict(SPIRV_INFO, package=dict(SPIRV_PACKAGE, **change))
    assert doctor.spirv_launch_route_a(info, env) is expected
    assert doctor.spirv_launch_route_a(dict(XPU, kernel_format="spv"), env) is False  # no package


@pytest.mark.parametrize("gpus, triton_driver", [([], None), ([ARC], False), ([ARC], True)])
def test_no_ocloc_is_fine_when_the_package_launches_spirv(gpus, triton_driver):
    probes = FakeProbes(env={"PATH": r"C:\Windows", "ONEAPI_ROOT": r"D:\oneAPI"})
    [stock] = doctor.check_ocloc(probes, gpus, triton_driver)
    assert stock.severity in (doctor.ERROR, doctor.WARNING)  # what route (b) and the zebin opt-in still get
    [finding] = doctor.check_ocloc(probes, gpus, triton_driver, spirv_launch=True)
    assert finding.severity == doctor.OK and not finding.fix
    assert finding.title == "ocloc not needed: xpu_static_launcher launches the SPIR-V kernels statically"
    assert (
        "compiles each one at its first load" in finding.detail
        and "TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin" in finding.detail
    )
    assert r"D:\oneAPI\ocloc\latest\bin\ocloc.exe" in finding.detail


def test_ocloc_off_path_is_only_information_when_the_package_launches_spirv():
    report = doctor.OclocReport(r"C:\oneAPI\ocloc\latest\bin\ocloc.exe", "25.05", "oneAPI", [])
    [finding] = doctor.check_ocloc(FakeProbes(ocloc=report), spirv_launch=True)
    assert finding.severity == doctor.INFO and "not needed" in finding.title and not finding.fix
    [on_path] = doctor.check_ocloc(
        FakeProbes(ocloc=doctor.OclocReport("C:\\o\\ocloc.exe", None, "PATH", [])), spirv_launch=True
    )
    assert on_path.severity == doctor.OK and on_path.title == "ocloc found: C:\\o\\ocloc.exe (from PATH)"


@pytest.mark.parametrize(
    "env, severity", [({}, doctor.OK), ({"TORCHINDUCTOR_XPU_KERNEL_FORMAT": "zebin"}, doctor.ERROR)]
)
def test_the_probes_package_answer_decides_the_ocloc_finding(env, severity):
    probes = FakeProbes(env=dict(env, PATH=r"C:\Windows"), torch_info=SPIRV_INFO)
    findings = doctor.run_checks(probes)
    [ocloc] = by_check(findings, "ocloc")
    assert ocloc.severity == severity
    [fmt] = by_check(findings, "kernel-format")
    assert fmt.severity == doctor.OK and "launches SPIR-V kernels statically" in fmt.title


def test_kernel_format_spv_is_ok_only_when_spirv_is_launched_statically():
    [ok] = doctor.check_kernel_format(FakeProbes(), SPIRV_INFO)
    assert ok.severity == doctor.OK and ok.title == (
        "XPU_KERNEL_FORMAT resolves to spv, and xpu_static_launcher launches SPIR-V kernels statically"
    )
    assert "kept afterwards" in ok.detail
    refused = dict(
        SPIRV_PACKAGE,
        status="installed-spirv",
        spirv_launch=False,
        loads_spirv=False,
        message="installed ...; but kernels stay SPIR-V, so Inductor launches none of them statically: "
        "kept SPIR-V (.spv): ocloc was not found",
    )
    [error] = doctor.check_kernel_format(FakeProbes(), dict(SPIRV_INFO, package=refused))
    assert error.severity == doctor.ERROR
    assert "ocloc_wheel.py" in error.fix and "whose SYCL backend loads SPIR-V (LOADS_SPIRV)" in error.fix
    [no_package] = doctor.check_kernel_format(FakeProbes(), dict(SPIRV_INFO, package={}))
    assert no_package.severity == doctor.ERROR and "launch SPIR-V kernels statically" in no_package.fix


def test_the_probe_asks_the_package_about_spirv():
    probe = doctor.TORCH_PROBE
    assert "LOADS_SPIRV" in probe and "spirv_launch_support()" in probe and "is_enabled()" in probe
    assert probe.index("xsl.install(verbose=False)") < probe.index("is_enabled()")
    probe % {"dists": (), "refusal": doctor.SPIRV_REFUSAL}  # still a valid %-template


# --------------------------------------------------------------------------
# The most likely cause first, with its fix; what follows from it is no error.

GPU_MACHINE = {
    "env": {"PATH": r"C:\Windows", "SystemRoot": r"C:\Windows", "TRITON_CACHE_DIR": r"C:\t"},
    "files": {r"C:\Windows\System32\ze_loader.dll"},
    "registry": {},
}
NO_GPU_MACHINE = dict(GPU_MACHINE)  # the loader is there, zeInit finds nothing (FakeProbes' default)
CPU_TORCH = {
    "torch": "2.15.0+cpu",
    "xpu_compiled": False,
    "kernel_format": "spv",
    "utils_patched": False,
    "dists": {},
    "torch_requires": [],
    "package": {
        "version": "0.1.0",
        "status": "not-xpu",
        "message": "nothing installed: torch 2.15.0+cpu is not an XPU build",
    },
}
NO_GPU_TORCH = {
    "torch": "2.15.0+xpu",
    "xpu_compiled": True,
    "xpu_available": False,
    "static_launcher": False,
    "kernel_format": "spv",
    "utils_patched": False,
    "torch_requires": ["pytorch-triton-xpu==3.5.0"],
    "dists": {"pytorch-triton-xpu": "3.5.0"},
    "triton": "3.5.0",
    "sycl_rt": {"version": "2025.3.3", "header": r"C:\env\Library\include\sycl\sycl.hpp"},
    "package": {
        "version": "0.1.0",
        "status": "not-xpu",
        "message": "nothing installed: torch.xpu.is_available() is False (no Intel GPU or driver visible to torch)",
    },
}


def doctor_text(capsys, machine, torch_info, ze=None):
    probes = FakeProbes(
        torch_info=torch_info, ze=ze, **{k: (dict(v) if isinstance(v, dict) else set(v)) for k, v in machine.items()}
    )
    rc = doctor.main([], probes=probes)
    text = capsys.readouterr().out
    return rc, text, doctor.run_checks(probes)


def test_cpu_torch_comes_first_and_what_follows_offers_no_fix(capsys):
    rc, text, findings = doctor_text(capsys, GPU_MACHINE, CPU_TORCH, ze={"drivers": 1, "devices": [ARC]})
    assert rc == 1
    first = findings[0]
    assert (first.check, first.severity) == ("torch", doctor.ERROR) and "CPU-only build" in first.title
    lines = text.splitlines()
    assert lines[1] == "  [error  ] torch 2.15.0+cpu is a CPU-only build: nothing runs on the Intel GPU"
    assert any(line.strip().startswith("fix: Install the torch XPU wheel in a fresh venv") for line in lines[2:5])
    for check in ("kernel-format", "ocloc", "triton"):
        [follows] = by_check(findings, check)
        assert follows.severity == doctor.INFO and not follows.fix, check
        assert follows.title.endswith("(follows from the first error)")
        assert follows.data["follows_from"] == "torch" and follows.data["severity_alone"] in (
            doctor.ERROR,
            doctor.WARNING,
        )
    # Nothing tells this user to install the package they have, or to rebuild torch.
    assert "install the xpu_static_launcher package into this environment" not in text
    assert "harness.py" not in text and "Route (b)" not in text and "PR stack" not in text
    assert 'Fix the first error first: 3 finding(s) marked "follows from the first error" depend on it.' in text


@pytest.mark.parametrize("package", [True, False])
def test_xpu_torch_without_a_gpu_names_the_intel_driver_not_this_repository(capsys, package):
    info = dict(NO_GPU_TORCH) if package else {k: v for k, v in NO_GPU_TORCH.items() if k != "package"}
    rc, text, findings = doctor_text(capsys, NO_GPU_MACHINE, info)
    assert rc == 1
    first = findings[0]
    assert (first.check, first.severity) == ("xpu-device", doctor.ERROR)
    assert first.title == "torch 2.15.0+xpu is an XPU build but sees no Intel GPU"
    assert first.fix.startswith(
        "Install the current Intel Arc & Iris Xe graphics driver from intel.com (it installs ze_loader.dll)"
    )
    assert text.splitlines()[1] == "  [error  ] torch 2.15.0+xpu is an XPU build but sees no Intel GPU"
    assert "fix: Install the current Intel Arc & Iris Xe graphics driver from intel.com" in text
    # The Level Zero finding agrees; nothing offers a pip install of this repository.
    [level_zero] = [f for f in by_check(findings, "level-zero") if f.severity == doctor.ERROR]
    assert level_zero.fix == doctor.WINDOWS_DRIVER_FIX
    assert "--no-build-isolation" not in text and "<this repository>" not in text and "harness.py" not in text
    assert not by_check(findings, "static-launcher")
    for check in ("kernel-format", "ocloc"):
        assert all(f.severity == doctor.INFO and not f.fix for f in by_check(findings, check)), check


def test_no_gpu_on_linux_names_the_linux_driver():
    [finding] = doctor.check_static_launcher(dict(NO_GPU_TORCH, xpu_error="RuntimeError: no device"), windows=False)
    assert finding.check == "xpu-device" and finding.fix == doctor.LINUX_DRIVER_FIX
    assert "(RuntimeError: no device)" in finding.detail


def test_missing_package_comes_first_and_the_kernel_format_follows(capsys):
    info = dict(NO_GPU_TORCH, xpu_available=True, package={})
    rc, text, findings = doctor_text(capsys, GPU_MACHINE, info, ze={"drivers": 1, "devices": [ARC]})
    assert rc == 1
    assert findings[0].check == "static-launcher" and "package is not installed" in findings[0].title
    assert text.splitlines()[1].startswith("  [error  ] torch._C._StaticXpuLauncher is missing in torch 2.15.0+xpu")
    [fmt] = by_check(findings, "kernel-format")
    assert fmt.severity == doctor.INFO and not fmt.fix
    assert "harness.py" not in text and "Route (b)" not in text


def test_installed_but_not_enabled_comes_first(capsys):
    info = dict(
        SPIRV_INFO,
        xpu_available=True,
        torch_requires=["pytorch-triton-xpu==3.5.0"],
        dists={"pytorch-triton-xpu": "3.5.0"},
        triton="3.5.0",
    )
    rc, text, findings = doctor_text(capsys, GPU_MACHINE, info, ze={"drivers": 1, "devices": [ARC]})
    assert rc == 1
    first = findings[0]
    assert (first.check, first.severity) == ("static-launcher", doctor.ERROR)
    assert first.title == (
        "xpu_static_launcher 0.1.0 is installed but not enabled: torch 2.15.0+xpu starts without _StaticXpuLauncher"
    )
    assert "fix: python -m xpu_static_launcher enable-at-startup, then python -m xpu_static_launcher verify" in text
    # Enabled at start-up, the same machine is fine.
    enabled = dict(
        info,
        static_launcher=True,
        startup_hook=True,
        package=dict(
            SPIRV_PACKAGE,
            status="present",
            message="torch._C._StaticXpuLauncher is present (installed by xpu_static_launcher already)",
        ),
    )
    [ok] = doctor.check_static_launcher(enabled, windows=True)
    assert ok.severity == doctor.OK


def test_the_long_path_trap_comes_first_when_the_rest_works(capsys):
    info = {
        "torch": "2.15.0+xpu",
        "xpu_compiled": True,
        "xpu_available": True,
        "static_launcher": True,
        "kernel_format": "zebin",
        "torch_requires": ["pytorch-triton-xpu==3.5.0"],
        "dists": {"pytorch-triton-xpu": "3.5.0"},
        "triton": "3.5.0",
    }
    machine = dict(GPU_MACHINE, env={"PATH": r"C:\Windows", "SystemRoot": r"C:\Windows"})
    rc, text, findings = doctor_text(capsys, machine, info, ze={"drivers": 1, "devices": [ARC]})
    assert rc == 1
    assert (findings[0].check, findings[0].severity) == ("long-paths", doctor.ERROR)
    assert text.splitlines()[1].startswith("  [error  ] cache paths reach")
    assert "fix: Either enable long paths" in text and "follows from the first error" not in text


def test_findings_keep_their_order_without_a_cause():
    findings = [doctor.Finding("ocloc", doctor.ERROR, "a"), doctor.Finding("msvc", doctor.ERROR, "b")]
    assert doctor.order_by_cause(findings) == findings
    cause = doctor.Finding("long-paths", doctor.ERROR, "c")
    assert doctor.order_by_cause(findings + [cause]) == [cause] + findings  # it explains nothing


def test_before_a_harness_build_no_torch_is_expected():
    info = {"torch_import_error": "ModuleNotFoundError: No module named 'torch'"}
    [finding] = doctor.check_static_launcher(info, windows=True, building=True)
    assert finding.severity == doctor.INFO and "the harness's build step installs" in finding.title
    [error] = doctor.check_static_launcher(info, windows=True)
    assert error.severity == doctor.ERROR and error.title == "torch cannot be imported"


def test_cl_fix_names_the_harness_only_for_a_source_built_torch():
    [wheel] = doctor.check_msvc(FakeProbes(env={"PATH": r"C:\Windows"}), XPU)
    assert "harness" not in wheel.fix and "activate.cmd" not in wheel.fix
    [built] = doctor.check_msvc(FakeProbes(env={"PATH": r"C:\Windows"}), dict(XPU, source_build=True))
    assert "<work>\\activate.cmd does it" in built.fix


def test_kernel_format_fix_names_route_b_only_for_a_source_built_torch():
    info = {"kernel_format": "spv", "utils_patched": False}
    [wheel] = doctor.check_kernel_format(FakeProbes(), info)
    assert "Route (a)" in wheel.fix and "harness.py" not in wheel.fix and "PR stack" not in wheel.fix
    [built] = doctor.check_kernel_format(FakeProbes(), dict(info, source_build=True))
    assert f'PR stack (its PR "{doctor.SPIRV_PR}"): python scripts/harness.py all' in built.fix


def test_a_torch_that_launches_spirv_itself_needs_no_ocloc_and_no_package():
    """A torch built with the PR stack keeps SPIR-V on Windows and launches it
    statically: the kernel format is fine, and a missing ocloc is too."""
    info = {"kernel_format": "spv", "utils_patched": True, "torch_launches_spirv": True}
    [finding] = doctor.check_kernel_format(FakeProbes(), info)
    assert finding.severity == doctor.OK and "this torch launches SPIR-V kernels statically" in finding.title
    assert doctor.SPIRV_PR in finding.detail
    assert doctor.spirv_launch(info, {}) is True
    # Opting into zebin needs a zebin compiler again.
    assert doctor.spirv_launch(info, {"TORCHINDUCTOR_XPU_KERNEL_FORMAT": "zebin"}) is False
    [ocloc] = doctor.check_ocloc(FakeProbes(env={"PATH": r"C:\Windows"}), spirv_launch=True)
    assert ocloc.severity == doctor.OK and "not needed" in ocloc.title
    # An unpatched torch is not read as one.
    assert doctor.spirv_launch(dict(info, torch_launches_spirv=False), {}) is False


def test_the_probe_reports_the_device_and_a_source_build():
    probe = doctor.TORCH_PROBE
    assert 'info["xpu_available"] = bool(torch.xpu.is_available())' in probe
    assert '"setup.py", "version.txt"' in probe and 'info["source_build"]' in probe
