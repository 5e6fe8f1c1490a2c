"""CLI subcommands for stored runs: list, export, replay, bundle/import, plan review, revise.

    python -m research runs [--limit N] [--json]
    python -m research export RUN_ID --format md|docx|pdf|csv|bib [--out FILE]
    python -m research replay RUN_ID [--speed 1|2|5|instant]
    python -m research bundle RUN_ID [--out FILE]
    python -m research import-run FILE [--new-id]
    python -m research continue RUN_ID [--question Q ...] [--allocation 210] [--json]
    python -m research cancel RUN_ID
    python -m research revise RUN_ID ["INSTRUCTION"] [--llm offline|openai] [--shape SHAPE] [--target-words N]

Registered by research.cli.main, whose exit codes they follow: 0 success, 2 bad input (one clear line
on stderr), 1 a failed run.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from argparse import Namespace
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from research.cli.shape_flags import add_shape_arguments, shape_from
from research.cli.terminal import terminal_json, terminal_text
from research.events import Event
from research.events import payloads as p
from research.settings import Settings

if TYPE_CHECKING:
    from research.runs.store import RunStore
    from research.runs.view import RunView

BadInput = type[Exception]
Report = Callable[..., int]  # (runner, run_id, *, as_json) -> exit code
Progress = Callable[[Event], None]

TOOL_COMMANDS = ("runs", "export", "replay", "bundle", "import-run", "continue", "cancel", "revise")
TOPIC_COLUMN = 60


def add_tool_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]  # any parser class
    runs = sub.add_parser("runs", help="list stored runs, newest first")
    runs.add_argument("--limit", type=int, default=50)
    runs.add_argument("--json", action="store_true")
    export = sub.add_parser("export", help="export a run's latest draft or its sources")
    export.add_argument("run_id")
    export.add_argument("--format", required=True, choices=["md", "docx", "pdf", "csv", "bib", "claims"])
    export.add_argument("--out", type=Path, help="output file (default: a safe name from the topic)")
    replay = sub.add_parser("replay", help="print a stored run's events with their original timing")
    replay.add_argument("run_id")
    replay.add_argument("--speed", default="1", help="1, 2, 5 (times faster) or instant")
    bundle = sub.add_parser("bundle", help="write a run (events, sources, drafts) to one file")
    bundle.add_argument("run_id")
    bundle.add_argument("--out", type=Path)
    imp = sub.add_parser("import-run", help="import a run bundle written by `bundle`")
    imp.add_argument("file", type=Path)
    imp.add_argument("--new-id", action="store_true", help="store it under a new run id")
    cont = sub.add_parser("continue", help="continue a run paused for plan review")
    cont.add_argument("run_id")
    cont.add_argument(
        "--question", action="append", dest="questions", help="a research question (repeat; replaces the plan's)"
    )
    cont.add_argument("--allocation", help='researchers per kind, e.g. "210"')
    cont.add_argument("--llm", choices=["offline", "openai"])
    cont.add_argument("--json", action="store_true")
    cancel = sub.add_parser("cancel", help="cancel a run paused for plan review")
    cancel.add_argument("run_id")
    revise = sub.add_parser("revise", help="revise a run's latest draft from an instruction")
    revise.add_argument("run_id")
    revise.add_argument("instruction", nargs="?", default="", help="what to change (optional with --shape)")
    revise.add_argument("--llm", choices=["offline", "openai"])
    add_shape_arguments(revise, for_revision=True)


def run_tool(args: Namespace, settings: Settings, bad_input: BadInput, report: Report, progress: Progress) -> int:
    try:
        return _dispatch(args, settings, bad_input, report, progress)
    except BrokenPipeError:  # `... | head`: the reader left; not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - so the interpreter's final flush is quiet
        return 0


def _dispatch(args: Namespace, settings: Settings, bad_input: BadInput, report: Report, progress: Progress) -> int:
    from research.runs.store import open_run_store

    store = open_run_store(settings)
    if args.command == "runs":
        return _runs(store, args)
    if args.command == "import-run":
        return _import(store, args, bad_input)
    if store.get_run(args.run_id) is None:
        raise bad_input(f"no run with id {args.run_id!r} in {store.label}")
    handler = {
        "export": _export,
        "replay": _replay,
        "bundle": _bundle,
        "cancel": _cancel,
        "revise": _revise,
    }.get(args.command)
    if handler:
        return handler(store, args, bad_input, settings)
    return _continue(settings, args, bad_input, report, progress)


def _runs(store: RunStore, args: Namespace) -> int:
    records = store.list_runs(limit=max(1, args.limit))
    if args.json:
        rows = [
            {
                "run_id": r.run_id,
                "topic": r.topic,
                "status": r.status,
                "allocation": r.allocation,
                "sources": r.source_count,
                "brain": r.brain,
                "created_at": _finite(r.created_at),
                "seconds": _finite(r.seconds),
            }
            for r in records
        ]
        print(terminal_json(rows, allow_nan=False))  # strict JSON: never Infinity
        return 0
    if not records:
        print("no runs stored yet", file=sys.stderr)
        return 0
    print(f"{'RUN ID':<12}  {'STATUS':<11}  {'CREATED':<16}  {'ALLOC':<5}  {'SRC':>3}  TOPIC")
    for r in records:
        topic = terminal_text(" ".join(r.topic.split()))
        topic = topic if len(topic) <= TOPIC_COLUMN else topic[: TOPIC_COLUMN - 1] + "…"
        print(
            f"{terminal_text(r.run_id):<12}  {r.status:<11}  {_when(r.created_at):<16}  "
            f"{terminal_text(r.allocation or '-'):<5}  {r.source_count:>3}  {topic}"
        )
    return 0


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _when(ts: float) -> str:
    try:
        return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, ValueError, OSError):  # a timestamp no calendar holds (1e17, inf)
        return "-"


def _export(store: RunStore, args: Namespace, bad_input: BadInput, settings: Settings) -> int:
    from research.export.run_export import ExportError, export_run

    try:
        file = export_run(store, args.run_id, args.format)
    except ExportError as exc:
        raise bad_input(str(exc)) from None
    out = args.out or Path(file.filename)
    _write(out, file.data, bad_input)
    print(terminal_text(out))
    return 0


def _replay(store: RunStore, args: Namespace, bad_input: BadInput, settings: Settings) -> int:
    from research.runs.replay import parse_speed, replay_run

    try:
        speed = parse_speed(args.speed)
    except ValueError as exc:
        raise bad_input(str(exc)) from None
    first_ts: float | None = None
    try:
        for event in replay_run(store, args.run_id, speed=speed):
            first_ts = event.ts if first_ts is None else first_ts
            print(f"+{event.ts - first_ts:8.2f}s  {terminal_text(replay_line(event), multiline=True)}", flush=True)
    except KeyboardInterrupt:
        return 130
    return 0


def replay_line(event: Event) -> str:
    """One line per event: the CLI's progress wording, and a short line for the rest."""
    from research.cli.progress import describe

    line = describe(event)
    if line:
        return line
    match event.data:  # describe() words plan review, approval and cancelling already
        case p.Message() as d:
            content = " ".join(d.content.split())
            return f"{d.name or 'message'}: {content[:100]}{'…' if len(content) > 100 else ''}"
        case p.UsageReported() as d:
            return f"Usage ({d.node}): {d.calls} calls, {d.prompt_tokens}+{d.completion_tokens} tokens"
    return event.type


