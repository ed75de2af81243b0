#!/usr/bin/env python3
"""Build the zebin test corpus with the real ocloc.

Compiles every OpenCL C source in this folder for each device the local ocloc
supports among tgllp, dg2, acm-g10, pvc (plus newer ones a newer ocloc
knows), with 128 GRF and, where the device has it, 256 GRF
(-cl-intel-256-GRF-per-thread); then compiles each source's SPIR-V again with
-spirv_input for pvc, as Triton does. Writes <out>/<name>.zebin, the SPIR-V
as <out>/<source>.spv, and <out>/manifest.json describing every file with the
values expected from the kernel sources (argument kinds and sizes, SLM,
barriers, required sub-group size, GRF), and the same flattened to one
tab-separated line per kernel in <out>/manifest.tsv for C++ tests.

The real Triton kernels' committed SPIR-V (triton/*.spv, made by
triton/make_triton_spirv.py) is compiled the way Triton-XPU compiles it
(`-spirv_input`, its build flags as -options) for pvc, dg2 and acm-g10, at
Triton's default GRF and at 256 GRF where the device has it; kernels with
fp64 parameters only for devices with fp64. Those zebins are
<out>/triton_<kernel>_<device>_grf<N>.zebin, listed in
<out>/triton_manifest.json.

ocloc 22.x writes the legacy patch-token format unless given
`-internal_options -ze-allow-zebin`; newer versions write zebin by default.
The script passes the option to 22.x and, for any version, retries with it
when an output is not a zebin.

A finished corpus is cached under --cache keyed by a hash of the sources,
this script and the ocloc version, so several build trees share one build.
Stdlib only; runs on Linux and Windows.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
BASE_DEVICES = ["tgllp", "dg2", "acm-g10", "pvc"]
# Newer devices, used when the local ocloc lists them.
NEWER_DEVICES = ["mtl", "arl-h", "bmg", "lnl-m", "ptl-h"]
# Devices with the 256-GRF ("large GRF") mode.
LARGE_GRF_DEVICES = {"dg2", "acm-g10", "pvc", "bmg", "lnl-m", "ptl-h"}
SPIRV_DEVICE = "pvc"
ZEBIN_OPTION = ["-internal_options", "-ze-allow-zebin"]
LARGE_GRF_OPTION = "-cl-intel-256-GRF-per-thread"
TRITON_DIR = HERE / "triton"
# Devices Triton-XPU compiles for, among those the corpus knows.
TRITON_DEVICES = ["pvc", "dg2", "acm-g10"]
FP64_DEVICES = {"pvc"}

# Expected values per kernel, from the sources. Argument entries are
# (kind, bytes of the source type); kinds as the reader's user arguments.
P = ("global_pointer", 8)
C = ("constant_pointer", 8)
L = ("local_pointer", 8)


def _v(size: int) -> Tuple[str, int]:
    return ("by_value", size)


_MANY_ARG_TYPES = [P, _v(4), _v(4), _v(8), _v(1), _v(2), C, _v(1), P, _v(8)]

# Per source file (tests/kernels/<stem>.cl), its kernels in source order.
SOURCES: Dict[str, List[Dict[str, Any]]] = {
    "add": [{"name": "add", "args": [P, P, P, _v(4)], "slm_size": 0,
             "barrier_count": 0, "private_or_spill": False}],
    "slm_reduce": [{"name": "slm_reduce", "args": [P, P, L], "slm_size": 1024,
                    "barrier_count": 1}],
    "private_array": [{"name": "private_array", "args": [P, P], "slm_size": 0,
                       "barrier_count": 0, "private_or_spill": True}],
    "subgroup16": [{"name": "subgroup16", "args": [P, P], "slm_size": 0,
                    "barrier_count": 0, "required_sub_group_size": 16,
                    "simd_size": 16}],
    "no_args": [{"name": "no_args", "args": [], "slm_size": 0, "barrier_count": 0,
                 "private_or_spill": False}],
    "many_args": [{"name": "many_args",
                   "args": [_MANY_ARG_TYPES[i % 10] for i in range(40)],
                   "slm_size": 0, "barrier_count": 0}],
    "spill": [{"name": "spill", "args": [P, P], "slm_size": 0, "barrier_count": 0,
               "required_sub_group_size": 32, "simd_size": 32,
               "private_or_spill": True}],
    "two_kernels": [
        {"name": "scale", "args": [P, _v(4)], "slm_size": 0, "barrier_count": 0,
         "private_or_spill": False},
        {"name": "offset_by", "args": [P, _v(8), L], "slm_size": 0,
         "barrier_count": 1},
    ],
}


def find_ocloc(explicit: Optional[str]) -> Optional[str]:
    """ocloc from --ocloc, $OCLOC, PATH, or the oneAPI install on Windows."""
    if explicit:
        return explicit
    if os.environ.get("OCLOC"):
        return os.environ["OCLOC"]
    found = shutil.which("ocloc")
    if found:
        return found
    program_files = os.environ.get("ProgramFiles(x86)", r"C:\Program Files (x86)")
    candidate = Path(program_files) / "Intel" / "oneAPI" / "ocloc" / "latest" / "bin" / "ocloc.exe"
    return str(candidate) if candidate.exists() else None


def ocloc_version(ocloc: str) -> str:
    """Driver version such as '22.43.24595' ('' if ocloc cannot say)."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([ocloc, "query", "OCL_DRIVER_VERSION"], cwd=tmp,
                           capture_output=True, timeout=60, check=False)
            text = (Path(tmp) / "OCL_DRIVER_VERSION").read_text(errors="replace")
        except (OSError, subprocess.SubprocessError):
            return ""
    match = re.search(r"\d+\.\d+(\.\d+)*", text)
    return match.group(0) if match else ""


