"""The command line, run as a user runs it: `python -m research ...` in a fresh process."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

from research.cli.main import main
from tests.helpers import cli_env, run_cli

TOPIC = "How do mRNA vaccines work?"


@pytest.fixture(scope="module")
def mrna_json(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, dict]:
    tmp = tmp_path_factory.mktemp("cli-json")
    result = run_cli([TOPIC, "--allocation", "120", "--json"], tmp)
    assert result.returncode == 0, result.stderr
    return result, json.loads(result.stdout)


def test_json_has_the_documented_shape(mrna_json) -> None:
    _, out = mrna_json
    for key in (
        "run_id",
        "topic",
        "allocation",
        "allocation_origin",
        "research_questions",
        "researchers",
        "sources",
        "critiques",
        "draft",
        "citations",
        "warnings",
        "timings",
        "usage",
    ):
        assert key in out, key
    assert out["topic"] == TOPIC
    assert out["allocation"] == {"web": 1, "academic": 2, "book": 0}
    assert out["allocation_origin"] == "user"
    assert out["research_questions"] and all(isinstance(q, str) for q in out["research_questions"])
    for r in out["researchers"]:
        assert {"id", "kind", "iteration", "queries", "source_ids", "seconds"} <= set(r)
    for s in out["sources"]:
        assert {"id", "title", "url", "kind", "provider", "year", "snippet"} <= set(s)
    for c in out["critiques"]:
        assert {"iteration", "status", "critique", "missing_topics", "recommended_queries"} <= set(c)
        assert c["status"] in ("APPROVED", "NEEDS_IMPROVEMENT")
    for w in out["warnings"]:
        assert set(w) == {"source", "message"}
    assert isinstance(out["timings"], dict) and isinstance(out["usage"], dict)
    assert out["usage"]["calls"] == 0  # offline: no model calls


def test_json_run_matches_the_request(mrna_json) -> None:
    _, out = mrna_json
    first_round = sorted((r["id"], r["kind"]) for r in out["researchers"] if r["iteration"] == 0)
    assert first_round == [("academic-1", "academic"), ("academic-2", "academic"), ("web-1", "web")]
    assert all(r["queries"] and r["source_ids"] for r in out["researchers"])
    assert len(out["critiques"]) >= 1
    sources = {s["id"]: s for s in out["sources"]}
    assert sources and all(
        s["provider"] == "library" and s["url"].startswith("library://sample/") for s in sources.values()
    )
    for r in out["researchers"]:
        assert set(r["source_ids"]) <= set(sources)

    # Every citation resolves to a retrieved source, listed under its number in the draft.
    assert out["citations"]
    for n, source_id in out["citations"].items():
        assert source_id in sources
        assert f"[{n}] {sources[source_id]['title']}" in out["draft"]
    body = out["draft"].split("## Sources")[0]
    assert {int(n) for n in re.findall(r"\[(\d+)\]", body)} == {int(n) for n in out["citations"]}
    # Stopped without approval: the draft names the gaps that remain.
    last = out["critiques"][-1]
    if last["status"] == "NEEDS_IMPROVEMENT":
        assert "## Known gaps" in out["draft"]
        assert all(gap in out["draft"] for gap in last["missing_topics"])


def test_progress_goes_to_stderr(mrna_json) -> None:
    result, _ = mrna_json
    lines = result.stderr.splitlines()
    assert any(line.startswith("Allocation 120 (web/academic/book) from user") for line in lines)
    assert any(line.startswith("[academic-2] started:") for line in lines)
    assert any(line.startswith("Draft ready:") for line in lines)


def test_markdown_mode_prints_the_draft(tmp_path: Path) -> None:
    result = run_cli([TOPIC, "--allocation", "100", "--max-iterations", "0", "--quiet"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# How do mRNA vaccines work?")
    assert "## Sources" in result.stdout
    assert result.stderr == ""


BAD_INPUT = {
    "empty topic": ([""], "Topic is empty"),
    "whitespace topic": (["   \t  "], "Topic is empty"),
    "2,001-char topic": (["x" * 2001], "Topic is too long: 2,001 characters"),
    "bad allocation 410": ([TOPIC, "--allocation", "410"], "invalid allocation: Each digit must be 0-3"),
    "bad allocation 21": ([TOPIC, "--allocation", "21"], "invalid allocation: Expected 3 digits"),
    "allocation over the cap": ([TOPIC, "--allocation", "333"], "invalid allocation: Total must be 1-3, got 9"),
    "bad iterations": ([TOPIC, "--max-iterations", "9"], "--max-iterations must be 0-5"),
    "unknown option": ([TOPIC, "--colour", "blue"], "unrecognized arguments"),
}


def assert_one_clear_line(code: int, out: str, err: str, expected: str) -> None:
    assert code == 2, err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and expected in lines[0], lines[0]


@pytest.mark.parametrize("case", ["empty topic", "bad allocation 410"])
def test_bad_input_exits_2_as_a_process(case: str, tmp_path: Path) -> None:
    args, expected = BAD_INPUT[case]
    result = run_cli(args, tmp_path)
    assert_one_clear_line(result.returncode, result.stdout, result.stderr, expected)
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_returns_2_with_one_clear_line(
    case: str,
    tmp_path: Path,
    session_log_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # In-process (the same main() as above) to keep the suite fast; the environment points the
    # engine at this test's temp dirs, as the subprocess runs do.
    for name, value in cli_env(tmp_path, RESEARCH_LOG_DIR=str(session_log_dir)).items():
        if name.startswith("RESEARCH_"):
            monkeypatch.setenv(name, value)
    args, expected = BAD_INPUT[case]
    code = main(list(args))
    captured = capsys.readouterr()
    assert_one_clear_line(code, captured.out, captured.err, expected)


def test_bad_allocation_starts_no_run(tmp_path: Path) -> None:
    result = run_cli([TOPIC, "--allocation", "000"], tmp_path)
    assert result.returncode == 2
    runs = tmp_path / "data" / "runs.sqlite"
    if runs.exists():
        with sqlite3.connect(runs) as db:
            assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_library_import_then_search(tmp_path: Path) -> None:
    doc = tmp_path / "cloves.txt"
    doc.write_text(
        "Zanzibar clove harvests\n\nClove cultivation on Zanzibar and Pemba shaped the nineteenth-century "
        "spice trade. Farmers pick the buds by hand and dry them in the sun for several days.\n"
    )
    (tmp_path / "notes.xyz").write_text("not a supported type")

    imported = run_cli(["library", "import", str(doc), str(tmp_path / "notes.xyz"), "--kind", "web"], tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert "imported: cloves.txt: Zanzibar clove harvests" in imported.stdout
    assert "skipped: notes.xyz: unsupported file type" in imported.stderr

    found = run_cli(["library", "search", "zanzibar clove"], tmp_path)
    assert found.returncode == 0, found.stderr
    first = found.stdout.splitlines()[0]
    assert "[web] Zanzibar clove harvests" in first

    academic_only = run_cli(["library", "search", "zanzibar clove", "--kind", "academic"], tmp_path)
    assert "Zanzibar clove harvests" not in academic_only.stdout


def test_library_import_of_a_missing_file_is_bad_input(tmp_path: Path) -> None:
    result = run_cli(["library", "import", str(tmp_path / "nope.txt"), "--kind", "web"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"error: no such file or folder: {tmp_path / 'nope.txt'}"]
