"""The provider and HTTP-core tests share the fake service and the recorded waits."""

from tests.fakes.http_fixtures import server, sleeps  # noqa: F401 - fixtures