def supported_devices(ocloc: str) -> List[str]:
    result = subprocess.run([ocloc, "compile", "--help"], capture_output=True,
                            text=True, errors="replace", timeout=60, check=False)
    help_text = result.stdout + result.stderr
    names = set(re.findall(r"[A-Za-z0-9_-]+", help_text))
    wanted = BASE_DEVICES + NEWER_DEVICES
    return [d for d in wanted if d in names]


def is_zebin(path: Path) -> bool:
    """ELF64 with e_machine Intel GT (205) and not the legacy 0xff04 type."""
    with open(path, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return False
    e_type, e_machine = struct.unpack_from("<HH", head, 16)
    return e_machine == 205 and e_type != 0xFF04


def needs_zebin_option(version: str) -> bool:
    try:
        return int(version.split(".")[0]) < 23
    except ValueError:
        return False


class Build:
    def __init__(self, source: str, device: str, grf: int, spirv: bool,
                 triton: bool = False) -> None:
        # Stem of tests/kernels/<source>.cl, or of triton/<source>.spv.
        self.source = source
        self.device = device
        self.grf = grf
        self.spirv = spirv or triton
        self.triton = triton
        if triton:
            self.name = f"triton_{source}_{device}_grf{grf}"
        else:
            self.name = f"{source}_{device}_grf{grf}{'_spirv' if spirv else ''}"

    def options(self) -> List[str]:
        return ["-options", LARGE_GRF_OPTION] if self.grf == 256 else []


def compile_one(ocloc: str, build: Build, work: Path, zebin_option: bool) -> Path:
    """Runs ocloc; returns the zebin path. Raises RuntimeError with the log."""
    out_dir = work / build.name
    out_dir.mkdir(parents=True, exist_ok=True)
    if build.triton:
        inputs = ["-file", str(TRITON_DIR / f"{build.source}.spv"), "-spirv_input"]
    elif build.spirv:
        source = work / "spirv" / f"{build.source}.spv"
        inputs = ["-file", str(source), "-spirv_input"]
    else:
        inputs = ["-file", str(HERE / f"{build.source}.cl")]
    for attempt_option in ([zebin_option] if zebin_option else [False, True]):
        cmd = [ocloc, "compile", *inputs, "-device", build.device,
               *build.options(), "-output", build.name, "-output_no_suffix",
               "-out_dir", str(out_dir)]
        if attempt_option:
            cmd += ZEBIN_OPTION
        result = subprocess.run(cmd, capture_output=True, text=True,
                                errors="replace", timeout=600, check=False)
        binary = out_dir / build.name
        if result.returncode != 0 or not binary.exists():
            raise RuntimeError(f"{' '.join(cmd)} failed ({result.returncode}):\n"
                               f"{result.stdout}{result.stderr}")
        if is_zebin(binary):
            return binary
    raise RuntimeError(f"ocloc wrote no zebin for {build.name} even with "
                       f"{' '.join(ZEBIN_OPTION)}")


def spirv_only(ocloc: str, build: Build, work: Path) -> Path:
    """SPIR-V of a kernel via -spv_only, for ocloc versions that do not leave
    the .spv next to the binary."""
    out_dir = work / f"{build.source}_spv"
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [ocloc, "compile", "-file", str(HERE / f"{build.source}.cl"), "-spv_only",
           "-device", build.device, "-output", build.source, "-out_dir", str(out_dir)]
    result = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                            timeout=600, check=False)
    found = sorted(out_dir.glob("*.spv"))
    if result.returncode != 0 or not found:
        raise RuntimeError(f"{' '.join(cmd)} wrote no SPIR-V ({result.returncode}):\n"
                           f"{result.stdout}{result.stderr}")
    return found[0]


