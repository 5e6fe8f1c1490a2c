"""The suite's hang guard: tests that start child servers get the wider limit, others keep pyproject's."""

from __future__ import annotations

import pytest

from tests.conftest import CHILD_PROCESS_TIMEOUT_S

pytest_plugins = ["pytester"]

CONFTEST = """
import pytest
from tests.conftest import pytest_collection_modifyitems  # noqa: F401 - the hook under test
"""

TESTS = """
import pytest

@pytest.mark.browser
def test_in_a_browser(request):
    assert request.node.get_closest_marker("timeout").args == (EXPECTED,)

@pytest.mark.server
def test_against_a_server(request):
    assert request.node.get_closest_marker("timeout").args == (EXPECTED,)

@pytest.mark.browser
@pytest.mark.timeout(7)
def test_with_its_own_limit(request):
    assert request.node.get_closest_marker("timeout").args == (7,)

def test_plain(request):
    assert request.node.get_closest_marker("timeout") is None
"""


def test_child_server_tests_get_the_wide_limit_and_others_keep_theirs(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(TESTS.replace("EXPECTED", str(CHILD_PROCESS_TIMEOUT_S)))
    pytester.makeini("[pytest]\nmarkers =\n    browser: b\n    server: s\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
