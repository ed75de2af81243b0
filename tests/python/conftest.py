"""pytest setup shared by every tests/python module.

The build tree under test is $XSL_BUILD_DIR (default build/linux-gcc); its
assembled package <build>/python is put first on sys.path so
``import xpu_static_launcher`` gets the freshly built extensions.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("XSL_BUILD_DIR", str(REPO / "build" / "linux-gcc"))).resolve()

_package_dir = str(BUILD_DIR / "python")
if os.path.isdir(_package_dir) and _package_dir not in sys.path:
    sys.path.insert(0, _package_dir)


@pytest.fixture(scope="session")
def xsl_build_dir() -> Path:
    """The CMake build tree the tests run against."""
    if not BUILD_DIR.is_dir():
        pytest.skip(f"no build tree at {BUILD_DIR}: build a preset or set XSL_BUILD_DIR")
    return BUILD_DIR


@pytest.fixture(scope="session")
def zebin_corpus(xsl_build_dir: Path) -> Path:
    """<build>/corpus: the ocloc-built zebins with manifest.json."""
    corpus = xsl_build_dir / "corpus"
    if not (corpus / "manifest.json").is_file():
        pytest.skip(f"no zebin corpus in {corpus} (ocloc missing?): build target "
                    "xsl_zebin_corpus")
    return corpus
