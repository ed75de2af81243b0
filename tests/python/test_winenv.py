"""scripts/winenv.py: the `cmd /u ... && set` capture of Windows env scripts (UTF-16, non-ASCII values)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from patchset_support import REPO, load_script

winenv = load_script("winenv")

PROFILE = "C:\\Users\\Jürgen"
# What the old text-mode capture met: cmd writes the OEM code page (cp850 "ü"
# is 0x81), which the ANSI code page (cp1252) cannot decode.
OEM_BYTES = f"USERPROFILE={PROFILE}\r\n".encode("cp850")


def utf16(text: str) -> bytes:
    return text.encode("utf-16-le")


def test_the_old_way_fails_on_a_non_ascii_profile():
    with pytest.raises(UnicodeDecodeError):
        OEM_BYTES.decode("cp1252")


def test_non_ascii_values_survive_the_utf16_capture():
    out = utf16(
        f"vcvars banner\r\nXSL-ENV-BEGIN \r\nUSERPROFILE={PROFILE}\r\nPath=C:\\VS;C:\\Straße\r\n=C:=C:\\x\r\nEMPTY=\r\n"
    )
    env = winenv.parse_set_output(out)
    assert env == {"USERPROFILE": PROFILE, "Path": "C:\\VS;C:\\Straße", "EMPTY": ""}


def test_8bit_text_from_a_program_before_the_marker_does_not_shift_the_parse():
    # An odd number of 8-bit bytes (a program's own output) puts the UTF-16
    # marker at an odd offset; the parse starts at the marker.
    out = b"odd 8-bit banner\xe9\r\n!" + utf16(f"XSL-ENV-BEGIN \r\nUSERPROFILE={PROFILE}\r\nPATH=C:\\w\r\n")
    assert winenv.parse_set_output(out) == {"USERPROFILE": PROFILE, "PATH": "C:\\w"}


def test_no_marker_is_none():
    assert winenv.parse_set_output(b"") is None
    assert winenv.parse_set_output(utf16("PATH=C:\\x\r\n")) is None


def test_decode_output_tells_utf16_from_8bit():
    assert (
        winenv.decode_output(utf16("Das System kann den Pfad nicht finden. Jürgen"))
        == "Das System kann den Pfad nicht finden. Jürgen"
    )
    assert winenv.decode_output("plain ü".encode()) == "plain ü"
    assert winenv.decode_output(b"") == ""
    assert "Pfad" in winenv.decode_output(b"Pfad \x81")  # not UTF-8: still text, no exception


def test_command_line_is_verbatim_cmd_with_u():
    command = winenv.capture_command([("C:\\Program Files\\VS\\vcvarsall.bat", "x64"), ("C:\\oneAPI\\vars.bat", "")])
    assert command == (
        'cmd /d /u /s /c "call "C:\\Program Files\\VS\\vcvarsall.bat" x64 && call "C:\\oneAPI\\vars.bat"'
        ' && echo XSL-ENV-BEGIN && set"'
    )


def test_capture_passes_the_command_and_reports_failures_in_one_line():
    seen = []

    def runner(command, timeout):
        seen.append((command, timeout))
        return (0, utf16(f"XSL-ENV-BEGIN\r\nPath=C:\\x\r\nUSERPROFILE={PROFILE}\r\n"), b"")

    env = winenv.capture(runner, [("C:\\a.bat", "")], timeout=12)
    assert env["USERPROFILE"] == PROFILE and seen == [(winenv.capture_command([("C:\\a.bat", "")]), 12)]

    def failing(command, timeout):
        return (1, b"", utf16('Der Befehl "C:\\a.bat" ist falsch geschrieben (Jürgen).\r\n'))

    with pytest.raises(winenv.CaptureError) as failure:
        winenv.capture(failing, [("C:\\a.bat", "")])
    message = str(failure.value)
    assert "exit 1" in message and "C:\\a.bat" in message and "Jürgen" in message and "\n" not in message

    def no_path(command, timeout):
        return (0, utf16("XSL-ENV-BEGIN\r\nFOO=1\r\n"), b"")

    with pytest.raises(winenv.CaptureError, match="exit 0"):
        winenv.capture(no_path, [])


def test_main_refuses_outside_windows(capsys):
    if os.name == "nt":
        pytest.skip("the refusal is for other systems")
    assert winenv.main([]) == 2
    assert "needs Windows" in capsys.readouterr().err


def test_real_cmd_u_output_under_wine():
    """The parser on what a real cmd.exe writes with /u (wine's), non-ASCII value included."""
    wine_run = REPO / "cmake" / "wine-run.sh"
    if not Path("/usr/lib/wine/wine64").exists():
        pytest.skip("wine not installed")
    command = winenv.capture_command([])
    prefix = 'cmd /d /u /s /c "'
    assert command.startswith(prefix) and command.endswith('"')
    inner = command[len(prefix) : -1]  # no inner quotes: wine's own quoting gives the same line
    env = dict(os.environ, XSL_TEST_PROFILE=PROFILE)
    proc = subprocess.run(
        ["bash", str(wine_run), "cmd", "/d", "/u", "/s", "/c", inner], capture_output=True, env=env, timeout=180
    )
    assert proc.returncode == 0, winenv.decode_output(proc.stderr)
    assert proc.stdout.startswith(utf16("XSL-ENV-BEGIN"))  # really UTF-16
    captured = winenv.capture(lambda c, t: (proc.returncode, proc.stdout, proc.stderr), [])
    assert captured["XSL_TEST_PROFILE"] == PROFILE
