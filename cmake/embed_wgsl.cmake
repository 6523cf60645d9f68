# Turns one .wgsl file into a C++ header holding its text as a std::string_view, so shaders are
# edited as .wgsl files and embedded at build time (the generated header is never committed).
# Usage: cmake -DINPUT=<file.wgsl> -DOUTPUT=<file.wgsl.h> -DSYMBOL=<identifier> -P embed_wgsl.cmake
file(READ "${INPUT}" text)
string(FIND "${text}" ")wgsl\"" clash)
if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )wgsl\"")
endif()
file(WRITE "${OUTPUT}.tmp"
    "// Generated from ${INPUT}; edit the .wgsl file instead.\n"
    "#pragma once\n#include <string_view>\n"
    "namespace wgx::wgsl {\n"
    "inline constexpr std::string_view ${SYMBOL} = R\"wgsl(${text})wgsl\";\n"
    "}  // namespace wgx::wgsl\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