def expected_kernels(build: Build) -> List[Dict[str, Any]]:
    kernels = []
    for spec in SOURCES[build.source]:
        kernels.append({
            "name": spec["name"],
            "arg_count": len(spec["args"]),
            "args": [{"kind": k, "type_size": s} for k, s in spec["args"]],
            "slm_size": spec["slm_size"],
            "barrier_count": spec["barrier_count"],
            "grf_count": build.grf,
            "required_sub_group_size": spec.get("required_sub_group_size", 0),
            "simd_size": spec.get("simd_size"),
            # True: private memory or spill space must be there (a private
            # array, or spills at 128 GRF); False: neither; None: the
            # compiler decides.
            "private_or_spill": (spec.get("private_or_spill")
                                 if build.grf == 128 else None),
        })
    return kernels


def triton_kernels() -> Dict[str, Dict[str, Any]]:
    """triton/<name>.json for every committed triton/<name>.spv."""
    kernels = {}
    for spv in sorted(TRITON_DIR.glob("*.spv")):
        meta = spv.with_suffix(".json")
        try:
            kernels[spv.stem] = json.loads(meta.read_text())
        except (OSError, ValueError) as error:
            raise RuntimeError(f"{meta}: unreadable ({error}); regenerate it with "
                               "triton/make_triton_spirv.py") from error
    return kernels


def triton_builds(devices: Sequence[str]) -> List[Build]:
    builds = []
    for name, meta in triton_kernels().items():
        for device in TRITON_DEVICES:
            if device not in devices:
                continue
            if meta.get("needs_fp64") and device not in FP64_DEVICES:
                continue
            builds.append(Build(name, device, 128, False, triton=True))
            if device in LARGE_GRF_DEVICES:
                builds.append(Build(name, device, 256, False, triton=True))
    return builds


def fingerprint(ocloc: str, version: str, devices: Sequence[str]) -> str:
    h = hashlib.sha256()
    inputs = (sorted(HERE.glob("*.cl")) + sorted(TRITON_DIR.glob("*.spv"))
              + sorted(TRITON_DIR.glob("*.json")))
    for path in inputs + [Path(__file__).resolve()]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    h.update(f"{os.path.realpath(ocloc)}|{version}|{','.join(devices)}".encode())
    return h.hexdigest()[:16]


