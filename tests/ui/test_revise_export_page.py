"""Revise the draft with an instruction, the export downloads with safe file names, and a run
file imported in History."""

from __future__ import annotations

from research.api import RunStore, export_bundle, export_run
from tests.ui.canned import store_canned_run
from tests.ui.conftest import has_block, plain
from tests.ui.stored_runs import real_runs
from ui.panels.export import BUTTONS, download_name, file_builder
from ui.text import draft_markdown

LABELS = [
    "Download Markdown",
    "Download DOCX",
    "Download PDF",
    "Download sources (CSV)",
    "Download BibTeX",
    "Download claim check (CSV)",
]


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def _export_buttons(at, run_id: str):
    return at.container(key=f"export-{run_id}").get("download_button")


def test_revise_draft_saves_a_new_version_and_an_unknown_instruction_loses_nothing(make_app, data_dir):
    (run_id,) = real_runs(data_dir, ["111"])
    store = RunStore(data_dir / "runs.sqlite")
    original = store.latest_draft(run_id).markdown
    at = make_app(run_id).run()

    at.text_area(key=f"revise-text-{run_id}").input("make it dance").run()
    _button(at, "Revise draft").click().run()
    assert any("did not understand 'make it dance'" in plain(e.value) for e in at.error)
    assert at.text_area(key=f"revise-text-{run_id}").value == "make it dance"  # the instruction is kept
    assert [v.version for v in store.draft_versions(run_id)] == [1]  # and nothing was saved

    at.text_area(key=f"revise-text-{run_id}").input("shorten").run()
    _button(at, "Revise draft").click().run()
    versions = store.draft_versions(run_id)
    assert [(v.version, v.note) for v in versions] == [(1, "Writer's draft"), (2, "Revised: shorten")]
    assert len(versions[1].markdown) < len(original)
    assert [plain(s.value) for s in at.success] == ["Saved as version 2. Citations re-checked: every [n] has a source."]
    # The draft panel shows the new version.
    assert next(s for s in at.selectbox if s.label == "Version").value == 2
    assert at.container(key=f"draft-body-{run_id}").markdown[0].value == draft_markdown(versions[1].markdown).strip()


def test_export_offers_every_format_under_the_file_name_the_export_gives_it(make_app, data_dir):
    (run_id,) = real_runs(data_dir, ["210"])
    store = RunStore(data_dir / "runs.sqlite")
    at = make_app(run_id).run()
    buttons = _export_buttons(at, run_id)
    assert [b.label for b in buttons] == [*LABELS, "Download run file"]
    for (fmt, _label, _icon), button in zip(BUTTONS, buttons, strict=False):
        exported = export_run(store, run_id, fmt)
        assert button.help == f"Saves {exported.filename}" and not button.disabled
    assert buttons[-1].help.startswith("Saves how-do-mrna-vaccines-work.rdrun.json.gz")
    # The deferred builders produce the real files.
    assert file_builder(store, run_id, "docx")()[:2] == b"PK" and file_builder(store, run_id, "pdf")()[:5] == b"%PDF-"


def test_file_names_are_safe_whatever_the_topic_and_a_run_without_draft_exports_only_sources(make_app, data_dir):
    topic = '東京 / <script>alert(1)</script> "quotes": ../../etc'
    run_id = store_canned_run(data_dir, topic)
    at = make_app(run_id).run()
    for button in _export_buttons(at, run_id)[:5]:
        name = button.help.removeprefix("Saves ")
        assert name.isascii() and all(c.isalnum() or c in "-." for c in name) and ".." not in name, name
    assert download_name(topic, "pdf") == export_run(RunStore(data_dir / "runs.sqlite"), run_id, "pdf").filename

    failed = store_canned_run(data_dir, "A run that failed", fail=True)
    at = make_app(failed).run()
    disabled = {b.label: b.disabled for b in _export_buttons(at, failed)}
    assert disabled == {
        **dict.fromkeys(LABELS[:3], True),
        **dict.fromkeys(LABELS[3:5], False),
        "Download claim check (CSV)": True,
        "Download run file": False,
    }
    assert not has_block(at, f"revise-{failed}")  # no draft, nothing to revise


def test_a_run_file_imported_in_history_can_be_replayed_here(make_app, data_dir, tmp_path):
    other_machine = tmp_path / "elsewhere" / "data"
    (run_id,) = real_runs(other_machine, ["021"])
    bundle = export_bundle(RunStore(other_machine / "runs.sqlite"), run_id)

    at = make_app().run().switch_page("pages/history.py").run()
    at.file_uploader(key="run-import-file").set_value(("mrna.rdrun.json.gz", bundle, "application/gzip")).run()
    _button(at, "Import run").click().run()
    assert any(plain(s.value).startswith("Imported How do mRNA vaccines work?") for s in at.success)
    table = at.dataframe[0].value
    assert table.iloc[0][["Run", "Allocation", "Status"]].tolist() == [run_id, "021", "finished"]

    _button(at, "Import run").click().run()  # the same file again
    assert any("already here" in plain(i.value) for i in at.info)

    at.file_uploader(key="run-import-file").set_value(("notes.txt", b"hello", "text/plain")).run()
    _button(at, "Import run").click().run()
    assert any(
        plain(e.value).startswith("notes.txt was not imported: not a Research Desk run bundle") for e in at.error
    )

    replay = make_app(run_id).run()
    replay.selectbox(key="replay-speed").set_value("Instant").run()
    _button(replay, "Replay").click().run()
    assert has_block(replay, "researcher-card-academic-1") and has_block(replay, f"draft-body-{run_id}")
