"""What the fuzz tests share: the hypothesis profiles ("suite", bounded for the test run; "fuzz",
for `make fuzz`, chosen by HYPOTHESIS_PROFILE) and a real offline run's bundle to mutate."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

from research.runs.bundle import export_bundle
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from tests.settings_presets import library_settings

settings.register_profile("suite", max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
settings.register_profile("fuzz", max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


def offline_bundle_document(root: Path, allocation: str) -> dict[str, Any]:
    """The decoded bundle of an offline library run on mRNA vaccines, made under `root`."""
    runner = ResearchRunner(library_settings(root / "data", root / "logs", llm="offline"))
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation=allocation))
    document: dict[str, Any] = json.loads(gzip.decompress(export_bundle(runner.store, run_id)))
    return document
