#!/usr/bin/env bash
# Builds llama.cpp's JSON-Schema-to-grammar converter (the one Ollama's `format` goes through)
# from the llama-cpp-python sdist on PyPI, with tests/engines/llama_cpp.cpp as its main.
# Usage: build_llama_cpp.sh PYTHON OUT_DIR; prints the converter's path.
set -euo pipefail
python=$1
out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
"$python" -m pip download --quiet --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d "$out" >&2
tar -xzf "$out"/llama_cpp_python-0.3.36.tar.gz -C "$out" \
  llama_cpp_python-0.3.36/vendor/llama.cpp/common \
  llama_cpp_python-0.3.36/vendor/llama.cpp/include \
  llama_cpp_python-0.3.36/vendor/llama.cpp/ggml/include \
  llama_cpp_python-0.3.36/vendor/llama.cpp/vendor/nlohmann
src="$out/llama_cpp_python-0.3.36/vendor/llama.cpp"
g++ -std=c++17 -O1 -I"$src/common" -I"$src/include" -I"$src/ggml/include" -I"$src/vendor" \
  "$here/llama_cpp.cpp" "$src"/common/{json-schema-to-grammar,json-schema,json,trie,unicode}.cpp \
  -o "$out/json-schema-to-grammar" >&2
echo "$out/json-schema-to-grammar"
