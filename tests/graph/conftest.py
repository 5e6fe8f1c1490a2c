"""Whole offline runs (library sources, offline brain) in a fresh data dir: the engine's fixtures."""

from tests.engine.conftest import _no_ambient_config, runner, session_log_dir, settings  # noqa: F401
