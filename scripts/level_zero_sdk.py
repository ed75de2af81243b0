#!/usr/bin/env python3
"""Download the official Level Zero SDK for Windows and unpack its headers.

Only a build needs Level Zero's headers (the launcher loads ze_loader.dll at
run time), and Windows has no system copy of them. This fetches the release
asset `level-zero-win-sdk-<version>.zip` of github.com/oneapi-src/level-zero
for the pinned version, checks its SHA-256 and unpacks it into --dest, then
prints the folder that holds `level_zero\\ze_api.h`: the value of
XSL_LEVEL_ZERO_INCLUDE_DIR (the package's CMake) and, one level up, of
LEVEL_ZERO_V1_SDK_PATH (a PyTorch build).

The expected SHA-256 comes from --sha256 when given, else from the digest
GitHub's release API reports for that asset (`digest: sha256:...`, computed
by GitHub at upload): the official release file's own checksum, read over
HTTPS at download time. A mismatch, a missing digest or a zip without
`include/level_zero/ze_api.h` stops with one line saying what to do.
Stdlib only; the same command works in cmd and PowerShell.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import urllib.request
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

VERSION = "1.28.2"
REPOSITORY = "oneapi-src/level-zero"
HEADER = "include/level_zero/ze_api.h"

Fetch = Callable[[str], bytes]


class SdkError(Exception):
    """Why the SDK could not be provided (one line, with the fix)."""


def asset_name(version: str) -> str:
    return f"level-zero-win-sdk-{version}.zip"


def asset_url(version: str) -> str:
    return f"https://github.com/{REPOSITORY}/releases/download/v{version}/{asset_name(version)}"


def release_api_url(version: str) -> str:
    return f"https://api.github.com/repos/{REPOSITORY}/releases/tags/v{version}"


def http_fetch(url: str) -> bytes:
    headers = {"User-Agent": "xpu-static-launcher"}
    # CI runners share addresses, and the API limits anonymous calls per address.
    if url.startswith("https://api.github.com/") and os.environ.get("GITHUB_TOKEN"):
        headers["Authorization"] = "Bearer " + os.environ["GITHUB_TOKEN"]
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        data: bytes = response.read()
        return data


def published_sha256(release_json: bytes, version: str) -> str:
    """The SHA-256 GitHub's release API gives for the SDK asset."""
    try:
        release = json.loads(release_json)
    except ValueError as error:
        raise SdkError(f"GitHub's release API answered no JSON for v{version}: {error}") from error
    name = asset_name(version)
    for asset in release.get("assets", []) if isinstance(release, dict) else []:
        if asset.get("name") != name:
            continue
        digest = asset.get("digest") or ""
        if not digest.startswith("sha256:") or len(digest) != len("sha256:") + 64:
            raise SdkError(
                f"GitHub reports no SHA-256 digest for {name}; pass --sha256 with the checksum from a source you trust"
            )
        return digest[len("sha256:") :].lower()
    raise SdkError(f"release v{version} of {REPOSITORY} has no asset {name}; choose another --version")


def safe_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """Every member, refusing paths that would leave the destination."""
    members = archive.infolist()
    for member in members:
        path = PurePosixPath(member.filename.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
            raise SdkError(f"the SDK zip holds an unsafe path '{member.filename}'; not unpacked")
    return members


def provide(
    dest: Path,
    version: str = VERSION,
    sha256: str | None = None,
    fetch: Fetch = http_fetch,
    log: Callable[[str], None] = print,
) -> Path:
    """Download, check and unpack the SDK into dest; return its include folder."""
    include = dest / "include"
    if (
        (include / "level_zero" / "ze_api.h").is_file()
        and (dest / ".xsl-sdk-version").is_file()
        and (dest / ".xsl-sdk-version").read_text(encoding="utf-8").strip() == version
    ):
        log(f"Level Zero SDK {version} already in {dest}")
        return include
    expected = sha256.lower() if sha256 else None
    if expected is None:
        log(f"reading the SHA-256 of {asset_name(version)} from GitHub's release API ...")
        expected = published_sha256(fetch(release_api_url(version)), version)
    log(f"downloading {asset_url(version)} ...")
    data = fetch(asset_url(version))
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise SdkError(
            f"{asset_name(version)} has SHA-256 {actual}, expected {expected}: the download is "
            "not the official file; try again, or check --sha256"
        )
    zip_path = dest.parent / asset_name(version)
    dest.mkdir(parents=True, exist_ok=True)
    zip_path.write_bytes(data)
    try:
        with zipfile.ZipFile(zip_path) as archive:
            members = safe_members(archive)
            names = {PurePosixPath(m.filename.replace("\\", "/")).as_posix() for m in members}
            if HEADER not in names:
                raise SdkError(
                    f"{asset_name(version)} has no {HEADER}; its layout changed: unpack it by "
                    "hand and set XSL_LEVEL_ZERO_INCLUDE_DIR to the folder holding level_zero"
                )
            archive.extractall(dest, members)
    except zipfile.BadZipFile as error:
        raise SdkError(f"{zip_path} is not a zip file ({error})") from error
    finally:
        zip_path.unlink(missing_ok=True)
    (dest / ".xsl-sdk-version").write_text(version + "\n", encoding="utf-8")
    log(f"Level Zero SDK {version} (SHA-256 {actual}) unpacked into {dest}")
    return include


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dest", required=True, type=Path, help="folder to unpack the SDK into (created; e.g. C:\\xsl\\level-zero-sdk)"
    )
    parser.add_argument("--version", default=VERSION, help=f"SDK release (default {VERSION}, the pinned one)")
    parser.add_argument(
        "--sha256", help="expected SHA-256 of the zip (default: the digest GitHub's release API reports for it)"
    )
    args = parser.parse_args(argv)
    try:
        include = provide(
            args.dest.resolve(),
            args.version,
            args.sha256,
            fetch=http_fetch,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except SdkError as error:
        print(f"level_zero_sdk: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"level_zero_sdk: {error}; check the network and that --dest is writable", file=sys.stderr)
        return 1
    print(include)
    return 0


if __name__ == "__main__":
    sys.exit(main())
