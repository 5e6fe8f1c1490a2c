"""The draft panel's "Download vN" serves the sanitised draft, never the stored text raw:
a remote image saved in a version is its alt text in the file the button serves."""

from __future__ import annotations

from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from research.api import RunStore
from tests.security.commonmark_forms import hostile_draft, live_markup
from tests.ui.stored_runs import real_runs

BASE = "http://127.0.0.1:9"


def test_download_vn_serves_the_sanitised_draft(make_app, data_dir, monkeypatch):
    served: dict[str, bytes] = {}
    real = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):  # the bytes each button serves
        if filename and isinstance(path_or_data, bytes):
            served[filename] = path_or_data
        return real(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    (run_id,) = real_runs(data_dir, ["100"])
    store = RunStore(data_dir / "runs.sqlite")
    store.save_draft_version(run_id, hostile_draft(BASE) + f"\nA plain ![pixel]({BASE}/plain.png) too.\n", note="x")
    at = make_app(run_id).run()
    assert not at.exception
    assert any(b.label == "Download v2" for b in at.get("download_button"))
    (name,) = [n for n in served if n.endswith("-v2.md")]
    text = served[name].decode("utf-8")
    assert "A plain pixel too." in text and "plain.png" not in text
    assert live_markup(text) == [], text
