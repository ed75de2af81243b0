"""csrc/pytorch/tensor_address.h against the real libtorch of the
installed torch wheel: the C++ tensor reader the PyTorch glue installs must
return exactly what Tensor.data_ptr() returns, and decline (so data_ptr()
decides and raises) for everything it cannot read the same way.

The probe module is built with torch.utils.cpp_extension (g++ and ninja).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]
PROBE = REPO / "tests" / "cpp" / "pytorch" / "tensor_address_probe.cpp"


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> ModuleType:
    if shutil.which("g++") is None or shutil.which("ninja") is None:
        pytest.skip("needs g++ and ninja (bash scripts/dev.sh setup)")
    from torch.utils import cpp_extension

    return cpp_extension.load(
        name="xsl_tensor_address_probe",
        sources=[str(PROBE)],
        extra_include_paths=[str(REPO / "csrc")],
        # No -Werror: torch's own headers may warn on other compilers; the
        # header itself builds with -Werror in the xsl_torch_glue_check_* targets.
        extra_cflags=["-Wall", "-Wextra"],
        build_directory=str(tmp_path_factory.mktemp("probe")),
        verbose=False,
    )


class Subclass(torch.Tensor):
    pass


def test_plain_tensors_read_as_data_ptr(probe):
    base = torch.arange(16, dtype=torch.float32)
    for tensor in (base, base[3:], base.view(4, 4)[:, 1], torch.empty(0), torch.nn.Parameter(torch.ones(4))):
        assert probe.address(tensor) == tensor.data_ptr()


def test_view_offset_is_included(probe):
    base = torch.arange(16, dtype=torch.int64)
    assert probe.address(base[5:]) == probe.address(base) + 5 * 8


def test_subclasses_and_non_tensors_are_declined(probe):
    # Subclasses may override data_ptr(): the launcher must call it.
    assert probe.address(torch.ones(4).as_subclass(Subclass)) is None
    for obj in (None, 0, 1 << 40, 1.5, "t", object(), [torch.ones(1)]):
        assert probe.address(obj) is None


def test_tensors_without_storage_are_declined_and_data_ptr_reports(probe):
    sparse = torch.ones(4).to_sparse()
    assert probe.address(sparse) is None
    with pytest.raises(RuntimeError):
        sparse.data_ptr()
