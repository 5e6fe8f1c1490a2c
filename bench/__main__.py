"""`python -m bench [--quick] [--only NAME ...]`: measure the figures and write the results.

The dashboard figure runs last: it starts `streamlit run` and Chromium, the heaviest neighbours.
A figure that fails is recorded under "errors" and the others still run.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback

from bench.harness import BenchContext, FigureSkipped, Results, figure_timer, isolate_environment, log

FIGURES = (
    "critical_path",
    "fanout",
    "cost",
    "agent_vs_pipeline",
    "offline_speed",
    "library_scale",
    "memory",
    "libraries",
    "hostile_inputs",
    "remote_mode",
    "run_store",
    "dashboard",
    "local_model",
)
# Measured only when named with --only: they install packages from the registry and run for long.
OPT_IN_FIGURES = ("peers",)
MODULES = {"peers": "bench.peers.figure"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and sizes (under 2 minutes)")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=FIGURES + OPT_IN_FIGURES,
        help="measure only these figures (the other figures of bench/results.json are kept)",
    )
    parser.add_argument("--no-readme", action="store_true", help="do not update README.md")
    parser.add_argument(
        "--render", action="store_true", help="measure nothing: rewrite results.md and the README from results.json"
    )
    args = parser.parse_args(argv)
    isolate_environment()  # before the engine reads any setting

    from bench import report

    if args.render:
        report.render(readme=None if args.no_readme else report.README)
        log(f"rendered {report.RESULTS_MD.name}{'' if args.no_readme else ' and the README'} from results.json")
        return 0

    ctx = BenchContext(quick=args.quick)
    results = Results(quick=args.quick)
    log(
        f"{'quick' if args.quick else 'full'} run on {results.machine['cores']} cores, load "
        f"{results.machine['load_average_1m']}; scratch in {ctx.root}"
    )
    try:
        for name in args.only or FIGURES:
            log(f"--- {name}")
            with figure_timer(results, name):
                try:
                    measured = importlib.import_module(MODULES.get(name, f"bench.{name}")).measure(ctx)
                    results.figures.update(measured)
                    results.sections[name]["keys"] = sorted(measured)
                except FigureSkipped as exc:
                    results.skipped[name] = str(exc)
                    log(f"{name} skipped: {exc}")
                except Exception as exc:  # noqa: BLE001 - one broken figure must not lose the others
                    results.errors[name] = f"{type(exc).__name__}: {exc}"[:300]
                    traceback.print_exc()
    finally:
        ctx.cleanup()
    report.write(results, merge=bool(args.only), readme=None if args.no_readme else report.README)
    log(
        f"wrote {report.RESULTS_JSON.relative_to(report.REPO_ROOT)} and {report.RESULTS_MD.name}"
        f"{'' if args.no_readme else ' and the README Performance section'} in "
        f"{sum(results.seconds.values()):.0f} s"
    )
    return 1 if results.errors else 0


if __name__ == "__main__":
    sys.exit(main())
