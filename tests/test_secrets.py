"""Secrets never reach the event log, the multi-agent log or the checkpoints."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from research.settings import Settings
from tests.helpers import PYTHON, cli_env, run_cli

KEY = "tvly-SECRET-XYZ"


def files_containing(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_the_key_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_TAVILY_API_KEY", KEY)
    settings = Settings(_env_file=None)
    assert settings.tavily_api_key.get_secret_value() == KEY
    assert KEY in settings.secret_values()
    assert KEY not in settings.model_dump_json() and KEY not in repr(settings)


def test_a_configured_key_appears_in_no_event_log_or_checkpoint(tmp_path: Path) -> None:
    result = run_cli(
        ["How do mRNA vaccines work?", "--allocation", "120", "--json"], tmp_path, RESEARCH_TAVILY_API_KEY=KEY
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["status"] == "finished"
    assert KEY not in result.stdout and KEY not in result.stderr

    data, logs = tmp_path / "data", tmp_path / "logs"
    assert (data / "checkpoints.sqlite").stat().st_size > 0 and (data / "runs.sqlite").stat().st_size > 0
    log_text = (logs / "multiagent.log").read_text()
    assert "Tool chosen: search_academic" in log_text and "Supervisor decision: Routing to ->" in log_text
    assert files_containing(tmp_path, KEY.encode()) == []
    assert files_containing(tmp_path, KEY.encode("utf-16-le")) == []


def test_the_log_scrubs_keys_of_a_later_runner_on_the_same_log(tmp_path: Path) -> None:
    # The dashboard builds a new runner when a key changes; the log handler set up by the first
    # runner must learn the new key too. Logging is process-wide, so this runs in a subprocess.
    script = textwrap.dedent(f"""
        import logging
        from pathlib import Path
        from research.logging_setup import configure_logging
        from research.settings import Settings
        logs = Path({str(tmp_path / "logs")!r})
        configure_logging(Settings(_env_file=None, log_dir=logs))
        configure_logging(Settings(_env_file=None, log_dir=logs, tavily_api_key={KEY!r}))
        logging.getLogger("research.agents").info("calling tavily with key %s", {KEY!r})
    """)
    proc = subprocess.run(
        [PYTHON, "-c", script], cwd=tmp_path, env=cli_env(tmp_path), capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "logs" / "multiagent.log").read_text()
    assert "calling tavily with key ***" in text
    assert KEY not in text


def test_the_log_scrubs_keys_inside_tracebacks(tmp_path):
    import logging

    from research.logging_setup import SecretFilter

    handler_path = tmp_path / "trace.log"
    handler = logging.FileHandler(handler_path)
    handler.addFilter(SecretFilter(["sk-TRACEBACK-KEY-99"]))
    logger = logging.getLogger("research.test.traceback")
    logger.addHandler(handler)
    try:
        raise RuntimeError("server said: bad key sk-TRACEBACK-KEY-99")
    except RuntimeError:
        logger.exception("call failed")
    handler.close()
    logger.removeHandler(handler)
    text = handler_path.read_text()
    assert "RuntimeError" in text and "***" in text
    assert "sk-TRACEBACK-KEY-99" not in text


def test_mask_hides_known_values_and_key_shaped_text():
    from research.secrets import mask

    text = "key sk-live-ABCDEF123456 and tvly-XYZ12345678, token Bearer abc.def, custom s3cr3t-value"
    masked = mask(text, ["s3cr3t-value"])
    for secret in ("sk-live-ABCDEF123456", "tvly-XYZ12345678", "abc.def", "s3cr3t-value"):
        assert secret not in masked
    assert masked.count("***") == 4
