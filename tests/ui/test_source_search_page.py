"""Search within a run's sources on the Research page: the box over the Sources table narrows the
table to the sources holding the words and shows each match's passage highlighted, as inert text;
a claim's "Find in sources" fills the box with its passage, its source first."""

from __future__ import annotations

from research.api import RunStore, fold
from tests.ui.stored_runs import real_runs
from ui.text import md_escape


def _hits(at, run_id: str) -> list[str]:
    return [m.value for m in at.container(key=f"source-search-hits-{run_id}").get("markdown")]


def test_the_search_box_narrows_the_table_and_highlights_the_passage(make_app, data_dir):
    (run_id,) = real_runs(data_dir, ["111"])
    store = RunStore(data_dir / "runs.sqlite")
    view = fold(store.events(run_id))
    at = make_app(run_id).run()
    everything = len(at.dataframe[0].value)
    assert everything == len(view.sources)

    at.text_input(key=f"source-search-{run_id}").input("ionizable lipid").run()

    hits = _hits(at, run_id)
    assert hits and all(":orange-background[**" in h for h in hits)
    assert any("ionizable lipid" in h.lower().replace("\\", "") for h in hits)
    matching = {sid for sid in view.sources if "ionizable lipid" in store.get_text(run_id, sid).lower()}
    assert 0 < len(at.dataframe[0].value) < everything
    assert matching <= set(at.dataframe[0].value["Source id"])

    at.text_input(key=f"source-search-{run_id}").input("zebra quasar").run()
    assert len(at.dataframe[0].value) == 0
    assert any("No source of this run holds every word" in c.value for c in at.caption)


def test_a_claim_links_to_its_passage_in_the_sources_search(make_app, data_dir):
    (run_id,) = real_runs(data_dir, ["111"])
    view = fold(RunStore(data_dir / "runs.sqlite").events(run_id))
    claim = next(c for c in view.claims.claims if c.source_id and c.passage)
    at = make_app(run_id).run()

    next(b for b in at.button if b.label == "Find in sources").click().run()

    query = at.text_input(key=f"source-search-{run_id}").value
    assert query and claim.passage.startswith(query.split()[0])
    first = _hits(at, run_id)[0]
    assert first.startswith(f"**{md_escape(view.sources[claim.source_id].title)}**")  # its source first
