"""The offline brain: heuristics that plan, write, revise and pick tools with no model and no network."""