def _bundle(store: RunStore, args: Namespace, bad_input: BadInput, settings: Settings) -> int:
    from research.export.filenames import safe_filename
    from research.runs.bundle import BUNDLE_EXTENSION, export_bundle

    data = export_bundle(store, args.run_id)
    record = store.get_run(args.run_id)
    assert record is not None  # _dispatch checked
    out = args.out or Path(safe_filename(record.topic, BUNDLE_EXTENSION))
    _write(out, data, bad_input)
    print(terminal_text(out))
    return 0


def _import(store: RunStore, args: Namespace, bad_input: BadInput) -> int:
    from research.runs.bundle import MAX_BUNDLE_BYTES, BundleError, import_bundle

    try:
        if args.file.stat().st_size > MAX_BUNDLE_BYTES:  # refused before it is read into memory
            raise bad_input(f"{args.file}: larger than {MAX_BUNDLE_BYTES // (1024 * 1024)} MB, not a run bundle")
        data = args.file.read_bytes()
    except OSError as exc:
        raise bad_input(f"cannot read {args.file}: {exc.strerror or exc}") from None
    try:
        run_id = import_bundle(store, data, new_id=args.new_id)
    except BundleError as exc:
        raise bad_input(f"{args.file}: {exc}") from None
    print(terminal_text(run_id))
    return 0


