# Research Desk. `make run` and `make test` set up everything they need on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test test-fast bench bench-quick fuzz install install-dev browser clean

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

## Start the dashboard (offline by default: no key, no network needed).
run: install
	$(PY) -m streamlit run streamlit_app.py --server.address $(HOST) --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false

## Debian packages the tests use: Chromium (browser tests) and DejaVu fonts (Unicode PDF export).
## Installed only when missing (root needed); outside CI a missing browser skips the browser tests.
browser:
	@missing=""; \
	[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$$missing fonts-dejavu-core"; \
	if [ -n "$$missing" ]; then \
		{ command -v apt-get >/dev/null && apt-get update -q && apt-get install -y -q $$missing; } \
		|| echo "Could not install:$$missing (browser tests skip outside CI; PDFs fall back to core fonts)."; \
	fi

## Run every test (unit, graph, UI, browser), all offline.
test: install-dev browser
	$(PY) -m pytest -q

## Everything but the browser tests.
test-fast: install-dev
	$(PY) -m pytest -q -m "not browser"

## Generated hostile bundles, documents and queries against the importers, many more than the
## suite's bounded run (tests/security/test_fuzz.py: 1,500 examples per property, ~2 minutes on 2 cores).
fuzz: install-dev
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q -p no:cacheprovider tests/security/test_fuzz.py

bench: install-dev browser
	$(PY) -m bench

bench-quick: install-dev
	$(PY) -m bench --quick

clean:
	rm -rf $(VENV) .pytest_cache test-artifacts
