"""The Compare page is fed one computed comparison: `compare` works everything out once, and the
panels draw it without calling back into the stat helpers."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.ui.test_compare_stats import stats
from ui.compare_result import compare
from ui.compare_stats import heading_diff, metrics_frame, overlap_matrix
from ui.compare_summary import summaries

PANELS = Path(__file__).resolve().parents[2] / "ui" / "panels"


def test_one_comparison_holds_what_every_panel_draws():
    a, b = stats()
    result = compare([a, b], missing=["gone"])
    assert result.runs == [a, b] and result.missing == ["gone"] and result.done
    assert result.unique == {"a": 2, "b": 1} and (a.unique, b.unique) == (2, 1) and result.shared == 1
    assert result.summaries == summaries(stats())  # the same lines as computed on their own
    assert result.best is b
    assert result.measures.equals(metrics_frame([a, b]))
    assert result.overlap.equals(overlap_matrix([a, b]))
    assert list(result.sections["Section"]) == ["Summary", "Safety", "Sources", "History", "    Early work"]
    assert result.diffs[("a", "b")] == heading_diff(a, b)
    assert result.diffs[("a", "a")] == "Same 3 sections in the same order."


def test_the_compare_panels_only_read_the_comparison():
    for path in sorted(PANELS.glob("compare_*.py")):
        imported = {
            node.module
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert not imported & {"ui.compare_stats", "ui.compare_summary"}, path.name
        assert "ui.compare_result" in imported, path.name
