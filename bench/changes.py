"""What the benchmarks found and what was changed because of it, with before/after figures,
written into results.json under "changes" (they were measured once, when the change was made).

"Figures" come from bench/critical_path.py and bench/fanout.py in full mode (medians of 3), run back
to back on the same machine without and with the changes (first round: the three engine changes
monkeypatched out; second round: the previous commit in a git worktree); the micro-measurements
isolate each cause. The machine was shared with other engineers' test runs (load average 2-10 on 2
cores in the first round, under 1 in the second), so single figures move by a few percent between
runs.
"""

from __future__ import annotations

# Figures 1 (critical_path_efficiency, per allocation) and 2 (fanout_*, per researcher count), as
# results.json keys them: the first round before and after, then the second round (what still kept
# allocation 333 at 1.15: the five changes below, previous commit vs this one) before and after.
_MEASURED = [
    ("critical_path_efficiency", "100", 1.106, 1.071, 1.065, 1.053),
    ("critical_path_efficiency", "111", 1.56, 1.1, 1.088, 1.082),
    ("critical_path_efficiency", "210", 1.209, 1.106, 1.105, 1.077),
    ("critical_path_efficiency", "300", 1.148, 1.099, 1.096, 1.067),
    ("critical_path_efficiency", "333", 1.938, 1.158, 1.146, 1.087),
    ("fanout_ratio", "1", 1.0, 1.0, 1.0, 1.0),
    ("fanout_ratio", "2", 1.078, 1.033, 1.028, 1.014),
    ("fanout_ratio", "3", 1.379, 1.06, 1.042, 1.022),
    ("fanout_ratio", "6", 1.141, 1.114, 1.088, 1.022),
    ("fanout_ratio", "9", 1.404, 1.142, 1.128, 1.023),
    ("fanout_seconds", "1", 2.86, 1.718, 1.72, 1.691),
    ("fanout_seconds", "2", 3.084, 1.776, 1.768, 1.715),
    ("fanout_seconds", "3", 3.945, 1.821, 1.792, 1.729),
    ("fanout_seconds", "6", 3.264, 1.914, 1.871, 1.729),
    ("fanout_seconds", "9", 4.016, 1.962, 1.94, 1.731),
]


def _figures(column: int) -> dict[str, dict[str, float]]:
    figures: dict[str, dict[str, float]] = {}
    for figure, key, *values in _MEASURED:
        figures.setdefault(figure, {})[key] = values[column]
    return figures


FIGURES_BEFORE, FIGURES_AFTER, SECOND_BEFORE, SECOND_AFTER = (_figures(column) for column in range(4))