def build_corpus(ocloc: str, out: Path, devices: Sequence[str], jobs: int,
                 version: str) -> Dict[str, Any]:
    zebin_option = needs_zebin_option(version)
    builds: List[Build] = []
    for source in sorted(SOURCES):
        for device in devices:
            builds.append(Build(source, device, 128, False))
            if device in LARGE_GRF_DEVICES:
                builds.append(Build(source, device, 256, False))
    spirv_builds: List[Build] = []
    if SPIRV_DEVICE in devices:
        for source in sorted(SOURCES):
            spirv_builds.append(Build(source, SPIRV_DEVICE, 128, True))
        spirv_builds.append(Build("spill", SPIRV_DEVICE, 256, True))
    spirv_builds += triton_builds(devices)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "spirv").mkdir()

        def run(build: Build) -> Tuple[Build, Path]:
            return build, compile_one(ocloc, build, work, zebin_option)

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            done = list(pool.map(run, builds))
            # ocloc writes <name>.spv next to each OpenCL C build: keep one
            # per kernel as the input of the -spirv_input builds.
            for build, _ in done:
                if build.device == SPIRV_DEVICE and build.grf == 128:
                    spv = work / build.name / f"{build.name}.spv"
                    if not spv.exists():
                        spv = spirv_only(ocloc, build, work)
                    shutil.copyfile(spv, work / "spirv" / f"{build.source}.spv")
            done += list(pool.map(run, spirv_builds))
        files = []
        triton_files = []
        for build, binary in done:
            shutil.copyfile(binary, out / f"{build.name}.zebin")
            if build.triton:
                triton_files.append({
                    "file": f"{build.name}.zebin",
                    "kernel": build.source,
                    "device": build.device,
                    "grf_mode": build.grf,
                    "options": " ".join(build.options()),
                })
                continue
            files.append({
                "file": f"{build.name}.zebin",
                "device": build.device,
                "grf_mode": build.grf,
                "input": "spirv" if build.spirv else "opencl_c",
                "source": f"{build.source}.cl",
                "options": " ".join(build.options()),
                "kernels": expected_kernels(build),
            })
        for spv in sorted((work / "spirv").glob("*.spv")):
            shutil.copyfile(spv, out / spv.name)
    (out / "triton_manifest.json").write_text(json.dumps({"files": triton_files},
                                                         indent=1) + "\n")
    write_spirv_builds(out, triton_files)
    return {
        "ocloc": {"path": ocloc, "version": version,
                  "zebin_option": " ".join(ZEBIN_OPTION) if zebin_option else ""},
        "devices": list(devices),
        "files": files,
    }


# IP versions (architecture.release) of the devices the test driver lists
# under their ocloc names.
TEST_DRIVER_IP = {"pvc": "12.60"}


def write_spirv_builds(out: Path, triton_files: List[Dict[str, Any]]) -> None:
    """spirv_builds.tsv and the Triton SPIR-V beside it: what the Level Zero
    test driver answers zeModuleCreate(SPIR-V) with where it has no ocloc
    library to compile with (its stand-in ze_loader.dll under wine;
    XSL_TEST_DRIVER_SPIRV_BUILDS, tests/ze_test_driver/spirv_build.h).
    A line: SPIR-V file, IP version, build flags, zebin file."""
    lines = []
    for entry in triton_files:
        ip = TEST_DRIVER_IP.get(entry["device"])
        if ip is None:
            continue
        spv = f"triton_{entry['kernel']}.spv"
        shutil.copyfile(TRITON_DIR / f"{entry['kernel']}.spv", out / spv)
        flags = LARGE_GRF_OPTION if entry["grf_mode"] == 256 else ""
        lines.append("\t".join([spv, ip, flags, entry["file"]]))
    (out / "spirv_builds.tsv").write_text("\n".join(sorted(lines)) + "\n")


