"""Credentials in URL settings, masked by structure: parsed with
urllib.parse, userinfo and password-like query values replaced before anything prints or stores
them; driver errors without the DSN; RESEARCH_SERVER_URL's credentials not on any page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from research.secrets import mask, mask_url, url_secrets
from research.settings import Settings
from tests.fakes.postgres import free_port

ROOT = Path(__file__).resolve().parents[1]
SECRET = "hunter2-Zq9"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"postgresql://desk:{SECRET}@db.example:5432/runs", "postgresql://desk:****@db.example:5432/runs"),
        (f"postgresql://db.example/runs?sslmode=require&password={SECRET}", "?sslmode=require&password=****"),
        (f"postgresql://db.example/runs?PassWord={SECRET}&sslpassword={SECRET}", "?PassWord=****&sslpassword=****"),
        (f"postgresql://desk:{SECRET}%zz@db.example/runs", "postgresql://desk:****@db.example/runs"),
        (f"postgresql://desk:{SECRET}@db.example:99x/runs", "postgresql://(unparsable URL, hidden)"),
        (f"postgresql://desk:{SECRET}@[::1/runs", "postgresql://(unparsable URL, hidden)"),
        (f"https://{SECRET}@server.example/", "https://****@server.example/"),
        (f"https://api.example/v1?api_key={SECRET}&x=1", "https://api.example/v1?api_key=****&x=1"),
        ("http://127.0.0.1:2024", "http://127.0.0.1:2024"),
    ],
)
def test_mask_url_hides_every_credential_form(url: str, shown: str) -> None:
    masked = mask_url(url)
    assert SECRET not in masked and shown in masked
    assert SECRET not in mask(f"driver said: {url!r}", url_secrets(url))


def test_every_url_setting_feeds_the_secret_masks() -> None:
    settings = Settings(
        _env_file=None,
        database_url=f"postgresql://u:{SECRET}db@h/db",
        server_url=f"https://ada:{SECRET}srv@server.example",
        openai_base_url=f"http://127.0.0.1:8080/v1?token={SECRET}llm",
        tavily_url=f"https://k:{SECRET}tv@tavily.example",
    )
    secrets = settings.secret_values()
    for suffix in ("db", "srv", "llm", "tv"):
        assert f"{SECRET}{suffix}" in secrets
    assert SECRET not in mask(f"{SECRET}db {SECRET}srv {SECRET}llm {SECRET}tv", secrets)


def test_a_bad_server_url_setting_is_refused_without_its_credentials() -> None:
    with pytest.raises(ValueError) as caught:
        Settings(_env_file=None, server_url=f"ftp://ada:{SECRET}@server.example")
    assert SECRET not in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://desk@127.0.0.1:{port}/runs?password={secret}",
        "postgresql://desk:{secret}%zz@127.0.0.1:{port}/runs",
        "postgresql://desk:{secret}@127.0.0.1:{port}/runs?passwrd={secret}",
        "postgresql://desk:{secret}@[127.0.0.1:{port}/runs",
        "postgresql://desk:{secret}@127.0.0.1:{port}/runs?sslpassword={secret}&sslmode=bogus",
    ],
    ids=["query-password", "bad-percent", "unknown-param", "unparsable", "ssl"],
)
def test_the_cli_error_for_an_unreachable_database_has_no_password(tmp_path: Path, url: str) -> None:
    env = {
        "RESEARCH_DATA_DIR": str(tmp_path / "data"),
        "RESEARCH_LOG_DIR": str(tmp_path / "logs"),
        "RESEARCH_DATABASE_URL": url.format(port=free_port(), secret=SECRET),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
    }
    out = subprocess.run(
        [sys.executable, "-m", "research", "runs"], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT
    )
    assert out.returncode in (1, 2), out
    assert SECRET not in out.stdout + out.stderr, out.stderr
    assert "Traceback" not in out.stderr and out.stderr.startswith("error:"), out.stderr[-2000:]
