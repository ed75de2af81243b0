"""n_regs and n_spills follow the Triton-XPU release (docs/launcher.md,
"Metadata: n_regs and n_spills"): which release install() finds, and what
the launcher then reports for the same kernel under each rule."""

from __future__ import annotations

from importlib import metadata
from types import SimpleNamespace

import pytest

import launcher_support as support
from xpu_static_launcher import triton_release

support.setup_environment()
_missing = support.missing_prerequisites()


def fake_distributions(
    monkeypatch: pytest.MonkeyPatch, versions: dict[str, str], torch_requires: list[str] | None
) -> None:
    def version(name: str) -> str:
        if name in versions:
            return versions[name]
        raise metadata.PackageNotFoundError(name)

    def requires(name: str) -> list[str] | None:
        if name == "torch" and torch_requires is not None:
            return torch_requires
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(triton_release.metadata, "version", version)
    monkeypatch.setattr(triton_release.metadata, "requires", requires)


XPU_TORCH_REQUIRES = [
    "filelock",
    'pytorch-triton-xpu==3.7.2+git5fcc14d9; platform_system == "Linux"',
    "intel-sycl-rt==2025.3.3",
]


@pytest.mark.parametrize(
    "versions, requires, version, source",
    [
        # The installed Triton wins: it is what cold starts run.
        ({"triton-xpu": "3.3.0b1"}, XPU_TORCH_REQUIRES, "3.3.0b1", "installed triton-xpu 3.3.0b1"),
        (
            {"pytorch-triton-xpu": "3.9.0+git00b9d1ae"},
            None,
            "3.9.0+git00b9d1ae",
            "installed pytorch-triton-xpu 3.9.0+git00b9d1ae",
        ),
        # No Triton: what the installed torch pins (torch 2.13 XPU pins 3.7.2).
        (
            {},
            XPU_TORCH_REQUIRES,
            "3.7.2+git5fcc14d9",
            "pytorch-triton-xpu 3.7.2+git5fcc14d9, pinned by the installed torch (no Triton installed)",
        ),
        ({}, ["triton-xpu==3.9.1"], "3.9.1", "triton-xpu 3.9.1, pinned by the installed torch (no Triton installed)"),
        # A CPU torch pins none.
        ({}, ["filelock"], None, "no Triton installed and torch pins none"),
    ],
)
def test_the_release_is_the_installed_triton_else_torchs_pin(monkeypatch, versions, requires, version, source):
    fake_distributions(monkeypatch, versions, requires)
    assert triton_release.triton_release() == (version, source)


class FakeBackend(SimpleNamespace):
    def __init__(self) -> None:
        super().__init__(rule="bytes", told=[])

    def _set_triton_version(self, version: str) -> str:
        self.told.append(version)
        if not version[:1].isdigit():
            raise ValueError(f"Triton version '{version}' does not start with MAJOR.MINOR")
        self.rule = "per-lane" if tuple(int(p) for p in version.split("+")[0].split(".")[:2]) >= (3, 9) else "bytes"
        return self.rule

    def _triton_metadata_rule(self) -> str:
        return self.rule


def test_apply_to_tells_the_backend_and_says_so(monkeypatch):
    backend = FakeBackend()
    fake_distributions(monkeypatch, {"triton-xpu": "3.9.0"}, None)
    assert triton_release.apply_to(backend) == (
        "n_regs/n_spills as Triton-XPU 3.9.0 reports them (per-lane: installed triton-xpu 3.9.0)"
    )
    fake_distributions(monkeypatch, {}, ["filelock"])
    assert triton_release.apply_to(backend).startswith("n_regs/n_spills as Triton-XPU before 3.9 reports them")
    assert backend.told == ["3.9.0"]
    assert triton_release.apply_to(SimpleNamespace()) == ""  # a backend from before SPIR-V loading


@pytest.mark.skipif(_missing is not None, reason=_missing or "")
def test_the_launcher_reports_each_rule_for_the_same_spilling_kernel(zebin_corpus, records):
    """One row per rule of the table, on the real launcher and test driver:
    the spilling kernel (SIMD 32, 65536 spill bytes) and a 256-GRF build."""
    from xpu_static_launcher._launcher import StaticXpuLauncher as L

    from xpu_static_launcher import _launcher, launcher

    spill = str(zebin_corpus / "spill_pvc_grf128.zebin")
    large = str(zebin_corpus / "add_pvc_grf256.zebin")
    try:
        assert _launcher._set_triton_version("3.7.2+git5fcc14d9") == "bytes"
        _, n_regs, n_spills = L._load_kernel(spill, "spill", 0, 0)
        assert (n_regs, n_spills) == (0, 65536)  # bytes; no GRF flag is 0
        assert L._load_kernel(large, "add", 0, 0)[1] == 256
        assert _launcher._set_triton_version("3.9.0") == "per-lane"
        assert _launcher._triton_metadata_rule() == "per-lane"
        function, n_regs, n_spills = L._load_kernel(spill, "spill", 0, 0)
        assert launcher.kernel_info(function)["threads_per_warp"] == 32
        assert (n_regs, n_spills) == (128, 65536 // (4 * 32))  # dword-equivalents per lane
        assert L._load_kernel(large, "add", 0, 0)[1] == 256
        # The build flags, when given, decide n_regs as in Triton's loader.
        assert L._load_kernel(spill, "spill", 0, 0, "-cl-intel-512-GRF-per-thread")[1] == 512
        with pytest.raises(ValueError, match="does not start with MAJOR.MINOR"):
            _launcher._set_triton_version("nightly")
    finally:
        _launcher._set_triton_version("3.8.0")  # the default
