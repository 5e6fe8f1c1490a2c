"""The local library: the document store, its FTS index and the importers."""
