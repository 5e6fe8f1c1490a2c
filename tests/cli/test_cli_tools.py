"""The stored-run subcommands of `python -m research`: outputs and exit codes (0 ok, 2 bad input)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import docx
import pytest

from research.cli.main import main
from research.runs.store import RunStore
from tests.finished_run import TOPIC
from tests.helpers import run_cli


@pytest.fixture
def cli(finished, monkeypatch: pytest.MonkeyPatch, log_dir: Path, capsys: pytest.CaptureFixture):
    """Runs `main(argv)` in this process against the finished run's data dir: (code, out, err)."""
    runner, run_id = finished
    monkeypatch.setenv("RESEARCH_DATA_DIR", str(runner.settings.data_dir))
    monkeypatch.setenv("RESEARCH_LOG_DIR", str(log_dir))
    monkeypatch.setenv("RESEARCH_LLM", "offline")
    monkeypatch.setenv("RESEARCH_SOURCES", "library")

    def call(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call


def test_runs_lists_stored_runs(cli, finished) -> None:
    _, run_id = finished
    code, out, _ = cli("runs")
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split()[:3] == ["RUN", "ID", "STATUS"]
    row = next(r for r in rows if r.startswith(run_id))
    assert "finished" in row and "120" in row and TOPIC in row
    code, out, _ = cli("runs", "--json")
    listed = {r["run_id"]: r for r in json.loads(out)}
    assert listed[run_id]["status"] == "finished" and listed[run_id]["topic"] == TOPIC


def test_runs_on_an_empty_store(tmp_path: Path) -> None:
    result = run_cli(["runs"], tmp_path)
    assert result.returncode == 0 and result.stdout == "" and "no runs stored yet" in result.stderr


def test_export_writes_each_format(cli, finished, tmp_path: Path) -> None:
    runner, run_id = finished
    out = tmp_path / "draft.docx"
    code, stdout, _ = cli("export", run_id, "--format", "docx", "--out", str(out))
    assert code == 0 and stdout.strip() == str(out)
    headings = [
        p.text for p in docx.Document(io.BytesIO(out.read_bytes())).paragraphs if p.style.name.startswith("Heading")
    ]
    assert headings[0] == TOPIC
    code, stdout, _ = cli("export", run_id, "--format", "bib")  # default name from the topic, in the cwd
    assert code == 0 and stdout.strip() == "how-do-mrna-vaccines-work.bib"
    assert Path("how-do-mrna-vaccines-work.bib").read_text().startswith("@")
    code, stdout, _ = cli("export", run_id, "--format", "md", "--out", str(tmp_path / "d.md"))
    assert (tmp_path / "d.md").read_text().strip() == runner.store.latest_draft(run_id).markdown.strip()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "nope", "--format", "md"], "no run with id 'nope'"),
        (["export", "{run}", "--format", "xls"], "invalid choice: 'xls'"),
        (["export", "{run}"], "the following arguments are required: --format"),
        (["export", "{run}", "--format", "md", "--out", "/nonexistent/dir/x.md"], "cannot write /nonexistent/dir/x.md"),
        (["replay", "{run}", "--speed", "0"], "speed must be a positive number"),
        (["replay", "nope"], "no run with id 'nope'"),
        (["bundle", "nope"], "no run with id 'nope'"),
        (["import-run", "/nonexistent.gz"], "cannot read /nonexistent.gz"),
        (["revise", "{run}", "make it funnier"], "did not understand"),
        (["continue", "{run}"], "not waiting for plan review (status: finished)"),
        (["cancel", "{run}"], "not waiting for plan review"),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(cli, finished, argv, message) -> None:
    _, run_id = finished
    code, out, err = cli(*[a.replace("{run}", run_id) for a in argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err


def test_export_of_a_run_without_a_draft_exits_2(cli, finished) -> None:
    runner, _ = finished
    from research.schemas.state_shapes import ResearchRequest

    pending = runner.create(ResearchRequest(topic="Never ran"))
    code, _, err = cli("export", pending, "--format", "pdf")
    assert code == 2 and "has no draft to export (status: running)" in err


def test_replay_prints_every_event_with_its_original_offset(cli, finished) -> None:
    runner, run_id = finished
    code, out, _ = cli("replay", run_id, "--speed", "instant")
    assert code == 0
    events = runner.store.events(run_id)
    lines = [line for line in out.splitlines() if re.match(r"^\+\s*\d+\.\d\ds  ", line)]
    assert len(lines) == len(events)
    assert lines[0].startswith("+    0.00s  Run ") and "Finished in" in lines[-1]
    offsets = [float(line.split("s", 1)[0].strip("+ ")) for line in lines]
    assert offsets == sorted(offsets)
    assert offsets[-1] == pytest.approx(events[-1].ts - events[0].ts, abs=0.01)


def test_bundle_and_import_run_move_a_run(cli, finished, tmp_path: Path, monkeypatch) -> None:
    runner, run_id = finished
    bundle = tmp_path / "run.rdrun.json.gz"
    code, out, _ = cli("bundle", run_id, "--out", str(bundle))
    assert code == 0 and out.strip() == str(bundle) and bundle.stat().st_size > 0

    code, _, err = cli("import-run", str(bundle))  # same store: the id is taken
    assert code == 2 and "already exists" in err
    code, out, _ = cli("import-run", str(bundle), "--new-id")
    assert code == 0 and re.fullmatch(r"[0-9a-f]{12}\n", out) and out.strip() != run_id

    monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path / "other-machine"))
    code, out, _ = cli("import-run", str(bundle))
    assert code == 0 and out.strip() == run_id
    other = RunStore(tmp_path / "other-machine" / "runs.sqlite")
    assert other.latest_draft(run_id).markdown == runner.store.latest_draft(run_id).markdown

    garbage = tmp_path / "notes.txt"
    garbage.write_text("just some notes")
    code, _, err = cli("import-run", str(garbage))
    assert code == 2 and f"{garbage}: not a Research Desk run bundle" in err


def test_revise_prints_the_new_version(cli, finished, tmp_path: Path, monkeypatch) -> None:
    runner, run_id = finished
    bundle = tmp_path / "b.gz"
    cli("bundle", run_id, "--out", str(bundle))
    monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path / "scratch"))  # don't add versions to the shared run
    cli("import-run", str(bundle))
    code, out, err = cli("revise", run_id, "shorten")
    assert code == 0 and "Saved draft version 2." in err
    assert out == RunStore(tmp_path / "scratch" / "runs.sqlite").latest_draft(run_id).markdown


def test_review_plan_flag_pauses_and_prints_how_to_go_on(tmp_path: Path) -> None:
    result = run_cli([TOPIC, "--allocation", "100", "--review-plan", "--quiet"], tmp_path)
    assert result.returncode == 0, result.stderr
    run_id = re.search(r"Run (\w+) is paused for plan review", result.stdout).group(1)
    assert "Allocation: 100" in result.stdout and f"python -m research continue {run_id}" in result.stdout
    cancel = run_cli(["cancel", run_id], tmp_path)
    assert cancel.returncode == 0 and f"Run {run_id} cancelled." in cancel.stdout
