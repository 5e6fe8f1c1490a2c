"""The pieces behind research.export: a small markdown reader and one writer per file format."""
