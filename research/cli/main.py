"""The command line.

    python -m research "TOPIC" [--allocation 210] [--llm offline|openai] [--max-iterations N] [--review-plan] [--json]
        [--shape brief|standard|detailed|outline] [--target-words N]
    python -m research resume RUN_ID
    python -m research runs | export | replay | bundle | import-run | continue | cancel | revise ...
      (stored runs: see research/cli_tools.py)
    python -m research library import PATH [PATH ...] --kind web|academic|book
    python -m research library search "QUERY" [--kind KIND] [--limit N]

Exit codes: 0 success, 2 bad input (one clear line on stderr), 1 a failed run.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pydantic import ValidationError

from research.brains.llm.availability import brain_problem
from research.cli.commands import TOOL_COMMANDS, add_tool_parsers, print_plan, run_tool
from research.cli.progress import describe
from research.cli.shape_flags import add_shape_arguments, shape_from
from research.cli.source_flags import add_source_flags, controls_from
from research.cli.terminal import terminal_json, terminal_text
from research.events import Event, RunStatus
from research.graph.allocation import AllocationError
from research.runs.sql import DatabaseUnavailable
from research.schemas.researchers import RESEARCHER_KINDS
from research.schemas.state_shapes import ResearchRequest, TopicError, validate_topic
from research.settings import Settings

if TYPE_CHECKING:
    from research.runs.remote import RemoteRunManager
    from research.runs.runner import ResearchRunner

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
SUBCOMMANDS = ("resume", "library", *TOOL_COMMANDS)


class BadInput(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            return _subcommand(argv)
        return _research(argv)
    except BadInput as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DatabaseUnavailable as exc:  # RESEARCH_DATABASE_URL set but unreachable: one line, no traceback
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return EXIT_FAILED


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one clear line and exit 2, as for any bad input
        raise BadInput(message)


def _research_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m research", description="Research a topic with a team of researchers.")
    p.add_argument("topic", help="the research topic (1-2,000 characters)")
    p.add_argument("--allocation", help='researchers per kind as 3 digits web/academic/book, e.g. "210"')
    p.add_argument("--llm", choices=["offline", "openai"], help="reasoning backend (default: openai when configured)")
    p.add_argument("--max-iterations", type=int, help="revision rounds the analyst may ask for (0-5)")
    p.add_argument("--sources", choices=["auto", "live", "library"], help="where sources come from")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the markdown draft")
    p.add_argument(
        "--review-plan",
        action="store_true",
        help="pause after the supervisor to review the plan (then: continue RUN_ID / cancel RUN_ID)",
    )
    p.add_argument(
        "--researcher-mode",
        choices=["pipeline", "agent"],
        help="pipeline: fixed queries per researcher; agent: each researcher chooses its tools "
        "(default: RESEARCH_RESEARCHER_MODE, else pipeline)",
    )
    add_shape_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_source_flags(p)
    return p


def _settings(sources: str | None = None) -> Settings:
    try:
        settings = Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BadInput(f"invalid setting RESEARCH_{str(first['loc'][0]).upper()}: {first['msg']}") from None
    return settings.model_copy(update={"sources": sources}) if sources else settings


def _research(argv: list[str]) -> int:
    args = _research_parser().parse_args(argv)
    try:
        topic = validate_topic(args.topic)
    except TopicError as exc:
        raise BadInput(str(exc)) from None
    if args.max_iterations is not None and not 0 <= args.max_iterations <= 5:
        raise BadInput(f"--max-iterations must be 0-5, got {args.max_iterations}")
    settings = _settings(args.sources)
    try:
        controls = controls_from(args)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    problem = brain_problem(settings, args.llm)  # before anything is stored or sent (remote mode too)
    if problem:
        raise BadInput(problem)
    request = ResearchRequest(
        topic=topic,
        allocation=args.allocation,
        llm=args.llm,
        max_iterations=args.max_iterations,
        review_plan=args.review_plan,
        researcher_mode=args.researcher_mode,
        source_controls=controls,
        report_shape=shape_from(args, BadInput),
    )

    if settings.server_url:  # remote mode: the graph runs on the LangGraph server
        from research.runs.remote import RemoteRunManager, ServerUnreachable

        runner: ResearchRunner | RemoteRunManager = RemoteRunManager(settings)
        unreachable: tuple[type[Exception], ...] = (ServerUnreachable,)
    else:
        from research.runs.runner import ResearchRunner  # heavy imports only once the input is valid

        runner = ResearchRunner(settings)
        unreachable = ()
    create = runner.create
    try:
        run_id = create(request)
    except AllocationError as exc:
        raise BadInput(f"invalid allocation: {exc}") from None
    except unreachable as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return EXIT_FAILED
    runner.run(request, on_event=None if args.quiet else _print_progress, run_id=run_id)
    return _report(runner, run_id, as_json=args.json)


def _report(runner: ResearchRunner | RemoteRunManager, run_id: str, *, as_json: bool) -> int:
    from research.runs.view import fold, to_json

    view = fold(runner.store.events(run_id))
    if as_json:
        print(terminal_json(to_json(view)))
    elif view.paused:
        print_plan(view)
    elif view.draft:
        print(terminal_text(view.draft, multiline=True))
    return EXIT_OK if view.status in (RunStatus.FINISHED, RunStatus.PAUSED) else EXIT_FAILED


def _print_progress(event: Event) -> None:
    line = describe(event)
    if line:
        print(terminal_text(line, multiline=True), file=sys.stderr, flush=True)


def _subcommand(argv: list[str]) -> int:
    p = _Parser(prog="python -m research")
    sub = p.add_subparsers(dest="command", required=True)
    resume = sub.add_parser("resume", help="continue an interrupted run from its last checkpoint")
    resume.add_argument("run_id")
    resume.add_argument("--llm", choices=["offline", "openai"])
    resume.add_argument("--json", action="store_true")
    library = sub.add_parser("library", help="the local library")
    lib = library.add_subparsers(dest="library_command", required=True)
    imp = lib.add_parser("import", help="import .md, .txt, .html and .pdf files")
    imp.add_argument("paths", nargs="+", type=Path)
    imp.add_argument("--kind", required=True, choices=RESEARCHER_KINDS)
    search = lib.add_parser("search", help="search the library")
    search.add_argument("query")
    search.add_argument("--kind", choices=RESEARCHER_KINDS)
    search.add_argument("--limit", type=int, default=10)
    add_tool_parsers(sub)
    args = p.parse_args(argv)
    settings = _settings()
    if getattr(args, "llm", None) == "openai" and (problem := brain_problem(settings, "openai")):
        raise BadInput(problem)  # resume / continue / revise --llm openai with no model configured
    if args.command == "resume":
        return _resume(settings, args)
    if args.command in TOOL_COMMANDS:
        return run_tool(args, settings, BadInput, _report, _print_progress)
    return _library(settings, args)


def _resume(settings: Settings, args: argparse.Namespace) -> int:
    from research.runs.lease import RunBusyError
    from research.runs.runner import RunNotResumableError

    refused: tuple[type[Exception], ...] = (RunBusyError, RunNotResumableError)
    runner: ResearchRunner | RemoteRunManager  # declared apart, so each branch's assignment narrows it
    if settings.server_url:  # remote mode: reattach to the run on the server and follow it to its end
        from research.runs.remote import RemoteRunManager, ServerUnreachable

        runner = RemoteRunManager(settings)
        go = partial(runner.resume, args.run_id, on_event=_print_progress, block=True)
        unreachable: tuple[type[Exception], ...] = (ServerUnreachable,)
    else:
        from research.runs.runner import ResearchRunner

        runner = ResearchRunner(settings)
        go = partial(runner.resume, args.run_id, on_event=_print_progress, llm=args.llm)
        unreachable = ()
    if runner.store.get_run(args.run_id) is None:
        raise BadInput(f"no run with id {args.run_id!r} in {runner.store.label}")
    try:
        go()
    except unreachable as exc:
        print(f"error: {terminal_text(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except refused as exc:  # refused before anything ran or was written
        raise BadInput(str(exc)) from None
    return _report(runner, args.run_id, as_json=args.json)


def _library(settings: Settings, args: argparse.Namespace) -> int:
    from research.sources.library.library_store import Library

    library = Library(settings.library_db)
    library.ensure_sample()
    if args.library_command == "import":
        from research.sources.library.importer import import_paths

        missing = [str(p) for p in args.paths if not p.exists()]
        if missing:
            raise BadInput(f"no such file or folder: {', '.join(missing)}")
        report = import_paths(library, args.paths, args.kind)
        for item in report.imported:
            print(f"imported: {terminal_text(item.name)}: {terminal_text(item.title)}")
        for name, reason in report.skipped:
            print(f"skipped: {terminal_text(name)}: {terminal_text(reason)}", file=sys.stderr)
        print(f"{len(report.imported)} imported, {len(report.skipped)} skipped", file=sys.stderr)
        if report.skipped and not report.imported:
            print("error: no file was imported (every one was skipped)", file=sys.stderr)
            return EXIT_BAD_INPUT
        return EXIT_OK
    hits = library.search(args.query, kind=args.kind, limit=args.limit)
    for hit in hits:
        title, url = terminal_text(hit.title), terminal_text(hit.url)
        print(f"{hit.score:7.2f}  [{terminal_text(hit.kind)}] {title} ({hit.year or 'n.d.'})  {url}")
    if not hits:
        print("no matches", file=sys.stderr)
    return EXIT_OK
