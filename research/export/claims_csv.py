"""The claim check as CSV: one row per cited claim with its verdict, score and passage (cells a
spreadsheet would run as a formula neutralised, UTF-8 with a byte-order mark)."""

from __future__ import annotations

import csv
import io
from typing import Any

from research.export.sources_csv import _cell

COLUMNS = (
    "n",
    "verdict",
    "score",
    "section",
    "claim",
    "passage",
    "source_id",
    "version",
    "method",
    "precision",
    "failure",
    "reason",
)


def render_claims_csv(check: dict[str, Any]) -> bytes:
    """`check`: the claims_checked data of the exported draft version (empty: a header only)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for c in check.get("claims", []):
        writer.writerow(
            [
                c.get("n"),
                c.get("verdict"),
                c.get("score"),
                _cell(c.get("section")),
                _cell(c.get("sentence")),
                _cell(c.get("passage")),
                c.get("source_id") or "",
                check.get("version"),
                c.get("judged_by") or check.get("method"),  # whose verdict: a claim the judge missed is offline
                "" if check.get("precision") is None else check.get("precision"),
                c.get("failure") or "",
                _cell(c.get("reason")),
            ]
        )
    return ("\ufeff" + out.getvalue()).encode("utf-8")
