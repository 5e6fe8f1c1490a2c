"""The pieces behind research.export.run_export: a small markdown reader and one writer per file format."""
