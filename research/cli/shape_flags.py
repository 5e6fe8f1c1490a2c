"""The report-shape flags of `research "TOPIC"` and `research revise`: --shape and --target-words."""

from __future__ import annotations

import argparse

from research.report_shape import MAX_TARGET_WORDS, MIN_TARGET_WORDS, SHAPES, ReportShape


def add_shape_arguments(parser: argparse.ArgumentParser, *, for_revision: bool = False) -> None:
    what = "write the report again from the run's sources in this shape" if for_revision else "the report's shape"
    parser.add_argument(
        "--shape",
        choices=list(SHAPES),
        help=f"{what}: brief (a paragraph and bullets), standard, detailed (longer sections, more sources), "
        "outline (an outline first)",
    )
    parser.add_argument(
        "--target-words",
        type=int,
        metavar="N",
        help=f"target length in words ({MIN_TARGET_WORDS}-{MAX_TARGET_WORDS}); a report the evidence cannot "
        "fill says so rather than pad",
    )


def shape_from(args: argparse.Namespace, bad_input: type[Exception]) -> ReportShape:
    target = args.target_words
    if target is not None and not MIN_TARGET_WORDS <= target <= MAX_TARGET_WORDS:
        raise bad_input(f"--target-words must be {MIN_TARGET_WORDS}-{MAX_TARGET_WORDS}, got {target}")
    return ReportShape(shape=args.shape or "standard", target_words=target)
