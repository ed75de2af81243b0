"""Which Triton-XPU release the launcher's n_regs and n_spills must match.

Triton-XPU changed what its loader reports in 3.9 (docs/launcher.md,
"Metadata: n_regs and n_spills"): before, n_spills is spill memory in bytes
and n_regs 0 without a GRF flag; from 3.9, n_spills is in dword-equivalents
per lane and n_regs 128 without a flag. A static launch must report what a
Triton launch of the same kernel reports, or Inductor's spill threshold and
fusion gate decide differently on warm and cold starts. So the launcher is
told the release: the installed Triton's, else the one the installed torch
pins (its ``Requires-Dist``). Stdlib only.
"""

from __future__ import annotations

import re
from importlib import metadata
from typing import Any

# Distributions that install Triton-XPU's ``triton`` package, in the order
# they are looked for: PyTorch's XPU index, PyPI, then plain Triton.
TRITON_DISTRIBUTIONS = ("pytorch-triton-xpu", "triton-xpu", "triton")
_PIN = re.compile(r"^(pytorch-triton-xpu|triton-xpu)\s*==\s*([0-9][^;\s]*)", re.IGNORECASE)


def installed_triton() -> tuple[str, str] | None:
    """(version, distribution) of the installed Triton, or None."""
    for name in TRITON_DISTRIBUTIONS:
        try:
            return metadata.version(name), name
        except metadata.PackageNotFoundError:
            continue
    return None


def torch_pinned_triton() -> tuple[str, str] | None:
    """(version, distribution) of the Triton-XPU the installed torch pins, or
    None (a CPU or CUDA wheel pins none)."""
    try:
        requires = metadata.requires("torch") or []
    except metadata.PackageNotFoundError:
        return None
    for requirement in requires:
        match = _PIN.match(requirement.strip())
        if match:
            return match.group(2), match.group(1)
    return None


def triton_release() -> tuple[str | None, str]:
    """(version, where it comes from): the installed Triton, else torch's
    pin; (None, why) when neither is known."""
    found = installed_triton()
    if found:
        return found[0], f"installed {found[1]} {found[0]}"
    pinned = torch_pinned_triton()
    if pinned:
        return pinned[0], f"{pinned[1]} {pinned[0]}, pinned by the installed torch (no Triton installed)"
    return None, "no Triton installed and torch pins none"


def apply_to(backend: Any) -> str:
    """Tells ``backend`` (a launcher module with ``_set_triton_version``) the
    release; returns one clause for install()'s message."""
    setter = getattr(backend, "_set_triton_version", None)
    if setter is None:
        return ""
    version, source = triton_release()
    if version is None:
        rule = backend._triton_metadata_rule()
        return f"n_regs/n_spills as Triton-XPU before 3.9 reports them ({rule}: {source})"
    try:
        rule = setter(version)
    except ValueError as err:
        return f"n_regs/n_spills rule unchanged ({err})"
    return f"n_regs/n_spills as Triton-XPU {version} reports them ({rule}: {source})"


__all__ = ["TRITON_DISTRIBUTIONS", "apply_to", "installed_triton", "torch_pinned_triton", "triton_release"]