def _continue(settings: Settings, args: Namespace, bad_input: BadInput, report: Report, progress: Progress) -> int:
    from research.graph.nodes.plan_review import PlanEditError
    from research.runs.lease import RunBusyError
    from research.runs.remote import RemoteRunManager, ServerUnreachable
    from research.runs.runner import PlanReviewError, ResearchRunner

    runner: ResearchRunner | RemoteRunManager  # declared apart, so each branch's assignment narrows it
    if settings.server_url:  # remote mode: the paused run lives on the LangGraph server
        runner = RemoteRunManager(settings)
        go = partial(runner.continue_plan, args.run_id, args.questions, args.allocation, on_event=progress, block=True)
    else:
        runner = ResearchRunner(settings)
        go = partial(
            runner.continue_plan, args.run_id, args.questions, args.allocation, on_event=progress, llm=args.llm
        )
    try:
        go()
    except (PlanEditError, PlanReviewError, ServerUnreachable, RunBusyError) as exc:
        raise bad_input(str(exc)) from None
    code: int = report(runner, args.run_id, as_json=args.json)
    return code


def _cancel(store: RunStore, args: Namespace, bad_input: BadInput, settings: Settings) -> int:
    from research.runs.runner import PlanReviewError, ResearchRunner

    try:
        ResearchRunner(settings, store=store).cancel_plan(args.run_id)
    except PlanReviewError as exc:
        raise bad_input(str(exc)) from None
    print(f"Run {terminal_text(args.run_id)} cancelled.")
    return 0


def _revise(store: RunStore, args: Namespace, bad_input: BadInput, settings: Settings) -> int:
    from research.brains.offline.revise_instructions import RevisionError
    from research.runs.revision import revise_run

    try:
        if args.shape or args.target_words is not None:  # the report written again in a shape
            from research.runs.reshape import reshape_run

            shape = shape_from(args, bad_input)
            revision = reshape_run(
                store, args.run_id, shape, settings=settings, instruction=args.instruction, llm=args.llm
            )
        else:
            revision = revise_run(store, args.run_id, args.instruction, settings=settings, llm=args.llm)
    except RevisionError as exc:
        raise bad_input(str(exc)) from None
    for warning in revision.warnings:
        print(f"Warning: {terminal_text(warning)}", file=sys.stderr)
    if not revision.check.ok:
        print(
            f"Warning: citations to check: unresolved {revision.check.unresolved}, "
            f"unknown URLs {revision.check.unknown_urls}",
            file=sys.stderr,
        )
    print(f"Saved draft version {revision.version}.", file=sys.stderr)
    print(terminal_text(revision.markdown, multiline=True), end="")
    return 0


def print_plan(view: RunView) -> None:
    """A paused run's plan and how to go on (the research command and `continue`/`cancel`)."""
    plan = view.plan_review
    run_id = terminal_text(view.run_id)
    print(f"Run {run_id} is paused for plan review.")
    notation = terminal_text(plan.allocation_notation if plan else view.allocation_notation)
    print(f"Allocation: {notation} (web/academic/book)")
    print("Research questions:")
    for i, q in enumerate(plan.research_questions if plan else view.research_questions, 1):
        print(f"  {i}. {terminal_text(q)}")
    print(f"Continue: python -m research continue {run_id} [--question Q ...] [--allocation 210]")
    print(f"Cancel:   python -m research cancel {run_id}")


def _write(path: Path, data: bytes, bad_input: BadInput) -> None:
    from research.export.atomic_file import write_atomically

    try:
        write_atomically(path, data)  # a write cut short leaves the earlier file whole
    except OSError as exc:
        raise bad_input(f"cannot write {path}: {exc.strerror or exc}") from None
