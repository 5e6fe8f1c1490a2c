"""Drafts: [n] citation markers, the numbered Sources list, and guards on model-written text."""
