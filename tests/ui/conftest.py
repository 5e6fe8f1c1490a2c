"""AppTest fixtures: the real app, offline, on a fresh data directory per test."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "streamlit_app.py"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)  # st.Page paths are relative to the app
    # tests/conftest.py has already cleared the developer's configuration.
    monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RESEARCH_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("RESEARCH_SOURCES", "library")
    monkeypatch.setenv("RESEARCH_LLM", "offline")
    return tmp_path / "data"


@pytest.fixture
def make_app(data_dir: Path) -> Callable[..., AppTest]:
    def make(run_id: str | None = None) -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=30)
        if run_id:
            at.query_params["run"] = run_id
        return at

    return make


def plain(markdown: str) -> str:
    """Rendered text of escaped markdown: drop md_escape's backslashes and bold markers."""
    # md_escape's zero-width spaces (they keep URLs in outside text from becoming links) are invisible.
    return re.sub(r"\\(.)", r"\1", markdown.replace("**", "").replace("\u200b", ""))


def texts(at: AppTest) -> list[str]:
    """Every markdown-ish string on the page (markdown, captions, alerts), unescaped."""
    values = [m.value for m in at.markdown] + [c.value for c in at.caption]
    values += [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
    return [plain(v) for v in values]


def has_block(at: AppTest, key: str) -> bool:
    """Whether a keyed container (e.g. "researcher-card-web-1") is on the page."""
    try:
        at.container(key=key)
    except KeyError:
        return False
    return True
