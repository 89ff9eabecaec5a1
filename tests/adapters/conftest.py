"""Tests that start threads in the pytest process (JAX's CPU backend, a local Ray) run
after every other test, so that no later test forks DataLoader workers from a
multithreaded process."""

from __future__ import annotations

import warnings

import pytest

MARK = "threads_in_process"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARK}: starts threads in the pytest process (runs last)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker(MARK) is not None)  # stable


@pytest.fixture
def quiet_loader_warnings():
    """Silences DataLoader's worker notes and torch's sparse-CSR beta warning."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(worker|Sparse).*")
        yield


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """240 sequences of :func:`helpers.write_ctf` with the sparse stream ``y``."""
    from .helpers import write_ctf

    return write_ctf(tmp_path_factory.mktemp("adapters") / "d.ctf", sequences=240, sparse=True)
