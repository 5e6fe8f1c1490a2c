"""The peers' sizes fit the 8,192-token context every local model gets: gpt-researcher's report
prompt, which holds every sub-query's selected chunks, stays well under it."""

from __future__ import annotations

from types import SimpleNamespace

from bench.peers.figure import CAPS, N_CTX, SIZES, _gptr_config

CHUNK_CHARS = 1_100  # gpt-researcher's keyword filter: 1,000-character chunks, plus "Source:/Title:" lines
CHARS_A_TOKEN = 4  # English prose in the SmolLM2 and Qwen vocabularies, roughly
PROMPT_TEMPLATE_TOKENS = 1_200  # its research_report instructions


def test_gpt_researchers_report_prompt_fits_the_context() -> None:
    setting = SimpleNamespace(model="qwen2.5-coder-1.5b-instruct")
    world = SimpleNamespace(retriever_url="http://127.0.0.1:1/retrieve")
    env = _gptr_config(setting, world, "How do mRNA vaccines work?")["env"]  # type: ignore[arg-type]
    assert env["CONTEXT_FILTER"] == "keyword" and env["SMART_TOKEN_LIMIT"] == str(CAPS["writer"])
    sub_queries = int(env["MAX_ITERATIONS"]) + 1  # its planner's queries and the topic itself
    context = sub_queries * int(env["KEYWORD_MAX_RESULTS"]) * CHUNK_CHARS // CHARS_A_TOKEN
    assert context + PROMPT_TEMPLATE_TOKENS + int(env["SMART_TOKEN_LIMIT"]) < N_CTX * 0.8
    # the package's default (25 chunks a sub-query) would not fit: why the size is set
    assert sub_queries * 25 * CHUNK_CHARS // CHARS_A_TOKEN > N_CTX
    assert SIZES["gpt-researcher"]["KEYWORD_MAX_RESULTS"] == int(env["KEYWORD_MAX_RESULTS"])


def test_peers_timeout_shortens_a_peer_runs_ceiling(monkeypatch) -> None:
    from bench.peers.figure import TIMEOUT, _timeout

    monkeypatch.delenv("PEERS_TIMEOUT", raising=False)
    assert _timeout("qwen") == TIMEOUT["qwen"]
    monkeypatch.setenv("PEERS_TIMEOUT", "900")
    assert _timeout("qwen") == 900.0
