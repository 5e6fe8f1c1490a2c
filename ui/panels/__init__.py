"""One module per live panel. Each exposes `render(view, ...)` and draws into the current container."""
