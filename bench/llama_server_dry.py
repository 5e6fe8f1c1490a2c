"""llama-cpp-python's OpenAI server, with llama.cpp's DRY sampler over the prompt, as llama-server has it.

Run by the local-model lane's own interpreter (`.venv-llm/bin/python bench/llama_server_dry.py
--model ... `, same arguments as `python -m llama_cpp.server`): it imports nothing of the desk.

A small model asked to write from a passage copies it word for word. llama.cpp's native server
(llama-server) takes `dry_multiplier`, `dry_base`, `dry_allowed_length`, `dry_penalty_last_n` and
`dry_sequence_breakers` on a chat request and feeds the prompt's tokens to its samplers first, so
the DRY ("don't repeat yourself") penalty grows with every token that extends a run already in the
prompt: the model may use a passage's words, not copy its sentences. llama-cpp-python (0.3.36)
binds `llama_sampler_init_dry` but its server neither takes those fields nor feeds the prompt to the
sampler. This launcher adds both, with the same field names, so the desk asks one way on either
server. A request without `dry_multiplier` (or with 0) samples exactly as before.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import llama_cpp
import llama_cpp.server.types as server_types
from pydantic import Field

PINNED = "0.3.36"  # the chain surgery below reads this version's Llama._init_sampler
# llama-server's defaults (tools/server: params_from_json_cmpl).
DEFAULT_BREAKERS = ["\n", ":", '"', "*"]
MAX_BREAKERS = 16
MAX_BREAKER_CHARS = 40


class DryChatRequest(server_types.CreateChatCompletionRequest):
    """The chat request with llama-server's DRY fields (0 multiplier: off)."""

    dry_multiplier: float = Field(default=0.0, ge=0.0, le=10.0)
    dry_base: float = Field(default=1.75, ge=1.0, le=4.0)
    dry_allowed_length: int = Field(default=2, ge=1, le=64)
    dry_penalty_last_n: int = Field(default=-1, ge=-1, le=1 << 20)  # -1: the whole context
    dry_sequence_breakers: list[str] = Field(default=DEFAULT_BREAKERS, max_length=MAX_BREAKERS)


DRY_FIELDS = ("dry_multiplier", "dry_base", "dry_allowed_length", "dry_penalty_last_n", "dry_sequence_breakers")


class DryLlama(llama_cpp.Llama):
    """A Llama whose sampler chain gets DRY, primed with the prompt's tokens, when a call asks for it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._dry: dict[str, Any] = {}
        self._dry_prompt: list[int] = []

    def create_chat_completion(self, *args: Any, **kwargs: Any) -> Any:
        # The server holds the model's lock for the whole request (streamed or not), so the call's
        # DRY settings stay this call's until its sampler is built.
        self._dry = {name: kwargs.pop(name) for name in DRY_FIELDS if name in kwargs}
        return super().create_chat_completion(*args, **kwargs)

    def generate(self, tokens: Any, *args: Any, **kwargs: Any) -> Any:
        self._dry_prompt = list(tokens)  # the whole prompt, before any prefix-cache trimming
        return super().generate(tokens, *args, **kwargs)

    def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
        sampler = super()._init_sampler(*args, **kwargs)
        # Taken once: a later call that asked for nothing (a plain completion) samples as before.
        dry, self._dry = self._dry, {}
        if dry.get("dry_multiplier", 0.0) > 0.0:
            _insert_after_penalties(sampler.sampler, self._primed_dry(dry))
        return sampler

    def _primed_dry(self, dry_fields: dict[str, Any]) -> Any:
        breakers = [b[:MAX_BREAKER_CHARS] for b in dry_fields.get("dry_sequence_breakers", DEFAULT_BREAKERS)]
        array = (ctypes.c_char_p * len(breakers))(*(b.encode("utf-8") for b in breakers))
        last_n = int(dry_fields.get("dry_penalty_last_n", -1))
        dry = llama_cpp.llama_sampler_init_dry(
            self._model.vocab,
            float(dry_fields["dry_multiplier"]),
            float(dry_fields.get("dry_base", 1.75)),
            int(dry_fields.get("dry_allowed_length", 2)),
            self.n_ctx() if last_n == -1 else last_n,  # llama.cpp reads -1 as 0 (off): llama-server resolves it
            array,
            len(breakers),
        )
        for token in self._dry_prompt:  # as llama-server does: the prompt is context the penalty sees
            llama_cpp.llama_sampler_accept(dry, token)
        return dry


def _insert_after_penalties(chain: Any, dry: Any) -> None:
    """Put `dry` right after the chain's penalties sampler (before the grammar and the final pick),
    where llama.cpp's own sampler order has it."""
    count = llama_cpp.llama_sampler_chain_n(chain)
    names = [llama_cpp.llama_sampler_name(llama_cpp.llama_sampler_chain_get(chain, i)) for i in range(count)]
    if b"penalties" not in names:
        llama_cpp.llama_sampler_free(dry)
        raise RuntimeError(f"unexpected sampler chain {names}: this launcher reads llama-cpp-python {PINNED}")
    after = names.index(b"penalties") + 1
    tail = [llama_cpp.llama_sampler_chain_remove(chain, after) for _ in range(len(names) - after)]
    llama_cpp.llama_sampler_chain_add(chain, dry)
    for sampler in tail:
        llama_cpp.llama_sampler_chain_add(chain, sampler)


def main() -> None:
    if llama_cpp.__version__ != PINNED:
        sys.exit(f"llama_server_dry: llama-cpp-python {llama_cpp.__version__} found, this launcher reads {PINNED}")
    # The server module binds these names when imported: replace them first.
    server_types.CreateChatCompletionRequest = DryChatRequest
    llama_cpp.Llama = DryLlama
    from llama_cpp.server.__main__ import main as serve

    serve()


if __name__ == "__main__":
    main()
