"""Is a source about the run's subject, and how well does it answer a question."""
