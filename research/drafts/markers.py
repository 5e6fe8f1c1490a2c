"""The one citation-marker pattern of the project: `[3]`, but not a markdown link `[3](...)`.

Every module that reads, removes or renumbers markers uses these, so the writer, the guard,
revisions and the claim check agree on what a citation is.
"""

from __future__ import annotations

import re

CITATION_MARKER = re.compile(r"\[(\d{1,3})\](?!\()")
# [1, 3] or [2-4]: several sources in one bracket, split into single markers before checking.
GROUPED_MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,;–-]\s*\d{1,3})+)\](?!\()")
