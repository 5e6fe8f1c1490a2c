"""`--shape` and `--target-words` on the command line: a run in a shape, a bad target refused with
one clear line, and `revise --shape` writing the report again in another shape."""

from __future__ import annotations

import json
from pathlib import Path

from research.cli.main import main
from tests.helpers import run_cli


def test_a_brief_run_with_a_target_from_the_command_line(tmp_path: Path) -> None:
    done = run_cli(
        ["How do mRNA vaccines work?", "--shape", "brief", "--target-words", "120", "--json", "--quiet"], tmp_path, 120
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["report_shape"]["shape"] == "brief" and out["report_shape"]["target_words"] == 120
    assert "## Key points" in out["draft"] and out["report_shape"]["words"] <= 132

    revised = run_cli(["revise", out["run_id"], "--shape", "outline"], tmp_path, 120)
    assert revised.returncode == 0, revised.stderr
    assert "## Outline" in revised.stdout and "Saved draft version" in revised.stderr


def test_a_target_out_of_bounds_is_bad_input(capsys) -> None:
    assert main(["How do mRNA vaccines work?", "--target-words", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --target-words must be 50-3000, got 5"]
