"""What the benchmarks found and what was changed because of it, with the before/after figures
measured on the day (written into results.json under "changes"; see bench/README in the report).

Figures are from bench/critical_path.py and bench/fanout.py (full mode, medians of 3) run back to
back with and without the three engine changes, plus micro-measurements of each cause.
"""

from __future__ import annotations

CHANGES: list[dict] = []  # filled in below, one dict per change
