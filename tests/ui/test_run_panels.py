"""Every panel rendered from a stored event log, re-attached through the URL's run id."""

from __future__ import annotations

from research.api import RunStore, RunView
from tests.ui.canned import DRAFT, HOSTILE_SNIPPET, HOSTILE_TITLE, canned_events, store_canned_run
from tests.ui.conftest import has_block, plain, texts
from ui.panels.pipeline import phase_states


def sources_table(at):
    return next(d for d in at.dataframe if "Snippet" in d.value.columns)


def version_picker(at):
    return next(s for s in at.selectbox if s.label == "Version")


def test_panels_fill_from_the_event_log(make_app, data_dir):
    run_id = store_canned_run(data_dir, "How is mRNA delivered?")
    at = make_app(run_id).run()
    assert not at.exception
    page = "\n".join(texts(at))
    # The pipeline strip and the supervisor's decision.
    assert "Round 2" in page and "Allocation 210 · :blue-badge[Set by you]" in page
    assert "1. How is mRNA delivered?" in page
    # One card per researcher, follow-ups marked with their round.
    for rid in ("web-1", "academic-1", "book-1-r1"):
        assert has_block(at, f"researcher-card-{rid}")
    assert any("book-1-r1" in t and "follow-up · round 2" in t for t in page.splitlines())
    # The provider warning appears in the card of the researcher it happened to.
    card = at.container(key="researcher-card-academic-1")
    assert [plain(w.value) for w in card.warning] == ["openalex: HTTP 503; used the local library instead."]


