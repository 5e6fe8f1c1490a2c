"""One settings object for the engine, read from the environment (prefix RESEARCH_) and `.env`.

The dashboard maps Streamlit secrets onto the same environment names before it builds Settings,
so every entry point sees one source of truth.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from research.secrets import mask_url, url_secrets

SourceMode = Literal["auto", "live", "library"]
BrainChoice = Literal["auto", "offline", "openai"]
ResearcherMode = Literal["pipeline", "agent"]

MAX_RESEARCHER_CAP = 9


class Settings(BaseSettings):
    # hide_input_in_errors: a refused value (a URL with its password) is never quoted in the error.
    model_config = SettingsConfigDict(
        env_prefix="RESEARCH_", env_file=".env", extra="ignore", populate_by_name=True, hide_input_in_errors=True
    )

    # Where runs, checkpoints, the library and logs live.
    data_dir: Path = Path("data")
    log_dir: Path = Path("logs")

    # Pipeline limits.
    max_researchers: int = Field(3, ge=1, le=MAX_RESEARCHER_CAP)
    max_iterations: int = Field(2, ge=0, le=5)
    max_consecutive_same: int = Field(3, ge=2, le=10)
    max_concurrency: int = Field(32, ge=1, le=128)
    # Reviewer rounds over the whole draft after the claim check (0 = no review).
    review_rounds: int = Field(1, ge=0, le=3)

    # Brains. The OpenAI names are the ones the OpenAI SDK itself reads.
    llm: BrainChoice = "auto"
    model: str = "gpt-4o-mini"
    fast_model: str | None = None
    openai_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("OPENAI_API_KEY", "RESEARCH_OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_BASE_URL", "RESEARCH_OPENAI_BASE_URL")
    )
    llm_timeout: float = Field(60.0, gt=0)
    max_llm_calls: int = Field(60, ge=1)
    max_tokens: int = Field(200_000, ge=1000)
    # Local models. Parallel model calls per server: a local server with one slot queues
    # the rest, and a queued request's timeout would run while it waits. Hosted APIs take many.
    llm_concurrency: int = Field(8, ge=1, le=64)
    # Output cap per reply (max_tokens sent with each request), by role; a reply cut by its cap
    # is used and noted with a warning.
    reply_tokens_queries: int = Field(200, ge=16, le=32_000)
    reply_tokens_plan: int = Field(700, ge=16, le=32_000)
    reply_tokens_notes: int = Field(700, ge=16, le=32_000)
    reply_tokens_judge: int = Field(900, ge=16, le=32_000)
    reply_tokens_writer: int = Field(2000, ge=16, le=32_000)
    # The model's context window in tokens (None: unknown, prompts are not trimmed up front; a
    # context overflow still trims the sources and retries). Set it for local servers (n_ctx).
    context_tokens: int | None = Field(None, ge=512, le=10_000_000)
    # Seconds one streaming reply may take in all (the client timeout is per read): a server that
    # never ends a reply is cut here.
    llm_reply_seconds: float = Field(300.0, gt=0, le=3600)
    # Sampling temperature sent with every call (None: the server's default; llama-cpp-python's is 0.8).
    llm_temperature: float | None = Field(None, ge=0, le=2)

    # Sources.
    sources: SourceMode = "auto"
    # Who has the last word on a kept source's relevance: the offline score alone, or with an LLM
    # brain also the model, one batched call per query's new sources (brains/relevance_judge.py).
    relevance_judge: Literal["offline", "model"] = "offline"
    # With an LLM brain, one more writer call per section restates the sentences the model copied
    # word for word from its passage (brains/llm/grounded_restate.py): for small local models,
    # which copy whatever the prompt asks; off by default, so call counts stay comparable.
    writer_restate_copies: bool = False
    # With a llama.cpp server (llama-server, or the local-model lane's bench/llama_server_dry.py),
    # the writer's section and restating calls ask for llama.cpp's DRY sampler at this multiplier:
    # each token that extends a run of the prompt's tokens longer than RESEARCH_WRITER_DRY_ALLOWED_LENGTH
    # is penalised more, so a small model uses its passage's words without copying its sentences.
    # 0: off (the default; OpenAI's API has no such field and is never sent it).
    writer_dry_multiplier: float = Field(0.0, ge=0, le=5)
    writer_dry_allowed_length: int = Field(4, ge=1, le=32)
    http_timeout: float = Field(15.0, gt=0)
    results_per_query: int = Field(5, ge=1, le=20)
    allow_private_urls: bool = False
    tavily_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("TAVILY_API_KEY", "RESEARCH_TAVILY_API_KEY")
    )
    github_token: SecretStr | None = Field(None, validation_alias=AliasChoices("GITHUB_TOKEN", "RESEARCH_GITHUB_TOKEN"))
    tavily_url: str = "https://api.tavily.com"
    arxiv_url: str = "https://export.arxiv.org/api/query"
    openalex_url: str = "https://api.openalex.org"
    openlibrary_url: str = "https://openlibrary.org"
    wikipedia_url: str = "https://en.wikipedia.org/w/api.php"
    github_url: str = "https://api.github.com"
    stackexchange_url: str = "https://api.stackexchange.com/2.3"
    # DuckDuckGo HTML endpoint used by ddgs (None = the library's own, html.duckduckgo.com/html/).
    ddgs_url: str | None = None
    # False (RESEARCH_RATE_LIMITS=off) drops the per-provider request spacing, e.g. arXiv's one request
    # per 3 s: only for base URLs pointed at local fakes or mirrors. Concurrency caps stay.
    rate_limits: bool = True
    # How long a provider's answer to a query is reused (by any run in this process); 0 turns it off.
    search_cache_seconds: float = Field(600.0, ge=0, le=86_400)
    enable_github: bool = False
    enable_stackexchange: bool = False
    # Seconds each local-library search waits, to pace live demos (and make a run observable in tests).
    demo_delay: float = Field(0.0, ge=0, le=30)
    # Security. What one search hit, and a run's stored page text, carries of a document:
    # the whole text up to this many characters, else its best passages (the library keeps it all).
    max_source_text_chars: int = Field(200_000, ge=2_000, le=20_000_000)
    # Serve the dashboard on a non-loopback address without a login ([auth] in secrets): only on purpose.
    allow_unauthenticated: bool = False
    # Shared runs: a postgresql:// URL puts the run store (runs, events, drafts, source texts,
    # comparisons) and the in-process checkpoints in Postgres, so dashboard replicas share them.
    # Unset: SQLite files in the data dir (the embedded default). A secret: it may hold a password.
    database_url: SecretStr | None = None
    # A runner holds a lease on its run and renews it every third of this; a run whose lease lapsed
    # (its process died) may be resumed elsewhere. Same-host owners that are gone free it at once.
    run_lease_seconds: float = Field(30.0, ge=1, le=3600)

    # Researchers: fixed query pipeline, or agents that choose their tools in a bounded loop.
    researcher_mode: ResearcherMode = "pipeline"
    max_tool_calls_per_researcher: int = Field(6, ge=1, le=30)
    max_tool_calls_per_round: int = Field(40, ge=1, le=500)
    max_tool_calls_per_run: int = Field(100, ge=1, le=2000)

    # Shared desks with [auth]: who may delete any run (comma-separated emails), and model calls a
    # signed-in user may spend a day on the desk's shared key (unset: no cap).
    admins: str = ""
    user_daily_llm_calls: int | None = Field(None, ge=0)

    # Remote mode (research/runs/remote.py): a LangGraph Server runs the graph; None = in-process.
    server_url: str | None = None
    server_timeout: float = Field(60.0, gt=0, le=3600)  # seconds: connect (at most 5) and each stream read

    @field_validator("fast_model", "openai_base_url", "server_url", "user_daily_llm_calls", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("server_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http:// or https:// URL of a LangGraph server, got {mask_url(value)[:100]!r}")
        return value

    @field_validator("database_url", mode="after")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        if not value.get_secret_value().startswith(("postgresql://", "postgres://")):
            raise ValueError("RESEARCH_DATABASE_URL must be a postgresql:// URL (unset it for the SQLite default)")
        return value

    @property
    def effective_fast_model(self) -> str:
        return self.fast_model or self.model

    @property
    def llm_configured(self) -> bool:
        return bool(self.openai_api_key or self.openai_base_url)

    def brain_kind(self) -> Literal["offline", "openai"]:
        """Default: the LLM brain when a key or base URL is set, otherwise offline."""
        if self.llm == "auto":
            return "openai" if self.llm_configured else "offline"
        return self.llm

    def secret_values(self) -> list[str]:
        """Every configured secret, so logs and exports can be scrubbed of them."""
        secrets = [self.openai_api_key, self.tavily_api_key, self.github_token, self.database_url]
        values = [s.get_secret_value() for s in secrets if s and s.get_secret_value()]
        # The credentials inside every URL setting (userinfo, password-like query values), found by parsing.
        database = self.database_url.get_secret_value() if self.database_url else None
        for url in (database, self.server_url, self.openai_base_url, *self.provider_urls()):
            values += [v for v in url_secrets(url) if v not in values]
        return values

    def provider_urls(self) -> list[str]:
        urls = [self.tavily_url, self.arxiv_url, self.openalex_url, self.openlibrary_url, self.wikipedia_url]
        return [*urls, self.github_url, self.stackexchange_url, *([self.ddgs_url] if self.ddgs_url else [])]

    @property
    def admin_emails(self) -> frozenset[str]:
        return frozenset(e.strip().lower() for e in self.admins.replace(";", ",").split(",") if e.strip())

    @property
    def runs_db(self) -> Path:
        return self.data_dir / "runs.sqlite"

    @property
    def checkpoints_db(self) -> Path:
        return self.data_dir / "checkpoints.sqlite"

    @property
    def library_db(self) -> Path:
        return self.data_dir / "library.sqlite"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
