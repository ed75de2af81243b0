"""The driver backend (SPIR-V -> zebin through Level Zero) from Python, with
the test driver standing in for the GPU driver: it compiles SPIR-V with the
real in-process libocloc, so the driver-path zebin must carry the same
.ze_info as ocloc's for the same options, over the corpus kernels and over
SPIR-V from real Triton kernels. Errors: no device, architecture mismatch,
invalid SPIR-V, a build failure with its log. Every case runs in a
subprocess: the Level Zero loader reads its environment once per process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from launcher_support import DRIVER_PATH, PACKAGE_DIR
from ocloc_support import REPO, build_dir

TRITON_DIR = REPO / "tests" / "kernels" / "triton"
CORPUS_KERNELS = ["add", "many_args", "no_args", "private_array", "slm_reduce", "spill", "subgroup16", "two_kernels"]
TRITON_KERNELS = sorted(p.stem for p in TRITON_DIR.glob("*.spv"))

# Runs in the child: compiles each job with both backends, reports .ze_info.
CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from xpu_static_launcher import compile as xc
from ocloc_support import ze_info
jobs = json.loads(sys.stdin.read())
out = []
for job in jobs:
    spirv = open(job["spv"], "rb").read()
    row = {"name": job["name"]}
    for backend in job["backends"]:
        try:
            r = xc.compile_spirv(spirv, job["device"], job["flags"], backend=backend,
                                 retry_large_grf=job["retry"])
            row[backend] = {"ze_info": ze_info(r["zebin"]).decode(), "flags": r["build_flags"],
                            "spill": r["spill_bytes"], "source": r["source"]}
        except Exception as error:
            row[backend] = {"error": f"{type(error).__name__}: {error}"}
    out.append(row)
print(json.dumps(out))
"""


def missing() -> str | None:
    if not DRIVER_PATH.is_file():
        return f"test driver not built: {DRIVER_PATH}"
    if not list((PACKAGE_DIR / "xpu_static_launcher").glob("_compile*")):
        return f"xpu_static_launcher._compile not built under {PACKAGE_DIR}"
    if not (build_dir() / "corpus" / "add.spv").is_file():
        return "no SPIR-V corpus (build the xsl_zebin_corpus target)"
    return None


pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


