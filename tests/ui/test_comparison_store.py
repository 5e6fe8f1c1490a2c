"""Saved comparisons persist in the run store and survive a new store (a restarted app)."""

from __future__ import annotations

import json

import pytest

from research.runs.store import RunStore
from ui.comparison_store import ComparisonError, ComparisonStore


def test_a_saved_comparison_is_found_again_by_a_new_store(tmp_path):
    first = ComparisonStore(tmp_path).save("Topic", ["r1", "r2", "r1"], ["210", "111"])
    older = ComparisonStore(tmp_path).save("Older", ["r3", "r4"])
    again = ComparisonStore(tmp_path)
    found = again.get(first.id)
    assert found is not None and found.run_ids == ["r1", "r2"] and found.allocations == ["210", "111"]
    assert {c.id for c in again.newest_first()} == {first.id, older.id}
    again.delete(first.id)
    assert [c.id for c in ComparisonStore(tmp_path).newest_first()] == [older.id]


@pytest.mark.parametrize("run_ids", [["r1"], ["r1", "r1"], ["a", "b", "c", "d", "e"]])
def test_two_to_four_distinct_runs(tmp_path, run_ids):
    with pytest.raises(ComparisonError, match="2-4 different runs"):
        ComparisonStore(tmp_path).save("Topic", run_ids)
    assert ComparisonStore(tmp_path).newest_first() == []


def test_an_unreadable_legacy_file_does_not_break_the_page(tmp_path):
    (tmp_path / "comparisons.json").write_text("{not json", encoding="utf-8")
    store = ComparisonStore(tmp_path)
    assert store.newest_first() == []
    saved = store.save("Topic", ["r1", "r2"])
    assert [c.id for c in store.newest_first()] == [saved.id]


def test_a_legacy_comparisons_file_is_imported_once_into_the_run_store(tmp_path):
    legacy = {
        "comparisons": [
            {"id": "abc", "title": "Old", "run_ids": ["r1", "r2"], "created_at": 5.0, "allocations": ["100", "010"]},
            {"broken": True},
        ]
    }
    (tmp_path / "comparisons.json").write_text(json.dumps(legacy), encoding="utf-8")
    store = ComparisonStore(tmp_path)
    assert [(c.id, c.run_ids, c.allocations) for c in store.newest_first()] == [("abc", ["r1", "r2"], ["100", "010"])]
    assert not (tmp_path / "comparisons.json").exists() and (tmp_path / "comparisons.json.imported").exists()
    assert len(RunStore(tmp_path / "runs.sqlite").comparisons()) == 1  # in the run store itself
    assert len(ComparisonStore(tmp_path).newest_first()) == 1  # not imported twice
