"""Credentials in RESEARCH_SERVER_URL are on no page: sidebar and Settings."""

from __future__ import annotations

from tests.ui.conftest import plain

SECRET = "hunter2-Zq9"


def test_server_url_credentials_are_not_in_the_sidebar_or_settings(make_app, monkeypatch) -> None:
    monkeypatch.setenv("RESEARCH_SERVER_URL", f"http://ada:{SECRET}@127.0.0.1:9")  # never asked
    at = make_app().run()
    assert not at.exception
    sidebar = " ".join(plain(m.value) for m in at.sidebar.markdown)
    assert "the LangGraph server at http://ada:****@127.0.0.1:9" in sidebar and SECRET not in sidebar
    at.switch_page("pages/settings.py").run()
    page = " ".join([m.value for m in at.markdown] + [i.value for i in at.info] + [c.value for c in at.caption])
    assert "127.0.0.1:9" in page and SECRET not in page


def test_a_database_password_in_the_query_or_badly_encoded_is_not_on_the_page(make_app, monkeypatch) -> None:
    from tests.fakes.postgres import free_port

    for url in (
        f"postgresql://desk@127.0.0.1:{free_port()}/runs?password={SECRET}",
        f"postgresql://desk:{SECRET}%zz@127.0.0.1:{free_port()}/runs",
        f"postgresql://desk:{SECRET}@[127.0.0.1:{free_port()}/runs",
    ):
        monkeypatch.setenv("RESEARCH_DATABASE_URL", url)
        at = make_app().run()
        assert not at.exception
        message = " ".join(e.value for e in at.error)
        assert "cannot reach the run database" in message and SECRET not in message, message
