"""Every command README's Windows blocks give the user parses as written:
each `python -m xpu_static_launcher ...`, `python scripts\\<tool>.py ...` and
`scripts\\harness.cmd ...` line reaches its own argparse parser, which
accepts its arguments. The commands are not run (no GPU, no Windows here):
the parser's result is taken and the program stopped there."""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable
from typing import Any

import pytest

from docs_support import CMD_LANGS, POWERSHELL_LANGS, README, blocks, command_lines
from patchset_support import load_script


class Parsed(Exception):
    """Raised by the patched parse_args: the arguments were accepted."""

    def __init__(self, namespace: argparse.Namespace) -> None:
        super().__init__(namespace)
        self.namespace = namespace


def documented() -> list[tuple[str, list[str]]]:
    """(program, argv) of every command line README's cmd and PowerShell
    blocks give for the package, a script or the harness."""
    found = []
    for lang, body, _ in blocks(README):
        if lang not in CMD_LANGS + POWERSHELL_LANGS:
            continue
        for line in command_lines(body):
            words = shlex.split(line.replace("\\", "/"))
            if words[:3] == ["python", "-m", "xpu_static_launcher"]:
                found.append(("xpu_static_launcher", words[3:]))
            elif words[:1] == ["python"] and len(words) > 1 and re.fullmatch(r"scripts/\w+\.py", words[1]):
                found.append((words[1][len("scripts/") : -3], words[2:]))
            elif words[:1] == ["scripts/harness.cmd"]:
                found.append(("harness", words[1:]))
    return found


def entry(program: str) -> Callable[[list[str]], Any]:
    if program == "xpu_static_launcher":
        from xpu_static_launcher import __main__ as cli

        return cli.main
    return load_script(program).main


COMMANDS = documented()


def test_readme_documents_the_four_steps_and_the_tools():
    programs = {(program, tuple(argv[:1])) for program, argv in COMMANDS}
    for step in ("check", "enable-at-startup", "verify", "uninstall"):
        assert ("xpu_static_launcher", (step,)) in programs, step
    assert {program for program, _ in COMMANDS} >= {"xpu_static_launcher", "level_zero_sdk", "doctor", "harness"}


@pytest.mark.parametrize("program, argv", COMMANDS, ids=[" ".join([p] + a) for p, a in COMMANDS])
def test_each_documented_command_parses(program: str, argv: list[str], monkeypatch):
    def accept(self: argparse.ArgumentParser, args: Any = None, namespace: Any = None) -> argparse.Namespace:
        # argparse's own parse, then stop: what runs next needs a GPU or Windows.
        raise Parsed(original(self, args, namespace))

    original = argparse.ArgumentParser.parse_args
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", accept)
    with pytest.raises(Parsed) as parsed:
        entry(program)(list(argv))
    namespace = vars(parsed.value.namespace)
    if program == "xpu_static_launcher":
        assert namespace["command"] == argv[0]
    if "--bench" in argv:
        assert namespace["bench"] is True


def test_a_wrong_argument_is_refused_by_the_same_check(monkeypatch):
    # The check can fail: argparse exits with status 2 on an unknown option.
    with pytest.raises(SystemExit) as exited:
        entry("xpu_static_launcher")(["verify", "--no-such-option"])
    assert exited.value.code == 2
