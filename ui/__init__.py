"""The dashboard's shared helpers: session state, resources, input controls and one module per panel.

Only `research.api` is imported from the engine; nothing here is imported by the engine.
"""
