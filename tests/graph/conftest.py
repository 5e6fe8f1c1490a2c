"""The graph tests share the engine tests' fixtures: clean environment, offline brain, library sources."""

from tests.engine.conftest import _no_ambient_config, runner, session_log_dir, settings  # noqa: F401
