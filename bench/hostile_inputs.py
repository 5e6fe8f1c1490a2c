"""Figure: memory while importing hostile inputs. Each case runs in its own process and
reports its peak RSS (VmHWM) and, for documents, the extraction child's peak (RUSAGE_CHILDREN):

- bundle_bomb: 60 million empty objects in ~175 KB of gzip (json.loads took > 3.5 GB);
- bundle_at_value_cap: just under the decoder's value cap (parsed, then refused by validation);
- bundle_big_texts: ~190 MB of page text, the largest bundle the byte cap lets through;
- pdf_bomb: 20 pages inflating to 60 MB each (ran past 300 s at 2 GB in-process);
- docx_bomb: a 1 MB docx whose document.xml inflates to 1 GiB (reached 2.1 GB);
- html_bomb: 10 M `<p>a` (40 MB; reached 3.0 GB in the dashboard's process);
- html_nested: 200,000 nested `<div>` (245 MB / 18 s in-process before).

And the time figures: seconds per MB of each text parser (the Markdown import, the sanitiser, the
export's block reader, the HTML import) on its worst input of tests/security/test_linear_time.py.

Stated bound: every case under 1,100 MB in the importing process (the documents' child is capped
at 1,024 MB of address space by RLIMIT_AS).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness import BenchContext, log

BOUND_MB = 1100

_CASE = r"""
import json, resource, sys, time
case, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
started = time.monotonic()
outcome = "accepted"
if case.startswith("bundle"):
    from research.runs.bundle import BundleError, read_bundle
    try:
        read_bundle(data)
    except BundleError as exc:
        outcome = "refused: " + str(exc)[:90]
else:
    from research.sources.library.readers import UnreadableFile, parse_file
    suffix = {"pdf_bomb": ".pdf", "docx_bomb": ".docx"}.get(case, ".html")
    try:
        parse_file("bomb" + suffix, data, kind="web", url="library://x")
    except UnreadableFile as exc:
        outcome = "refused: " + str(exc)[:90]
seconds = time.monotonic() - started
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"file_bytes": len(data), "seconds": round(seconds, 2), "peak_rss_mb": hwm // 1024,
                  "child_peak_rss_mb": child // 1024, "outcome": outcome}))
"""


def build(case: str) -> bytes:
    """The hostile file (built here, so its construction is not in the importer's peak)."""
    import gzip

    from research.runs.bundle_decode import MAX_VALUES
    from tests.security.bombs import docx_bomb, pdf_bomb

    if case == "bundle_bomb":
        return gzip.compress(b'{"format":"research-desk-run","junk":[' + b"{}," * 60_000_000 + b"{}]}", 9)
    if case == "bundle_at_value_cap":
        return gzip.compress(
            b'{"format":"research-desk-run","version":1,"junk":[' + b"{}," * (MAX_VALUES - 10) + b"{}]}", 6
        )
    if case == "bundle_big_texts":
        text = "lipid nanoparticles " * (19 * 1024 * 1024 // 20)
        doc = {
            "format": "research-desk-run",
            "version": 1,
            "exported_at": 0.0,
            "run": {"run_id": "big", "topic": "t", "status": "finished", "created_at": 0.0},
            "events": [],
            "drafts": [],
            "source_texts": {f"s{i}": text for i in range(10)},
        }
        return gzip.compress(json.dumps(doc).encode(), 1)
    if case == "html_bomb":
        return b"<p>a" * 10_000_000
    if case == "html_nested":
        return b"<div>" * 200_000 + b"deep text" + b"</div>" * 200_000
    return pdf_bomb(20, 60) if case == "pdf_bomb" else docx_bomb(1024)


CASES = ("bundle_bomb", "bundle_at_value_cap", "bundle_big_texts", "pdf_bomb", "docx_bomb", "html_bomb", "html_nested")

_TIMES = r"""
import json, sys, time
from research.drafts.inert import inert_markdown
from research.export import markdown_blocks as md
from research.sources.library import text_readers
from tests.security.test_linear_time import HTML, MARKDOWN

size = int(sys.argv[1])


def blocks(text):
    for block in md.parse_blocks(text):
        for inline in getattr(block, "items", None) or [getattr(block, "text", "")]:
            md.parse_inline(inline)


parsers = {
    "markdown_import": (text_readers.markdown_body, MARKDOWN),
    "sanitiser": (inert_markdown, MARKDOWN),
    "export_blocks": (blocks, MARKDOWN),
    "html_import": (lambda text: text_readers.html_page(text.encode()), HTML),
}
out = {}
for name, (fn, forms) in parsers.items():
    worst = (0.0, "")
    for form, make in forms.items():
        text = make(max(1, size // max(1, len(make(64)) // 64)))
        started = time.perf_counter()
        fn(text)
        per_mb = (time.perf_counter() - started) / (len(text) / 1e6)
        worst = max(worst, (per_mb, form))
    out[name] = {"worst_seconds_per_mb": round(worst[0], 2), "worst_input": worst[1]}
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
out["peak_rss_mb"] = hwm // 1024
print(json.dumps(out))
"""


def time_figures(size: int) -> dict[str, Any]:
    """Seconds per MB of each text parser on its worst input (one process, its peak RSS too)."""
    out = subprocess.run([sys.executable, "-c", _TIMES, str(size)], capture_output=True, text=True, timeout=1200)
    if out.returncode != 0:
        raise RuntimeError(f"time figures: {out.stderr[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_case(case: str, scratch: Path) -> dict[str, Any]:
    path = scratch / f"{case}.bin"
    path.write_bytes(build(case))
    out = subprocess.run([sys.executable, "-c", _CASE, case, str(path)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{case}: {out.stderr[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(ctx: BenchContext) -> dict[str, Any]:
    details = {}
    scratch = ctx.scratch("hostile_inputs")
    for case in CASES if not ctx.quick else ("bundle_bomb", "pdf_bomb", "docx_bomb", "html_bomb"):
        started = time.monotonic()
        details[case] = run_case(case, scratch)
        log(f"{case}: {details[case]} ({time.monotonic() - started:.1f} s)")
    started = time.monotonic()
    times = time_figures(250_000 if ctx.quick else 1_000_000)
    log(f"parser times: {times} ({time.monotonic() - started:.1f} s)")
    worst = max([times["peak_rss_mb"], *(d["peak_rss_mb"] for d in details.values())])
    return {
        "hostile_inputs": {"worst_peak_rss_mb": worst, "bound_mb": BOUND_MB, "within_bound": worst < BOUND_MB},
        "hostile_inputs_details": details,
        "hostile_inputs_parser_times": times,
    }


if __name__ == "__main__":
    print(json.dumps(measure(BenchContext(quick="--quick" in sys.argv)), indent=2))
