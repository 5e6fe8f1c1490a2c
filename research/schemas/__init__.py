"""The data shapes the engine passes around, one module per concern: researchers and allocation,
URL normalisation, model output, graph state and the bundle format."""