CHANGES: list[dict] = [
    {
        "what": "Run store keeps one SQLite connection per thread (synchronous=NORMAL) instead of one per operation",
        "file": "research/runs.py",
        "cause": "Every event append opened a connection and closed it; closing the last connection to a WAL "
        "database checkpoints and fsyncs it. Events are appended on the thread that drives the graph, "
        "between supersteps, so each event delayed the next step.",
        "before": "append_event 1.1 ms (quiet disk) to 18.9 ms (disk shared with other test runs)",
        "after": "append_event 0.02 ms",
    },
    {
        "what": "One pooled, process-wide httpx client for provider requests instead of a client per request",
        "file": "research/sources/http.py",
        "cause": "Each request built an httpx.Client: a CA-bundle load (~25 ms of CPU, one per proxy too when "
        "proxy variables are set) that parallel researchers queue for under the GIL, and a fresh "
        "TCP (and, live, TLS) handshake.",
        "before": "28.9 ms per loopback request (client setup included)",
        "after": "0.96 ms per loopback request",
    },
    {
        "what": "Open Library work descriptions fetched all at once (the provider's rate limiter still caps "
        "them at 2 in flight against the real service)",
        "file": "research/sources/openlibrary.py",
        "cause": "A 2-thread pool per search made 5 descriptions 3 sequential waves, on top of the search.",
        "before": "1.37 s per Open Library search at 300 ms per request",
        "after": "0.61 s (search, then one wave)",
    },
    {
        "what": "The live run panels refresh every 0.5 s instead of 1 s",
        "file": "ui/run_view.py",
        "cause": "The first render after the click happens while the supervisor is still planning; the first "
        "researcher card then waited for the next 1 s fragment tick.",
        "before": "click to first researcher card 1.26-1.37 s (median of 2-5)",
        "after": "0.89 s (median of 5)",
    },
    {
        "what": "Figures 1 and 2 with the three engine changes above (first round)",
        "file": "research/runs.py, research/sources/http.py, research/sources/openlibrary.py",
        "cause": "see the entries above",
        "before": FIGURES_BEFORE,
        "after": FIGURES_AFTER,
    },
    {
        "what": "Structured output binds response_format (or the tool) to the model directly instead of "
        "going through with_structured_output(include_raw=True)",
        "file": "research/brains/llm/structured.py",
        "cause": "include_raw wraps every call in two RunnableParallel steps, each starting a thread pool; "
        "nine researchers calling at once queued for those thread starts under the GIL. The raw "
        "reply was all we parsed anyway.",
        "before": "6.2 ms of CPU per structured call (loopback server, no latency)",
        "after": "3.2 ms",
    },
    {
        "what": "The research graph is compiled once per loop limit and copied with each run's checkpointer",
        "file": "research/graph.py",
        "cause": "Every run compiled the graph (StateGraph.compile inspects every node's signature) before "
        "its first model call.",
        "before": "11.5 ms per run before the supervisor's call",
        "after": "0.03 ms (a copy with the run's checkpointer)",
    },
    {
        "what": "The checkpoint database commits with synchronous=NORMAL (WAL), as the run store does",
        "file": "research/runner.py",
        "cause": "With SQLite's default (FULL) every checkpoint write fsynced the WAL while holding the "
        "saver's single lock, and each researcher's every step writes one.",
        "before": "commit 1.14 ms, wait for the saver's lock 8.3 ms per write (9-researcher run; ext4 on a "
        "quiet virtual disk, where a busy disk's fsync costs far more)",
        "after": "commit 0.34 ms, lock wait 5.5 ms",
    },
    {
        "what": "Provider answers are reused for 10 minutes and identical requests in flight are sent once "
        "(RESEARCH_SEARCH_CACHE_SECONDS)",
        "file": "research/sources/search_cache.py, research/sources/router.py",
        "cause": "Researchers of one kind often send the same query (the bench's scripted researchers always "
        "do, as LLM researchers on one topic often do), and each repeat was a request against the "
        "service's rate limit; at 333 those repeats were over half the requests, all in one burst.",
        "before": "allocation 333: 68 search requests per run; figure 1 at 333 with the other four changes in "
        "place and the cache off: 1.114-1.119",
        "after": "30 search requests; 1.087-1.093",
    },
    {
        "what": "Researchers are dispatched longest-first, by each kind's observed retrieve time",
        "file": "research/nodes/supervisor.py, research/sources/retrieve_timings.py",
        "cause": "Researchers start a few ms apart (Python work before each first request), in the plan's "
        "order: web first, book last, although book searches need two dependent requests (search, "
        "then descriptions or intros) and decide when the round ends.",
        "before": "figure 1 at 333 (structured output, graph and cache changes in place): 1.107, 1.119",
        "after": "1.088, 1.096; with the bench's runners sharing one router, as the dashboard's runs do "
        "(before, each researcher cap had its own, so the first 333 run knew no timings): 1.079-1.089",
    },
    {
        "what": "Figures 1 and 2 with the five changes above (previous commit vs this one, back to back)",
        "file": "research/brains/llm/structured.py, research/graph.py, research/runner.py, research/sources/, "
        "research/nodes/supervisor.py",
        "cause": "see the entries above",
        "before": SECOND_BEFORE,
        "after": SECOND_AFTER,
    },
    {
        "what": "Retries on tenacity (one policy for httpx and client-library providers); our rate limiter, "
        "circuit breaker, stemmer, BM25 and sentence splitter kept, each measured against the library "
        "(figure 8, bench/libraries.py)",
        "file": "research/sources/retrying.py, research/sources/http.py, research/sources/client_retry.py, "
        "research/sources/rate_limits.py",
        "cause": "use a maintained library where it does the job as well",
        "before": "hand-written retry loops in http.py and client_retry.py",
        "after": "tenacity: +9 us per request whose first attempt succeeds (tests unchanged); the kept pieces "
        'are faster or behave as the tests assert (bench/results.json "libraries")',
    },
    {
        "what": "Text work once per document (tokenize, split_sentences, stems, term keys and relevance "
        "judgements memoised, bounded), the analyst's coverage beside its model call, BM25 ranked for the "
        "one query asked",
        "file": "research/text/memo.py, research/text/tokens.py, research/text/sentences.py, "
        "research/text/bm25.py, research/text/snippets.py, research/relevance/ranking.py, "
        "research/relevance/terms.py, research/graph/overlap.py, research/graph/nodes/analyst.py",
        "cause": "the 333 profile (bench/gil_profile.py): half the desk's CPU tokenising the same stored texts "
        "again per question, section and source, and a full BM25 index built to rank one query",
        "before": "figure 1, measured alternately with python -m bench.ab_compare (load 11-16): "
        "111 1.51, 333 1.71; writer overhead at 333 1.50 s, each analyst 0.44-0.52 s",
        "after": "111 1.30, 333 1.35 (wall time 0.83x and 0.74x); writer 0.87 s, each analyst 0.05-0.10 s; "
        "realistic latencies 333: 1.48 -> 1.09",
    },
    {
        "what": "The writer's passage choice off its critical path: the prose checks memoised, the later "
        "sections' candidate sentences worked out while the first section's model call waits",
        "file": "research/text/prose.py, research/brains/llm/grounded_passages.py, "
        "research/brains/llm/grounded_writer.py",
        "cause": "the writer phase's profile at 333 (bench/writer_cpu.py): 71 % of the writer thread's CPU was "
        "choosing passages between model calls, 52 % the prose check of every source sentence, again per section",
        "before": "writer thread 71.6 ms CPU per 333 run (passage choice 50.8 ms), writer phase 82.8 ms of "
        "process CPU (loaded machine, CPU time; 12 runs per tree alternating)",
        "after": "writer thread 28.4 ms (0.40x; passage choice 5.4 ms), writer phase 42.1 ms (0.51x); draft, "
        "events and claim verdicts identical (tests/integration/test_writer_golden.py)",
    },
    {
        "what": "Model calls keep their connection (the body's end read after [DONE], bounded) and skip the "
        "openai SDK's per-call transform of the request body; Tavily searches share a pooled session per "
        "key; the supervisor fans out without a plan-review step when none was asked; a kind with one "
        "live provider is searched on the calling thread",
        "file": "research/brains/llm/chat_request.py, research/brains/llm/chat_sse.py, "
        "research/sources/providers/tavily_provider.py, research/graph/builder.py, "
        "research/graph/nodes/plan_review.py, research/sources/router.py",
        "cause": "a timeline of one 100 run on a quiet machine: each model call 5-7 ms over its latency, a "
        "new TCP connection per call (the reader closed the response before the chunked body's end), and "
        "the SDK's recursive transform of every message a quarter of a call's client CPU",
        "before": "one call (latency 0, 300 calls): 3.04 ms over the server's time, 2.25 ms client CPU, "
        "10 connections for 10 calls; python -m bench.ab_compare --base af78a00 (5 rounds, load < 1): "
        "run CPU 0.21 / 0.34 / 0.33 / 0.39 / 0.57 s at 100 / 111 / 210 / 300 / 333",
        "after": "2.22 ms, 1.69 ms CPU, 1 connection; run CPU 0.91x (100), 0.93x (111), 0.91x (210), 0.94x "
        "(333, a 6-round rerun: the 5-round run read 1.10x there, and 300's 0.72x came from one slow writer "
        "phase in the base); wall time 0.97-1.00x; figure 1 still above 1.05 (README, Performance)",
    },
    {
        "what": "Provider requests: one pooled httpx client per provider instead of one for all, keeping no "
        "cookies; one TLS context for those clients and for every page fetch",
        "file": "research/sources/http.py, research/sources/providers/scraper.py",
        "cause": "a book retrieve timed alone on the loopback world: about 2 ms of CPU a request, a fifth of it "
        "httpcore's scans of one pool holding every provider's connections, a tenth httpx's cookie "
        "bookkeeping; a page fetch built a new verifying TLS context (the CA bundle loaded) each time",
        "before": "10 book retrieves: 13,632 is_idle calls, 18 new connections; a loopback page fetch 22-32 ms "
        "of CPU; python -m bench.ab_compare --base 7bb2f16 (5 rounds): run CPU 0.15 / 0.26 / 0.28 / 0.23 / "
        "0.53 s at 100 / 111 / 210 / 300 / 333",
        "after": "7,255 is_idle calls, no new connections; a page fetch 1.4-2.1 ms; run CPU 0.91x (100), 0.96x "
        "(111), 0.86x (210), 0.89x (300), 0.82x (333); wall time 0.99-1.00x; figure 1 still above 1.05 at "
        "210, 300 and 333 (README, Performance)",
    },
    {
        "what": "Checkpoints store each channel's value once per version (a step writes what it changed, "
        "not the whole state again); checkpoints written before still read and continue",
        "file": "research/runs/blob_saver.py, research/runs/checkpoints.py, bench/memory.py",
        "cause": "LangGraph's SqliteSaver serialised the whole state (sources, notes, drafts) into every "
        "checkpoint, so the store grew by the state's size at every step",
        "before": "checkpoint data per loopback run 773 KB (111) and 1,316 KB (333); the saver's put 10.2-11.2 "
        "ms (111) and 13.0-16.8 ms (333) of CPU per run; memory figure 272,447 B per default offline run (it "
        "now also counts the values table)",
        "after": "269 KB and 517 KB; 6.1-7.2 ms and 9.0-9.4 ms; 136,107 B; figure 1 unchanged (python -m "
        "bench.ab_compare --base c5e6f1a, 5 rounds: wall time 0.99-1.01x)",
    },
    {
        "what": "Events published from the nodes that make them (RunPublisher, the sink a server worker's "
        "log already used); the runner invokes the graph and drains no stream",
        "file": "research/runs/publisher.py, research/runs/runner.py, research/graph/node_events.py",
        "cause": "a sync graph.stream() with a custom mode parks a waiter on LangGraph's executor, so every "
        "single-task step was handed to a pool thread and back, and every event woke the runner's thread "
        "to take it from the output queue",
        "before": "python -m bench.ab_compare --base fbb25c5 (7 rounds, 19:10-19:18 UTC): run CPU 0.15 / 0.25 "
        "/ 0.25 / 0.22 / 0.37 s at 100 / 111 / 210 / 300 / 333; figure 1 (medians) 1.04 / 1.05 / 1.05 / "
        "1.05 / 1.05",
        "after": "run CPU 0.84x / 0.90x / 0.93x / 0.82x / 0.84x; wall time 0.99-1.00x; 1.04 / 1.05 / 1.05 / "
        "1.04 / 1.04; the full make bench at 19:23 UTC: 1.033 / 1.037 / 1.044 / 1.044 / 1.037",
    },
]
