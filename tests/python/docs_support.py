"""Reading the project's Markdown (README.md, docs/*.md) for the tests that
check it: fenced blocks and their command lines, and the Python ranges its
sentences give for this package."""

from __future__ import annotations

import re
from pathlib import Path

from patchset_support import REPO

README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
CMD_LANGS = ("bat", "cmd", "batch")
POWERSHELL_LANGS = ("powershell", "ps1", "pwsh")
FENCE = re.compile(r"^```([\w-]*)\s*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def blocks(path: Path) -> list[tuple[str, str, int]]:
    """(language, body, line) of every fenced block."""
    text = path.read_text(encoding="utf-8")
    return [(m.group(1).lower(), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]


def command_lines(body: str) -> list[str]:
    return [line.strip() for line in body.splitlines() if line.strip()]


# Markdown: a new sentence at a blank line, a list item, a heading, a table
# cell, and after . ; ! or ? with a space. Fenced code blocks (FENCE) are
# left out.
BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|#+|\d+\.)\s)|\s*\|\s*|(?<=[.;!?])\s+")
RANGE = re.compile(r"(?<![\w.])3\.(\d+)\s*[-\u2013]\s*3\.(\d+)(?!\w|\.\d)")
PACKAGE_WORD = re.compile(r"\b(?:wheels?|whl|packages?)\b", re.IGNORECASE)
# "torch 2.15.0 wheels", "PyPI's torch XPU Windows wheels": torch's, not this package's.
TORCH_QUALIFIED = re.compile(r"\btorch\b(?:\W+\S+){0,3}\W*$", re.IGNORECASE)


def package_python_ranges(text: str) -> list[tuple[str, str]]:
    """(range, sentence) for each 3.X-3.Y a sentence of ``text`` states
    next to "wheel" or "package" (not a torch release's wheels)."""
    found = []
    for block in BREAK.split(FENCE.sub("", text)):
        sentence = " ".join(block.split())
        ranges = RANGE.findall(sentence)
        if not ranges:
            continue
        words = [m for m in PACKAGE_WORD.finditer(sentence) if not TORCH_QUALIFIED.search(sentence[: m.start()][-80:])]
        if words:
            found += [(f"3.{low}-3.{high}", sentence) for low, high in ranges]
    return found
