"""The provider and HTTP-core tests share the fake service and the recorded waits; the library
tests share an empty library in the test's tmp dir."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from research.sources.library.library_store import Library
from tests.fakes.http_fixtures import server, sleeps  # noqa: F401 - fixtures


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library(tmp_path / "library.sqlite")
    yield lib
    lib.close()
