"""`--researcher-mode` and RESEARCH_RESEARCHER_MODE from the command line (a real process)."""

from __future__ import annotations

import json

from tests.helpers import run_cli


def test_cli_agent_mode_prints_tool_calls_and_logs_them(tmp_path):
    result = run_cli(
        ["Impressionism", "--allocation", "100", "--max-iterations", "0", "--researcher-mode", "agent", "--json"],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)
    assert run["status"] == "finished" and run["sources"]
    assert "[web-1] tool search_library {'query': " in result.stderr
    log = (tmp_path / "logs" / "multiagent.log").read_text(encoding="utf-8")
    assert f"run={run['run_id']}: [RESEARCHER web-1] Tool chosen: search_library | Args: " in log


def test_the_setting_selects_agent_mode_and_a_bad_value_is_refused(tmp_path):
    result = run_cli(
        ["Impressionism", "--allocation", "100", "--max-iterations", "0"], tmp_path, RESEARCH_RESEARCHER_MODE="agent"
    )
    assert result.returncode == 0 and "tool search_library" in result.stderr
    bad = run_cli(["Impressionism"], tmp_path, RESEARCH_RESEARCHER_MODE="react")
    assert bad.returncode == 2
    assert "RESEARCH_RESEARCHER_MODE" in bad.stderr and "'pipeline' or 'agent'" in bad.stderr
    wrong = run_cli(["Impressionism", "--researcher-mode", "react"], tmp_path)
    assert wrong.returncode == 2 and "invalid choice: 'react' (choose from 'pipeline', 'agent')" in wrong.stderr
