// Runs llama.cpp's JSON-Schema-to-grammar converter (the one Ollama's `format` goes through):
// a JSON Schema on stdin, the GBNF grammar on stdout; a refused schema: its error on stderr, exit 1.
// Built by tests/engines/build_llama_cpp.sh against the llama-cpp-python sdist (PyPI); nothing
// of llama.cpp is kept in this repository.
#include "json-schema-to-grammar.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

// The four helpers the converter takes from the rest of llama.cpp (common.cpp, ggml.c), which
// would pull in the whole library.
std::string string_join(const std::vector<std::string> & values, const std::string & separator) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) {
        out += (i ? separator : "") + values[i];
    }
    return out;
}

std::vector<std::string> string_split(const std::string & str, const std::string & delimiter) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t end; (end = str.find(delimiter, start)) != std::string::npos; start = end + delimiter.size()) {
        parts.push_back(str.substr(start, end - start));
    }
    parts.push_back(str.substr(start));
    return parts;
}

std::string string_repeat(const std::string & str, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) {
        out += str;
    }
    return out;
}

extern "C" void ggml_abort(const char * file, int line, const char * fmt, ...) {
    va_list args;
    va_start(args, fmt);
    std::fprintf(stderr, "%s:%d: ", file, line);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::exit(1);
}

int main() {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    try {
        std::cout << json_schema_to_grammar(common_json::parse(text));
    } catch (const std::exception & e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
