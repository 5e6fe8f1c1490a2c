"""Saved comparisons persist in the data dir and survive a new store (a restarted app)."""

from __future__ import annotations

import pytest

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


def test_an_unreadable_file_does_not_break_the_page_and_the_next_save_repairs_it(tmp_path):
    (tmp_path / "comparisons.json").write_text("{not json", encoding="utf-8")
    store = ComparisonStore(tmp_path)
    assert store.newest_first() == []
    saved = store.save("Topic", ["r1", "r2"])
    assert [c.id for c in store.newest_first()] == [saved.id]