def test_sources_table_has_one_row_per_source_with_citations(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    table = sources_table(at)
    frame = table.value
    assert len(frame) == 4
    assert set(frame["Kind"]) == {"web", "academic", "book"}
    cited = dict(zip(frame["Title"], frame["Cited"], strict=False))
    assert cited["Lipid Nanoparticles Explained"] and cited["Phase 3 Trials Review"]
    assert not cited["Cold Chain Logistics"]
    assert dict(zip(frame["Title"], frame["Researcher"], strict=False))["Cold Chain Logistics"] == "book-1-r1"
    assert [b.label for b in at.download_button][:1] == ["Download table (CSV)"]


def test_kind_filter_narrows_the_table(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    at.button_group(key=f"source-kinds-{run_id}").set_value(["book"]).run()
    table = sources_table(at)
    assert list(table.value["Title"]) == ["Cold Chain Logistics"]


def test_critiques_show_one_verdict_badge_per_round(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    first, second = at.container(key="critique-round-1"), at.container(key="critique-round-2")
    assert any(":orange-badge[:material/rule: NEEDS_IMPROVEMENT]" in m.value for m in first.markdown)
    assert any(plain(m.value) == "- Cold chain storage" for m in first.markdown)
    assert any(plain(m.value) == "- mrna cold chain" for m in first.markdown)
    assert any(":green-badge[:material/verified: APPROVED]" in m.value for m in second.markdown)


def test_draft_is_rendered_with_its_sources(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    body = at.container(key=f"draft-body-{run_id}")
    rendered = body.markdown[0].value
    assert "Lipid nanoparticles carry the mRNA into cells [1]." in rendered
    assert "[2] Phase 3 Trials Review." in rendered
    assert "#### Summary" in rendered  # demoted below the page's own headings
    assert version_picker(at).options[0].startswith("v1 · Writer's draft")


def test_saving_an_edit_creates_a_version_and_rechecks_citations(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    at.toggle(key=f"draft-edit-{run_id}").set_value(True).run()
    editor = at.text_area(key=f"draft-text-{run_id}")
    assert editor.label == "Draft" and editor.value == DRAFT
    edited = DRAFT.replace("high efficacy [2].", "high efficacy [2] and lasting effects [7].")
    editor.input(edited).run()
    next(b for b in at.button if b.label == "Save").click().run()
    versions = RunStore(data_dir / "runs.sqlite").draft_versions(run_id)
    assert [(v.version, v.note) for v in versions] == [(1, "Writer's draft"), (2, "Edited")]
    assert versions[-1].markdown == edited
    assert any("[7] has no entry in the Sources list." in plain(w.value) for w in at.warning)
    # Back in view mode the latest version is shown, still flagged.
    at.toggle(key=f"draft-edit-{run_id}").set_value(False).run()
    assert version_picker(at).value == 2
    assert "lasting effects [7]" in at.container(key=f"draft-body-{run_id}").markdown[0].value
    assert any("[7] has no entry" in plain(w.value) for w in at.warning)


def test_an_older_version_can_be_restored_as_a_new_one(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    store = RunStore(data_dir / "runs.sqlite")
    store.save_draft_version(run_id, "# Rewritten\n\nShort.\n", note="Edited")
    at = make_app(run_id).run()
    version_picker(at).set_value(1).run()
    next(b for b in at.button if b.label == "Restore v1").click().run()
    versions = store.draft_versions(run_id)
    assert [(v.version, v.note) for v in versions][-1] == (3, "Restored v1")
    assert versions[-1].markdown == DRAFT


def test_outside_html_is_shown_as_text_never_rendered(make_app, data_dir):
    topic = "<script>alert('topic')</script> mRNA"
    run_id = store_canned_run(data_dir, topic)
    at = make_app(run_id).run()
    # Nothing on the page may be rendered with HTML allowed.
    assert not at.get("html")
    assert all(not m.proto.allow_html for m in at.markdown)
    # The hostile title and snippet reach the table as plain cell text.
    frame = sources_table(at).value
    assert HOSTILE_TITLE in set(frame["Title"]) and HOSTILE_SNIPPET in set(frame["Snippet"])
    # The topic heading carries the tags escaped, so markdown shows them literally.
    heading = next(m.value for m in at.markdown if m.value.startswith("### "))
    assert "\\<script\\>" in heading and plain(heading) == f"### {topic}"


def test_a_failed_run_shows_its_error_and_keeps_what_it_found(make_app, data_dir):
    run_id = store_canned_run(data_dir, fail=True)
    at = make_app(run_id).run()
    assert any("The run failed: RuntimeError: the brain crashed mid-run" in plain(e.value) for e in at.error)
    frame = sources_table(at).value
    assert len(frame) == 3
    assert has_block(at, "researcher-card-web-1")


def test_warnings_appear_where_they_happened_and_in_the_summary(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    warnings = [plain(w.value) for w in at.warning]
    assert warnings == [
        "supervisor: The model's allocation 500 was invalid; used the default 111.",  # supervisor panel
        "openalex: HTTP 503; used the local library instead.",  # academic-1's card
        "writer: Removed citations that matched no source: [9].",  # draft panel
    ]
    summary = next(e for e in at.expander if e.label == "Warnings during this run")
    assert len(summary.markdown) == 3


def test_a_run_whose_process_died_is_marked_interrupted_with_resume(make_app, data_dir):
    store = RunStore(data_dir / "runs.sqlite")
    store.create_run("orphan000001", "Left running", "100", "offline")  # status running, no thread
    for event in canned_events("orphan000001", "Left running")[:8]:
        store.append_event(event)
    at = make_app("orphan000001").run()
    assert any(":orange-badge[:material/pause_circle: Interrupted]" in m.value for m in at.markdown)
    assert any(b.label == "Resume run" for b in at.button)
    assert has_block(at, "researcher-card-web-1")


def test_transcript_lists_the_runs_messages_as_text(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = make_app(run_id).run()
    transcript = next(e for e in at.expander if e.label == "Transcript")
    said = [plain(m.value) for m in transcript.markdown]
    assert said[:2] == ["Supervisor", "Supervisor Directive: web-1 to research delivery."]
    assert f"2 sources.\n\n- {HOSTILE_SNIPPET} ({HOSTILE_TITLE})" in said  # bullet kept, tags as text
    assert "writer" in said and "Draft ready: 2 sources cited." in said


def test_pipeline_strip_follows_the_phase_and_the_run_status():
    view = RunView(status="running", phase="analyst")
    assert phase_states(view) == {
        "supervisor": "done",
        "researchers": "done",
        "analyst": "active",
        "writer": "pending",
    }
    view.status = "failed"
    assert phase_states(view)["analyst"] == "failed"
    assert phase_states(RunView(status="paused", phase="supervisor"))["supervisor"] == "paused"
    assert set(phase_states(RunView(status="finished")).values()) == {"done"}
