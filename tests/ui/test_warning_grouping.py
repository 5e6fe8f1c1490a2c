"""Repeated warnings in one place collapse into one line with a count."""

from __future__ import annotations

from research.schemas.state_shapes import RunWarning
from ui.panels.warnings import grouped


def test_warnings_that_differ_only_by_query_are_counted_once():
    warnings = [
        RunWarning(source="arxiv", message="host not found (no network?) at export.arxiv.org/api/query"),
        RunWarning(source="arxiv", message="host not found (no network?) at export.arxiv.org/api/query"),
        RunWarning(
            source="library", message="arxiv, openalex failed for 'mRNA review'; used the local library instead."
        ),
        RunWarning(
            source="library", message='arxiv, openalex failed for "mRNA trial"; used the local library instead.'
        ),
        RunWarning(source="openalex", message="HTTP 503 after 3 attempts from api.openalex.org/works"),
    ]
    assert grouped(warnings) == [
        ("arxiv", "host not found (no network?) at export.arxiv.org/api/query", 2),
        ("library", "arxiv, openalex failed; used the local library instead.", 2),
        ("openalex", "HTTP 503 after 3 attempts from api.openalex.org/works", 1),
    ]


def test_different_messages_stay_apart():
    warnings = [
        RunWarning(source="tavily", message="HTTP 429"),
        RunWarning(source="tavily", message="timed out after 15s"),
    ]
    assert [count for *_, count in grouped(warnings)] == [1, 1]
