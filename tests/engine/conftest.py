"""Engine tests use the shared fixtures of tests/conftest.py (clean environment, `settings`, `runner`).

Tests that need their own logs, environment or a killed process run the engine in a subprocess
(see `helpers.run_cli`).
"""
