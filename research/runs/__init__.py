"""Runs: the store, the runner and manager, the fold of events into views, replay, bundles."""
