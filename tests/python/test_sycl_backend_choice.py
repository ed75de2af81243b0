"""xpu_static_launcher._backend_choice: which compiled SYCL backend
(_sycl_launcher_sycl<N>) _sycl_launcher imports for the libsycl majors a
process loaded, and the one ImportError it gives otherwise."""

from __future__ import annotations

import pytest

from xpu_static_launcher._backend_choice import choose_backend

BOTH = {8: "_sycl_launcher_sycl8", 9: "_sycl_launcher_sycl9"}


@pytest.mark.parametrize("loaded, name", [({8}, "_sycl_launcher_sycl8"), ({9}, "_sycl_launcher_sycl9")])
def test_the_backend_of_the_loaded_major(loaded, name):
    assert choose_backend(loaded, BOTH) == name


def test_a_single_backend_is_taken_before_any_libsycl_is_loaded():
    # A source build: its one backend then loads its own libsycl.
    assert choose_backend(set(), {9: "_sycl_launcher_sycl9"}) == "_sycl_launcher_sycl9"


@pytest.mark.parametrize(
    "loaded, available, message",
    [
        ({10}, BOTH, "torch loaded libsycl major 10, but .* for libsycl major 8, 9 only"),
        ({8}, {9: "_sycl_launcher_sycl9"}, "torch loaded libsycl major 8, but .* major 9 only"),
        (set(), BOTH, "no libsycl is loaded yet .* import torch first"),
        ({8, 9}, BOTH, r"loaded libsycl majors \[8, 9\]"),
        ({9}, {}, "no compiled SYCL backend"),
    ],
)
def test_no_fitting_backend_is_one_import_error(loaded, available, message):
    with pytest.raises(ImportError, match=message):
        choose_backend(loaded, available)
