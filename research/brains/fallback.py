"""A brain that degrades one step at a time: the model first, the offline brain when the model fails.

A timeout, a 5xx, a refused connection or output that stays invalid after the structured-output
fallbacks costs the run one step of model quality, not the run: that step is redone by the
fallback brain and the run gets a warning saying which step and why. BudgetExceeded is not a
failure and passes through, so the graph can stop researching and write from what it has.
Warnings never carry secrets: known secret values and key-shaped strings are masked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

import openai

from research.brains.base import (
    Brain,
    BudgetExceeded,
    JudgeRequest,
    Plan,
    ReviseRequest,
    TextLookup,
    WriteRequest,
)
from research.brains.llm.model_output import InvalidModelOutput
from research.brains.llm.step_context import in_step
from research.schemas.llm_shapes import AnalystVerdict
from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import ResearcherTask, Source, Usage
from research.secrets import mask

T = TypeVar("T")
WarningSink = Callable[[str, str], None]  # (source, message), e.g. ("openai", "plan failed (...)")

_SDK_PREFIX = re.compile(r"^Error code: \d+ - ")
_MAX_DETAIL = 160


class FallbackBrain:
    def __init__(
        self,
        primary: Brain,
        fallback: Brain,
        on_warning: WarningSink,
        *,
        secrets: Iterable[str] | None = None,
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self.on_warning = on_warning
        self.name = primary.name
        self.kind = primary.kind
        if secrets is None:
            secret_values = getattr(primary, "secret_values", None)
            secrets = secret_values() if callable(secret_values) else ()
        self._secrets = [s for s in secrets if s]

    def plan(self, topic: str, *, max_researchers: int, wants_allocation: bool) -> Plan:
        return self._step(
            "plan", lambda b: b.plan(topic, max_researchers=max_researchers, wants_allocation=wants_allocation)
        )

    def queries(self, task: ResearcherTask, kind: ResearcherKind) -> list[str]:
        return self._step("queries", lambda b: b.queries(task, kind), researcher_id=task.researcher_id)

    def notes(self, task: ResearcherTask, sources: list[Source], text_of: TextLookup) -> str:
        return self._step("notes", lambda b: b.notes(task, sources, text_of), researcher_id=task.researcher_id)

    def judge(self, request: JudgeRequest) -> AnalystVerdict:
        return self._step("judge", lambda b: b.judge(request))

    def write(self, request: WriteRequest) -> str:
        return self._step("write", lambda b: b.write(request))

    def revise(self, request: ReviseRequest) -> str:
        return self._step("revise", lambda b: b.revise(request))

    def take_usage(self) -> Usage:
        return self.primary.take_usage() + self.fallback.take_usage()

    def _step(self, step: str, run: Callable[[Brain], T], *, researcher_id: str | None = None) -> T:
        try:
            with in_step(step, researcher_id):
                return run(self.primary)
        except BudgetExceeded:
            raise
        except Exception as exc:  # noqa: BLE001 - any model failure degrades this step, never the run
            who = f"{researcher_id} " if researcher_id else ""
            server = getattr(self.primary, "server_label", "")  # which server, never its URL
            where = f" on {server}" if server else ""
            self.on_warning(
                self.kind,
                f"{who}{step} failed ({self.describe(exc)}){where}; used the {self.fallback.name} brain for this step",
            )
        return run(self.fallback)

    def describe(self, exc: BaseException) -> str:
        """A short, secret-free reason: 'HTTP 500: upstream error', 'timed out', ..."""
        return describe_model_error(exc, self._secrets)


def describe_model_error(exc: BaseException, secrets: Iterable[str] = ()) -> str:
    """Why a model call failed, in a few words. Scrubbed before truncation, so no key prefix leaks."""
    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "connection failed: the model server could not be reached"
    if isinstance(exc, openai.APIStatusError):
        detail = _SDK_PREFIX.sub("", exc.message)  # "Error code: 500 - ..." repeats the status
        return f"HTTP {exc.status_code}: {_short(mask(detail, secrets))}"
    if isinstance(exc, InvalidModelOutput):
        return f"invalid output after retries: {_short(mask(str(exc), secrets))}"
    return f"{type(exc).__name__}: {_short(mask(str(exc), secrets))}"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"
