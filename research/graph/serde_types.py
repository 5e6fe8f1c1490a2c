"""The project's own state types, allowed through the checkpoint serializer's msgpack gate,
wherever the graph is compiled (the in-process runner's saver, the server's graph)."""

STATE_TYPES = [
    ("research.schemas.state_shapes", "Source"),
    ("research.schemas.state_shapes", "ResearcherTask"),
    ("research.schemas.state_shapes", "ResearcherReport"),
    ("research.schemas.state_shapes", "Critique"),
    ("research.schemas.llm_shapes", "QuestionCoverage"),
    ("research.schemas.researchers", "ResolvedAllocation"),
    ("research.schemas.researchers", "ResearcherAllocation"),
    ("research.schemas.state_shapes", "RunWarning"),
    ("research.schemas.state_shapes", "Draft"),
    ("research.schemas.llm_shapes", "AnalystVerdict"),
    ("research.schemas.state_shapes", "CheckedClaim"),
    ("research.schemas.source_quality", "SourceFacts"),
    ("research.schemas.source_quality", "Reliability"),
    ("research.schemas.source_quality", "ReliabilityFactor"),
]
