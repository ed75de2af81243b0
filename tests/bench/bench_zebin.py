#!/usr/bin/env python3
"""Benchmark: kernel metadata (spill, GRF, SIMD for every kernel) of each
corpus zebin, read with this project's reader vs pyelftools + regexes (the
way Triton-XPU gets `spill_size` from `.ze_info`).

Both run in this process on the same bytes (files are read once, so disk
time is out of both), each timed over many runs; the figure per file is the
median, and the headline is total baseline time / total reader time over
all files.

    XSL_BUILD_DIR=build/linux-gcc python3 tests/bench/bench_zebin.py

Last line: ``speedup_vs_pyelftools: <x>``.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Triton-XPU's spill regex, and the same style for GRF and SIMD.
SPILL = re.compile(r"spill_size\s*[:=]\s*(\d+)")
GRF = re.compile(r"grf_count\s*[:=]\s*(\d+)")
SIMD = re.compile(r"simd_size\s*[:=]\s*(\d+)")


def baseline(data: bytes) -> list[tuple[int, int, int]]:
    from elftools.elf.elffile import ELFFile

    text = ELFFile(io.BytesIO(data)).get_section_by_name(".ze_info").data().decode()
    spills = [int(v) for v in SPILL.findall(text)]
    grfs = [int(v) for v in GRF.findall(text)]
    simds = [int(v) for v in SIMD.findall(text)]
    spills += [0] * (len(grfs) - len(spills))
    return list(zip(spills, grfs, simds))


def median_seconds(fn: Callable[[bytes], object], data: bytes, runs: int, batch: int) -> float:
    """Median over `runs` samples of the time per call, each sample timing
    `batch` calls (so the clock's resolution does not matter)."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(batch):
            fn(data)
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--build-dir",
        type=Path,
        default=Path(os.environ.get("XSL_BUILD_DIR", REPO / "build" / "linux-gcc")),
        help="CMake build tree with python/ and corpus/ (default $XSL_BUILD_DIR or build/linux-gcc)",
    )
    parser.add_argument("--runs", type=int, default=31, help="samples per file and reader")
    parser.add_argument("--files", type=int, default=0, help="only the first N files (0: all)")
    args = parser.parse_args()

    sys.path.insert(0, str(args.build_dir / "python"))
    from xpu_static_launcher import zebin  # noqa: E402

    paths = sorted((args.build_dir / "corpus").glob("*.zebin"))
    if args.files:
        paths = paths[: args.files]
    if not paths:
        print(f"no zebins in {args.build_dir / 'corpus'}: build target xsl_zebin_corpus", file=sys.stderr)
        return 1
    total_ours = 0.0
    total_theirs = 0.0
    print(f"{'file':44} {'reader us':>10} {'pyelftools us':>14} {'x':>7}")
    for path in paths:
        data = path.read_bytes()
        ours = [(spill, grf, simd) for _, simd, grf, spill in zebin.kernel_summary(data)]
        theirs = baseline(data)
        # Same kernels, same GRF and SIMD; spill agrees where .ze_info states it.
        assert [(g, s) for _, g, s in ours] == [(g, s) for _, g, s in theirs], path.name
        t_ours = median_seconds(zebin.kernel_summary, data, args.runs, 50)
        t_theirs = median_seconds(baseline, data, args.runs, 2)
        total_ours += t_ours
        total_theirs += t_theirs
        print(f"{path.name:44} {t_ours * 1e6:10.1f} {t_theirs * 1e6:14.1f} {t_theirs / t_ours:7.1f}")
    print(
        f"files: {len(paths)}, reader total {total_ours * 1e3:.2f} ms, "
        f"pyelftools total {total_theirs * 1e3:.2f} ms, "
        f"per file {total_ours / len(paths) * 1e6:.1f} us vs "
        f"{total_theirs / len(paths) * 1e6:.1f} us"
    )
    print(f"speedup_vs_pyelftools: {total_theirs / total_ours:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
