"""The source-control flags: a run started from the command line keeps only the sources they
allow, says which it dropped and why, and a bad flag is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from research.cli.main import EXIT_BAD_INPUT, main
from tests.helpers import run_cli

TOPIC = "How did Impressionism change painting?"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--year-from", "2020", "--year-to", "2010"], "year from (2020) is after year to (2010)"),
        (["--exclude-domain", "not_a_domain"], "--exclude-domains: not a domain: 'not_a_domain'"),
        (["--min-relevance", "2"], "--min-relevance: Input should be less than or equal to 1"),
    ],
)
def test_a_bad_control_is_one_line_and_exit_2(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([TOPIC, *flags]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_a_cli_run_applies_its_controls(tmp_path: Path) -> None:
    flags = ["--allocation", "011", "--year-from", "2010", "--peer-reviewed", "--exclude-domain", "example.org"]
    result = run_cli([TOPIC, *flags, "--json"], tmp_path, timeout=180)
    assert result.returncode == 0, result.stderr
    sources = json.loads(result.stdout)["sources"]
    assert sources and all(s["year"] >= 2010 for s in sources)
    academic = [s for s in sources if s["kind"] == "academic"]
    reviewed = [
        [f for f in s["reliability"]["factors"] if f["factor"] == "peer_review" and f["points"] > 0] for s in academic
    ]
    assert academic and all(reviewed)
    assert "years 2010–…; never from example.org; peer-reviewed academic only" in result.stderr
    assert "years: " in result.stderr  # a researcher's drop line names the rule
