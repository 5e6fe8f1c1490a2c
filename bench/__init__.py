"""Benchmarks for Research Desk (not tests): `python -m bench` or `make bench` / `make bench-quick`.

One module per figure (critical_path, fanout, cost, offline_speed, library_scale, dashboard,
memory), each with a `measure(ctx) -> dict` that returns its part of `bench/results.json`;
`harness` holds the shared timing helpers and machine facts, `loopback` the fake model and search
services with fixed latencies, and `report` writes the results file, a markdown table and the
README's Performance section. Figures are ratios and sizes measured on this machine; nothing here
asserts a timing.
"""
