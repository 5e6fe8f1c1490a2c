"""logs/multiagent.log: tool choices, arguments, result previews and routing, never a secret."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from logging.handlers import RotatingFileHandler

from research.secrets import mask
from research.settings import Settings

# The run a log line belongs to. LangGraph runs each node in a copy of the caller's context, so the
# runner sets it once and every line its nodes (and their worker threads) log carries it.
current_run_id: ContextVar[str] = ContextVar("research_run_id", default="-")
# The run's topic, so log lines name the run by its id and never spell out what it researches
# (a deleted run must not live on in the log).
current_topic: ContextVar[re.Pattern[str] | None] = ContextVar("research_topic", default=None)
TOPIC_MASK = "<topic>"


@contextmanager
def run_id_scope(run_id: str, *, topic: str = "") -> Iterator[None]:
    token = current_run_id.set(run_id)
    # A literal pattern (escaped): matched in linear time, any case ("What is X?" questions lower it).
    topic_token = current_topic.set(re.compile(re.escape(topic.strip()), re.IGNORECASE) if topic.strip() else None)
    try:
        yield
    finally:
        current_topic.reset(topic_token)
        current_run_id.reset(token)


class RunIdFilter(logging.Filter):
    """Stamps the run id on a record and takes the run's topic out of its message."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.run_id = current_run_id.get()
        topic = current_topic.get()
        if topic is not None:
            message = record.getMessage()
            masked = topic.sub(TOPIC_MASK, message)
            if masked != message:
                record.msg, record.args = masked, ()
        return True


class SecretFilter(logging.Filter):
    """Replaces configured secret values in every record before it is written."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if len(s) >= 4]

    def add(self, secrets: list[str]) -> None:
        self.secrets += [s for s in secrets if len(s) >= 4 and s not in self.secrets]

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg, record.args = self.scrub(record.getMessage()), ()
            if record.exc_info and not record.exc_text:
                # Tracebacks quote exception texts, which may quote a key: format and scrub them here.
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = self.scrub(record.exc_text)
            if record.stack_info:
                record.stack_info = self.scrub(record.stack_info)
        return True

    def scrub(self, text: str) -> str:
        return mask(text, self.secrets)


_configured: dict[str, SecretFilter] = {}  # log path -> the filter of its handler


def configure_logging(settings: Settings) -> None:
    path = (settings.log_dir / "multiagent.log").resolve()
    if str(path) in _configured:
        # Same log, possibly new keys (the dashboard builds a new runner when a key changes).
        _configured[str(path)].add(settings.secret_values())
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=5_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s run=%(run_id)s: %(message)s"))
    handler.addFilter(RunIdFilter())
    secret_filter = SecretFilter(settings.secret_values())
    handler.addFilter(secret_filter)
    logger = logging.getLogger("research")
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    logger.propagate = False
    _configured[str(path)] = secret_filter
