"""One model setting of the peers figure: the model behind a fresh metering proxy (the scripted
fake, or llama-cpp-python serving SmolLM2-135M or Qwen2.5-Coder-1.5B, one server at a time).

A run cut at its ceiling can leave a request running on llama-cpp: it finishes a non-streamed
request whose client is gone (open_deep_research's and gpt-researcher's calls are not streamed),
which on a slow machine takes minutes of the next run's time. So after such a run the server is
started again on the same port (`setting.restart()`); the late reply of the cut request then goes
to the meter that run had, never to the next run's (bench/peers/meter.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import log
from bench.peers.meter import Adapters, MeteringProxy, fake_tokenizer, llama_tokenizer
from bench.peers.scripted import PeerScriptedModel
from bench.peers.venvs import PeerUnavailable
from tests.fakes.openai_server import FakeOpenAIServer

N_CTX = 8192  # every system gets the same context; SmolLM2 and Qwen both take it
MAX_LOG_BYTES = 4 * 1024 * 1024  # of the server's log read after a run
ADAPTERS_ON_LLAMA_CPP = Adapters(json_object_for_json_schema=True, max_tokens_too=True)


@dataclass
class ModelSetting:
    name: str
    model: str
    proxy: MeteringProxy
    scripted: PeerScriptedModel | None = None
    server_log: Path | None = None  # llama-cpp's log: the only place a failed stream says why
    restart: Callable[[], None] | None = None  # llama-cpp: a fresh server on the same port
    restarts: int = 0

    def log_offset(self) -> int:
        return self.server_log.stat().st_size if self.server_log and self.server_log.exists() else 0

    def server_errors(self, since: int) -> list[str]:
        """The server's exceptions logged after byte `since` ("n x message", most frequent first)."""
        if self.server_log is None or not self.server_log.exists():
            return []
        with self.server_log.open("rb") as log_file:
            log_file.seek(since)
            text = log_file.read(MAX_LOG_BYTES).decode("utf-8", errors="replace")
        counts: dict[str, int] = {}
        for line in text.splitlines():  # a traceback's last line; exception groups repeat it indented
            if line[:1].isalpha() and "Error: " in line[:60]:
                counts[line[:200]] = counts.get(line[:200], 0) + 1
        return [f"{n} x {message}" for message, n in sorted(counts.items(), key=lambda kv: -kv[1])][:3]

    @property
    def local(self) -> bool:
        return self.scripted is None


@contextmanager
def model_setting(name: str, scratch: Path) -> Iterator[ModelSetting]:
    """The model of one setting behind a fresh metering proxy (llama-cpp: one server, stopped after)."""
    if name == "scripted":
        script = PeerScriptedModel()
        with FakeOpenAIServer(script) as fake, MeteringProxy(fake.base_url, fake_tokenizer) as proxy:
            yield ModelSetting(name, "bench-model", proxy, script)
        return
    from bench.llama_server import MODEL_ALIAS, QWEN_ALIAS, LlamaServer, model_path, qwen_model_path

    path, alias = (model_path(), MODEL_ALIAS) if name == "smollm2" else (qwen_model_path(), QWEN_ALIAS)
    if path is None:
        raise PeerUnavailable(f"{name} is not set up (scripts/local_model_setup.sh)")
    server = LlamaServer(scratch / f"{name}-server.log", model=path, alias=alias, n_ctx=N_CTX).__enter__()
    live: dict[str, Any] = {"server": server}
    try:
        log(f"{name}: llama-cpp-python on {server.threads} thread(s), n_ctx {N_CTX}")
        tokens = llama_tokenizer(server.base_url)
        with MeteringProxy(server.base_url, tokens, adapters=ADAPTERS_ON_LLAMA_CPP) as proxy:
            setting = ModelSetting(name, alias, proxy, server_log=server.log_path)

            def restart() -> None:
                old = live["server"]
                old.__exit__()
                setting.restarts += 1
                again = scratch / f"{name}-server-{setting.restarts}.log"
                live["server"] = LlamaServer(again, old.threads, old.port, model=path, alias=alias, n_ctx=N_CTX)
                live["server"].__enter__()
                setting.server_log = again

            setting.restart = restart
            yield setting
    finally:
        live["server"].__exit__()
