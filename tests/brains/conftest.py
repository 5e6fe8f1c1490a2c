"""Every brain test starts and ends with no structured-output method remembered in memory, so
what one test's fake server taught the process never changes another test's requests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from research.brains.llm.structured import forget_methods


@pytest.fixture(autouse=True)
def _fresh_method_memory() -> Iterator[None]:
    forget_methods()
    yield
    forget_methods()