def run_child(jobs: list[dict[str, Any]], **env: str) -> list[dict[str, Any]]:
    environ = dict(os.environ, ZE_ENABLE_ALT_DRIVERS=str(DRIVER_PATH), XSL_TEST_DRIVER_DEVICES="1")
    environ.pop("XSL_ZEBIN_COMPILER", None)
    environ.update(env)
    environ["PYTHONPATH"] = os.pathsep.join([str(REPO / "tests" / "python"), environ.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(PACKAGE_DIR)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        env=environ,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def job(
    name: str,
    spv: Path,
    flags: str = "",
    device: str = "pvc",
    retry: bool = False,
    backends: tuple = ("driver", "ocloc"),
) -> dict[str, Any]:
    return {"name": name, "spv": str(spv), "flags": flags, "device": device, "retry": retry, "backends": list(backends)}


def assert_same(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        driver, ocloc = row["driver"], row["ocloc"]
        assert "error" not in driver, (row["name"], driver)
        assert "error" not in ocloc, (row["name"], ocloc)
        assert driver["source"] == "driver" and ocloc["source"] != "driver"
        assert driver["ze_info"] == ocloc["ze_info"], row["name"]
        assert driver["spill"] == ocloc["spill"], row["name"]


@pytest.mark.parametrize("flags", ["", "-ze-opt-large-register-file"])
def test_corpus_ze_info_is_identical(flags):
    corpus = build_dir() / "corpus"
    rows = run_child([job(name, corpus / f"{name}.spv", flags) for name in CORPUS_KERNELS])
    assert_same(rows)
    for row in rows:
        assert ("grf_count:       256" in row["driver"]["ze_info"]) == bool(flags), row["name"]


def test_triton_kernels_ze_info_is_identical():
    jobs = []
    for name in TRITON_KERNELS:
        meta = json.loads((TRITON_DIR / f"{name}.json").read_text())
        jobs.append(job(name, TRITON_DIR / f"{name}.spv", meta.get("build_flags", "")))
    assert len(jobs) >= 5
    assert_same(run_child(jobs))


def test_grf_retry_is_the_same_policy():
    # Triton's spilling kernel: both backends keep the large-GRF build.
    rows = run_child([job("spill", TRITON_DIR / "spill.spv", retry=True)])
    driver, ocloc = rows[0]["driver"], rows[0]["ocloc"]
    assert driver["flags"] == "-ze-opt-large-register-file"
    assert ocloc["flags"] == "-cl-intel-256-GRF-per-thread"
    assert driver["ze_info"] == ocloc["ze_info"]


def test_architecture_mismatch_is_one_line():
    rows = run_child(
        [job("add", build_dir() / "corpus" / "add.spv", device="bmg", backends=("driver",))],
        XSL_TEST_DRIVER_PRODUCT="pvc",
    )
    error = rows[0]["driver"]["error"]
    assert "no Intel GPU of target 'bmg'" in error and "IP 12.60.7" in error
    assert "\n" not in error


def test_no_device_is_refused_with_the_reason():
    rows = run_child(
        [job("add", build_dir() / "corpus" / "add.spv", backends=("driver",))], XSL_TEST_DRIVER_DEVICES="0"
    )
    assert "no Intel GPU to compile with" in rows[0]["driver"]["error"]


def test_invalid_spirv_and_build_failure_carry_the_log(tmp_path):
    not_spirv = tmp_path / "k.cl"
    not_spirv.write_bytes(b"__kernel void f() {}")
    truncated = tmp_path / "truncated.spv"
    truncated.write_bytes((build_dir() / "corpus" / "add.spv").read_bytes()[:40])
    rows = run_child(
        [job("not_spirv", not_spirv, backends=("driver",)), job("truncated", truncated, backends=("driver",))]
    )
    assert "is not SPIR-V" in rows[0]["driver"]["error"]
    error = rows[1]["driver"]["error"]
    assert "the driver could not build the SPIR-V (ZE_RESULT_ERROR_MODULE_BUILD_FAILURE" in error
    assert "build log:\nxsl test driver:" in error


def test_forced_backend_knob_and_discovery_report(tmp_path):
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from xpu_static_launcher import compile as xc;"
        "print(json.dumps([xc.find_compiler(), xc.find_compiler('ocloc')]))"
    )
    environ = dict(os.environ, ZE_ENABLE_ALT_DRIVERS=str(DRIVER_PATH), XSL_ZEBIN_COMPILER="driver")
    proc = subprocess.run(
        [sys.executable, "-c", code, str(PACKAGE_DIR)], capture_output=True, text=True, env=environ, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    forced, ocloc = json.loads(proc.stdout)
    assert forced["source"] == "driver" and forced["origin"] == "XSL_ZEBIN_COMPILER=driver"
    assert forced["tried"][-1].startswith("driver: Level Zero driver")
    assert ocloc["source"] != "driver" and ocloc["tried"]
    bad = subprocess.run(
        [sys.executable, "-c", code, str(PACKAGE_DIR)],
        capture_output=True,
        text=True,
        env=dict(environ, XSL_ZEBIN_COMPILER="gpu"),
    )
    assert bad.returncode != 0 and "XSL_ZEBIN_COMPILER" in bad.stderr


def test_ocloc_style_command_line(tmp_path):
    out = tmp_path / "add.zebin"
    environ = dict(os.environ, ZE_ENABLE_ALT_DRIVERS=str(DRIVER_PATH), PYTHONPATH=str(PACKAGE_DIR))
    argv = [
        sys.executable,
        "-m",
        "xpu_static_launcher.compile",
        "compile",
        "-file",
        str(build_dir() / "corpus" / "add.spv"),
        "-o",
        str(out),
        "-spirv_input",
        "-device",
        "pvc",
        "-options",
        "-ze-opt-large-register-file",
        "--backend",
        "driver",
    ]
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environ)
    assert proc.returncode == 0, proc.stdout
    assert b"grf_count:       256" in out.read_bytes()
    argv[argv.index("pvc")] = "bmg"
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environ)
    assert proc.returncode == 1 and "no Intel GPU of target 'bmg'" in proc.stdout


def test_discovery_cli_reports_the_driver_last():
    script = REPO / "python" / "xpu_static_launcher" / "ocloc_discovery.py"
    environ = dict(
        os.environ, ZE_ENABLE_ALT_DRIVERS=str(DRIVER_PATH), PYTHONPATH=str(PACKAGE_DIR), XSL_ZEBIN_COMPILER="driver"
    )
    proc = subprocess.run([sys.executable, str(script), "--tried"], stdout=subprocess.PIPE, text=True, env=environ)
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("zebin compiler: the Intel GPU driver (XSL_ZEBIN_COMPILER=driver")
    assert (
        lines[-1] == "  driver: Level Zero driver (libze_loader.so.1): driver 0 device 0 'XSL test device' (IP 12.60.7)"
    )
    # No Intel GPU: nothing usable, and the reason is the last line.
    proc = subprocess.run(
        [sys.executable, str(script), "--tried"],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(environ, XSL_TEST_DRIVER_DEVICES="0"),
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1].startswith("  driver: ")
    assert "no Intel GPU to compile with" in proc.stdout.splitlines()[-1]
