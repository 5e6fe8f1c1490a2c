"""The project's own state types, allowed through the checkpoint serializer's msgpack gate,
wherever the graph is compiled (the in-process runner's saver, the server's graph)."""

STATE_TYPES = [
    ("research.schemas", name)
    for name in (
        "Source",
        "ResearcherTask",
        "ResearcherReport",
        "Critique",
        "QuestionCoverage",
        "ResolvedAllocation",
        "ResearcherAllocation",
        "RunWarning",
        "Draft",
        "AnalystVerdict",
        "CheckedClaim",
    )
] + [("research.source_quality", name) for name in ("SourceFacts", "Reliability", "ReliabilityFactor")]
