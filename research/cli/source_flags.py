"""The source-control flags of `python -m research "TOPIC"` (research.schemas.source_quality.SourceControls)."""

from __future__ import annotations

import argparse

from pydantic import ValidationError

from research.schemas.source_quality import SourceControls


def add_source_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("source controls", "limits on the sources a run keeps (applied as they arrive)")
    group.add_argument("--year-from", type=int, metavar="YEAR", help="drop sources published before YEAR")
    group.add_argument("--year-to", type=int, metavar="YEAR", help="drop sources published after YEAR")
    group.add_argument(
        "--include-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="keep web sources only from DOMAIN and its subdomains (repeat, or comma-separate)",
    )
    group.add_argument(
        "--exclude-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="drop every source from DOMAIN and its subdomains (repeat, or comma-separate)",
    )
    group.add_argument(
        "--peer-reviewed", action="store_true", help="keep only academic sources from a peer-reviewed venue"
    )
    group.add_argument("--min-relevance", type=float, metavar="0-1", help="drop sources less relevant than this")


def controls_from(args: argparse.Namespace) -> SourceControls:
    """The flags as one SourceControls; ValueError with the first problem in words."""
    try:
        return SourceControls(
            year_from=args.year_from,
            year_to=args.year_to,
            include_domains=",".join(args.include_domain),  # the validator splits it
            exclude_domains=",".join(args.exclude_domain),
            peer_reviewed_only=args.peer_reviewed,
            min_relevance=0.0 if args.min_relevance is None else args.min_relevance,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = str(first["loc"][0]).replace("_", "-") if first["loc"] else "source controls"
        raise ValueError(f"--{where}: {first['msg'].removeprefix('Value error, ')}") from None
