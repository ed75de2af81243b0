"""Which compiled SYCL backend (``_sycl_launcher_sycl<N>``) fits this
process: the rule ``xpu_static_launcher._sycl_launcher`` applies before it
imports one (no import here, so it is tested without any)."""

from __future__ import annotations

import importlib
import pkgutil
import re

_BACKEND = re.compile(r"^_sycl_launcher_sycl(\d+)$")


def available_backends() -> dict[int, str]:
    """The compiled backends in this package, by libsycl major."""
    package = importlib.import_module(__package__ or "xpu_static_launcher")
    found: dict[int, str] = {}
    for info in pkgutil.iter_modules(package.__path__):
        match = _BACKEND.match(info.name)
        if match:
            found[int(match.group(1))] = info.name
    return found


def choose_backend(loaded: set[int], available: dict[int, str]) -> str:
    """The backend module name for the libsycl majors ``loaded`` in this
    process, among ``available``; ImportError with the reason otherwise."""
    have = ", ".join(str(m) for m in sorted(available)) or "none"
    if not available:
        raise ImportError(
            "this xpu_static_launcher has no compiled SYCL backend (built without "
            "intel-sycl-rt); install a prebuilt wheel, or rebuild with intel-sycl-rt installed"
        )
    if len(loaded) > 1:
        raise ImportError(
            f"this process loaded libsycl majors {sorted(loaded)}; the SYCL backend can only join a process with one"
        )
    if loaded:
        (major,) = loaded
        if major not in available:
            raise ImportError(
                f"torch loaded libsycl major {major}, but this xpu_static_launcher has SYCL "
                f"backends for libsycl major {have} only; install the wheel built for it, "
                "or rebuild the package in the environment torch runs in"
            )
        return available[major]
    if len(available) == 1:
        return next(iter(available.values()))
    raise ImportError(
        f"no libsycl is loaded yet to choose a SYCL backend by (this package has them "
        f"for libsycl majors {have}); import torch first"
    )
