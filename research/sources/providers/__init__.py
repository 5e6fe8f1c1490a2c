"""One module per external service (and the page scraper with its URL guard)."""
