"""The project's own retry policy for model requests (the OpenAI SDK's retries are off).

The SDK would retry a 429/5xx/timeout inside one `invoke`, unseen by the meter: a server could
receive more requests than RESEARCH_MAX_LLM_CALLS. Here every attempt is a metered call that
reserves its own budget unit, so the cap holds exactly. Only transport faults are retried: a
rejection of the request's shape (structured.py tries the next method), a context overflow
(model_caller trims the prompt) and a reply cut at its cap are answers, not faults.
"""

from __future__ import annotations

import openai

from research.brains.llm.capabilities import is_context_overflow, is_shape_rejection

MODEL_RETRIES = 2  # attempts after the first, as the SDK's own default
BACKOFF_BASE = 0.5  # seconds, doubled per attempt
BACKOFF_CAP = 8.0
RETRY_AFTER_CAP = 30.0  # a server asking for longer than this gets no further attempt's wait beyond it
_RETRY_STATUSES = {408, 409, 429}


def is_transient(exc: BaseException) -> bool:
    """A fault worth another attempt: timeouts, refused or dropped connections, 408/409/429, 5xx."""
    if isinstance(exc, openai.LengthFinishReasonError):
        return False
    if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one
        return True
    if not isinstance(exc, openai.APIStatusError) or is_shape_rejection(exc) or is_context_overflow(exc):
        return False
    return exc.status_code in _RETRY_STATUSES or exc.status_code >= 500


def retry_delay(exc: BaseException, attempt: int) -> float:
    """Seconds before attempt `attempt + 1`: the server's Retry-After when it sends one, else backoff."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None:
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            value = headers.get(name)
            if value is None:
                continue
            try:
                seconds = float(value) * scale
            except ValueError:
                continue  # an HTTP date: fall back to the backoff
            if seconds >= 0:
                return min(seconds, RETRY_AFTER_CAP)
    return float(min(BACKOFF_CAP, BACKOFF_BASE * (1 << attempt)))
