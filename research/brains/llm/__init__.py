"""The LLM brain and its plumbing: calls, streaming, retries, structured output, grounded writing, metering."""
