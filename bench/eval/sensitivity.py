"""Can the claim check fail? Offline drafts quote their sources, so their precision is high by
construction; this figure re-checks each covered run's draft with every citation pointed at the
wrong source (n -> the next source), and counts how many of those miscited claims it flags."""

from __future__ import annotations

from collections.abc import Callable

from research.drafts.claims import check_claims


def miscited_flagged(markdown: str, citations: dict[int, str], text_of: Callable[[str], str]) -> tuple[int, int]:
    """(flagged, checked) for the draft with its citation map rotated by one."""
    numbers = sorted(citations)
    if len(numbers) < 2:
        return 0, 0
    rotated = {n: citations[numbers[(i + 1) % len(numbers)]] for i, n in enumerate(numbers)}
    claims = [c for c in check_claims(markdown, rotated, text_of) if c.verdict != "unverifiable"]
    return sum(c.verdict != "supported" for c in claims), len(claims)
