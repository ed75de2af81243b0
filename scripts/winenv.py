#!/usr/bin/env python3
"""Captures the environment that Windows env scripts (vcvarsall.bat, oneAPI vars.bat) set up.

Runs `cmd /d /u /s /c "call A args && call B && echo XSL-ENV-BEGIN && set"`
and parses the `set` output after the marker line. `/u` makes cmd's internal
commands (echo, set) write UTF-16-LE, so values such as a user profile
`C:\\Users\\Jürgen` survive whatever the ANSI and OEM code pages are (without
it cmd writes the OEM code page, which differs from the ANSI code page a
text-mode pipe is decoded with).

The subprocess is injected (`Runner`), so tests feed bytes on any platform.
Stdlib only; `harness.py` uses it, and `doctor.Probes.run_bytes` is the runner.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence

MARKER = "XSL-ENV-BEGIN"
_MARKER_UTF16 = MARKER.encode("utf-16-le")

# (command line, timeout in seconds) -> (exit code, stdout, stderr)
Runner = Callable[[str, float], "tuple[int, bytes, bytes]"]


class CaptureError(RuntimeError):
    """The env scripts failed or printed no environment; the message says which."""


def capture_command(scripts: Sequence[tuple[str, str]]) -> str:
    """One verbatim cmd.exe command line (a string: list2cmdline would escape
    the inner quotes as \\", which cmd.exe does not understand; /s strips only
    the outer quotes)."""
    calls = [f'call "{path}"' + (f" {args}" if args else "") for path, args in scripts]
    return 'cmd /d /u /s /c "' + " && ".join(calls + [f"echo {MARKER}", "set"]) + '"'


def decode_output(data: bytes) -> str:
    """cmd /u output: UTF-16-LE from cmd itself, maybe 8-bit text from programs the scripts ran."""
    if not data:
        return ""
    odd_nuls = data[1::2].count(0)
    if odd_nuls * 3 >= len(data) // 2:
        return data.decode("utf-16-le", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("oem", errors="replace")  # the console code page (Windows only)
    except LookupError:
        return data.decode("latin-1")


def parse_set_output(data: bytes) -> dict[str, str] | None:
    """KEY=VALUE lines of `set` after the marker; None when the marker is absent."""
    start = data.find(_MARKER_UTF16)
    if start < 0:
        return None
    text = data[start:].decode("utf-16-le", errors="replace")
    env: dict[str, str] = {}
    for line in text.splitlines()[1:]:
        # Lines starting with "=" are cmd's per-drive current folders (=C:=C:\x).
        if "=" not in line or line.startswith("="):
            continue
        key, value = line.split("=", 1)
        env[key] = value
    return env


def _tail(data: bytes, limit: int = 300) -> str:
    return decode_output(data).strip()[-limit:]


def capture(run: Runner, scripts: Sequence[tuple[str, str]], timeout: float = 300) -> dict[str, str]:
    """The environment after calling each (script, arguments) in order."""
    rc, out, err = run(capture_command(scripts), timeout)
    env = parse_set_output(out)
    if rc != 0 or env is None or "PATH" not in {key.upper() for key in env}:
        detail = _tail(err) or _tail(out) or "no output"
        names = ", ".join(path for path, _ in scripts) or "cmd"
        raise CaptureError(f"capturing the build environment failed (exit {rc}) while running {names}: {detail}")
    return env


def run_cmd(command: str, timeout: float, env: Mapping[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """The real runner: the command line goes to the OS verbatim."""
    try:
        proc = subprocess.run(command, capture_output=True, timeout=timeout, env=None if env is None else dict(env))
    except (OSError, subprocess.TimeoutExpired) as err:
        return (127, b"", str(err).encode("utf-8"))
    return (proc.returncode, proc.stdout, proc.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Print the environment after calling Windows env scripts (cmd /u capture)."
    )
    parser.add_argument(
        "scripts", nargs="*", help="a .bat/.cmd to call; 'path|args' passes arguments (vcvarsall.bat|x64)"
    )
    args = parser.parse_args(argv)
    if sys.platform != "win32":
        print(
            "error: winenv.py needs Windows (cmd.exe); on other systems use your shell's environment", file=sys.stderr
        )
        return 2
    scripts = [tuple(item.split("|", 1)) if "|" in item else (item, "") for item in args.scripts]
    try:
        env = capture(run_cmd, [(path, extra) for path, extra in scripts])
    except CaptureError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for key in sorted(env, key=str.upper):
        print(f"{key}={env[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
