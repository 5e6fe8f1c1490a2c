"""The command line: `python -m research ...`."""
