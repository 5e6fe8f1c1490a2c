"""Outside text in CLI lines: a topic, a question or a file name carrying ANSI/OSC
escapes is printed with its control characters shown (`\\x1b`), never sent raw to the terminal;
`--json` output holds them as `\\u` escapes (the same data)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from research.cli.terminal import terminal_json, terminal_text
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from tests.finished_run import make_settings

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "Heat pumps \x1b]0;pwned\x07\x1b[2J\x1b[31mFAKE\x9b31m\u202e"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "RESEARCH_DATA_DIR": str(tmp_path / "data"),
        "RESEARCH_LOG_DIR": str(tmp_path / "logs"),
        "RESEARCH_SOURCES": "library",
        "RESEARCH_LLM": "offline",
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "research", *args], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT
    )


def test_terminal_text_shows_controls_and_keeps_plain_text() -> None:
    assert terminal_text("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07"
    assert terminal_text("é ü 漢字 — ok") == "é ü 漢字 — ok"
    assert terminal_text("one\ntwo\tx", multiline=True) == "one\ntwo\tx"
    assert terminal_text("one\ntwo") == "one\\x0atwo"
    assert terminal_text("\x9b\u202e") == "\\x9b\\u202e"


def test_runs_replay_and_progress_print_no_raw_escape(tmp_path: Path) -> None:
    runner = ResearchRunner(make_settings(tmp_path / "data", tmp_path / "logs"))
    run_id = runner.run(ResearchRequest(topic=HOSTILE, allocation="100"))
    for args in (("runs",), ("replay", run_id, "--speed", "instant")):
        out = _cli(tmp_path, *args)
        assert out.returncode == 0, out.stderr[-2000:]
        assert not any(c in out.stdout + out.stderr for c in RAW), (args, out.stdout[-500:])
        assert "\\x1b]0;pwned" in out.stdout  # shown, not obeyed
    research = _cli(tmp_path, HOSTILE, "--allocation", "100")
    assert research.returncode == 0, research.stderr[-2000:]
    assert not any(c in research.stdout + research.stderr for c in RAW)


def test_library_import_prints_file_names_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "evil\x1b]0;x\x07.md").write_text("# Title \x1b[31mred\n\nSome text about heat pumps.\n")
    out = _cli(tmp_path, "library", "import", str(folder), "--kind", "web")
    assert not any(c in out.stdout + out.stderr for c in RAW), out.stdout + out.stderr
    assert "\\x1b]0;x" in out.stdout + out.stderr


def test_terminal_json_is_the_same_data_with_no_raw_control() -> None:
    value = {"topic": HOSTILE, "del": "a\x7fb", "nested": [{"t": "\u2066x\u2069"}], "plain": "é 漢字"}
    out = terminal_json(value)
    assert not any(c in out for c in (*RAW, "\x7f", "\u2066", "\u2069"))
    assert json.loads(out) == value
    assert "é 漢字" in out  # readable text stays as it is


def test_json_output_carries_no_raw_escape(tmp_path: Path) -> None:
    research = _cli(tmp_path, HOSTILE, "--allocation", "100", "--json")
    assert research.returncode == 0, research.stderr[-2000:]
    assert not any(c in research.stdout + research.stderr for c in RAW), research.stdout[:500]
    assert json.loads(research.stdout)["topic"] == HOSTILE  # escaped, not changed
    runs = _cli(tmp_path, "runs", "--json")
    assert runs.returncode == 0, runs.stderr[-2000:]
    assert not any(c in runs.stdout for c in RAW)
    assert [row["topic"] for row in json.loads(runs.stdout)] == [HOSTILE]