TSV_COLUMNS = ["file", "device", "grf_mode", "input", "kernel", "arg_count",
               "arg_kinds", "arg_type_sizes", "slm_size", "barrier_count",
               "grf_count", "required_sub_group_size", "simd_size",
               "private_or_spill"]


def manifest_tsv(manifest: Dict[str, Any]) -> str:
    """The manifest flattened for C++ tests: one tab-separated line per kernel;
    lists comma-separated, unknown values '-'."""
    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, bool):
            return "1" if value else "0"
        return str(value)

    lines = ["\t".join(TSV_COLUMNS)]
    for entry in manifest["files"]:
        for k in entry["kernels"]:
            row = [entry["file"], entry["device"], entry["grf_mode"], entry["input"],
                   k["name"], k["arg_count"],
                   ",".join(a["kind"] for a in k["args"]) or "-",
                   ",".join(str(a["type_size"]) for a in k["args"]) or "-",
                   k["slm_size"], k["barrier_count"], k["grf_count"],
                   k["required_sub_group_size"], k["simd_size"], k["private_or_spill"]]
            lines.append("\t".join(cell(v) for v in row))
    return "\n".join(lines) + "\n"


def copy_tree_files(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    for path in src.iterdir():
        if path.is_file():
            shutil.copyfile(path, dst / path.name)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path,
                        help="output folder for *.zebin, *.spv and manifest.json")
    parser.add_argument("--ocloc", help="ocloc executable (default: $OCLOC, PATH)")
    parser.add_argument("--devices", help="comma-separated device list "
                        "(default: every supported one of "
                        f"{','.join(BASE_DEVICES + NEWER_DEVICES)})")
    parser.add_argument("--jobs", type=int, default=2,
                        help="parallel ocloc processes (default 2)")
    parser.add_argument("--cache", type=Path,
                        help="folder that keeps finished corpora by fingerprint")
    args = parser.parse_args(argv)

    ocloc = find_ocloc(args.ocloc)
    if not ocloc:
        print("make_corpus: ocloc not found; install intel-opencl-icd (Debian) or "
              "oneAPI ocloc, or pass --ocloc", file=sys.stderr)
        return 1
    version = ocloc_version(ocloc)
    devices = args.devices.split(",") if args.devices else supported_devices(ocloc)
    if not devices:
        print(f"make_corpus: {ocloc} supports none of "
              f"{', '.join(BASE_DEVICES + NEWER_DEVICES)}", file=sys.stderr)
        return 1
    key = fingerprint(ocloc, version, devices)
    cached = args.cache / key if args.cache else None
    if cached is not None and (cached / "manifest.json").exists():
        if args.out.exists():
            shutil.rmtree(args.out)
        copy_tree_files(cached, args.out)
        print(f"make_corpus: {args.out} from cache {cached}")
        return 0
    if args.out.exists():
        shutil.rmtree(args.out)
    try:
        manifest = build_corpus(ocloc, args.out, devices, max(1, args.jobs), version)
    except RuntimeError as error:
        print(f"make_corpus: {error}", file=sys.stderr)
        return 1
    manifest["fingerprint"] = key
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (args.out / "manifest.tsv").write_text(manifest_tsv(manifest))
    if cached is not None:
        staging = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=_mkdir(args.cache)))
        copy_tree_files(args.out, staging)
        try:
            os.replace(staging, cached)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another build won
    triton_count = len(list(args.out.glob("triton_*.zebin")))
    print(f"make_corpus: {len(manifest['files'])} zebins and {triton_count} from "
          f"Triton SPIR-V for "
          f"{', '.join(devices)} (ocloc {version or 'unknown'}) in {args.out}")
    return 0


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


if __name__ == "__main__":
    sys.exit(main())
