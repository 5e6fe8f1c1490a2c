"""The research graph: its wiring, state, run context, allocation rules and the nodes."""
