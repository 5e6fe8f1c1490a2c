"""Services come from an explicit registry, reached through the node's runtime: two registries in
one process share nothing, and a graph built for one runs from a JSON spec alone (a server's runs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research.graph.builder import build_graph
from research.graph.context import RunSpec
from research.graph.services import RunEnv, ServiceRegistry, services_of, settings_key
from research.settings import Settings


def _settings(tmp_path: Path, **extra: object) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, sources="library", llm="offline", **extra)


class _Runtime:
    def __init__(self, context: object) -> None:
        self.context, self.store = context, None


def test_two_registries_share_no_services(tmp_path: Path) -> None:
    first, second = ServiceRegistry(_settings(tmp_path)), ServiceRegistry(_settings(tmp_path))
    spec = RunSpec(run_id="r1", brain="offline")
    mine = services_of(_Runtime(RunEnv(spec, first)))
    assert services_of(_Runtime(RunEnv(spec, first))) is mine  # one run, one set of services
    theirs = services_of(_Runtime(RunEnv(spec, second)))
    assert theirs is not mine and theirs.sources is not mine.sources and theirs.brain is not mine.brain


def test_a_node_without_a_run_env_is_told_how_to_get_one() -> None:
    with pytest.raises(TypeError, match="RunEnv"):
        services_of(_Runtime({"run_id": "r1"}))


def test_one_settings_key_tells_settings_apart_by_their_secrets_too(tmp_path: Path) -> None:
    plain = _settings(tmp_path)
    assert settings_key(plain) == settings_key(_settings(tmp_path))
    keyed = _settings(tmp_path, openai_api_key="sk-one")
    assert settings_key(keyed) != settings_key(plain)
    assert settings_key(keyed) != settings_key(_settings(tmp_path, openai_api_key="sk-two"))
    assert "sk-one" not in settings_key(keyed)


def test_a_graph_built_for_a_registry_runs_from_a_json_spec(tmp_path: Path) -> None:
    registry = ServiceRegistry(_settings(tmp_path))
    graph = build_graph(services=registry, checkpointer=InMemorySaver())
    spec = RunSpec(run_id="json-run", brain="offline", sources="library")
    config = {"configurable": {"thread_id": "json-run"}}
    state = graph.invoke(
        {"run_id": "json-run", "topic": "How do mRNA vaccines work?", "max_iterations": 0}, config, context=spec
    )
    assert state["draft"] and state["sources"]
    ctx = registry.services_for(spec)
    assert ctx.brain.kind == "offline" and ctx.settings.data_dir == tmp_path  # the run's services were this registry's


def test_a_graph_without_a_registry_needs_the_callers_run_env(tmp_path: Path) -> None:
    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "no-env"}}
    with pytest.raises(TypeError, match="RunEnv"):
        graph.invoke({"run_id": "no-env", "topic": "How do mRNA vaccines work?"}, config, context={"run_id": "no-env"})
