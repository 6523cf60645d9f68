# wgx_embed_shaders(TARGET <target> ROOT <dir> FILES <a.wgsl> ...)
# For src/ops/elementwise/binary.wgsl the header is <build>/wgsl/ops/elementwise/binary.wgsl.h
# and the symbol wgx::wgsl::ops_elementwise_binary.
function(wgx_embed_shaders)
    cmake_parse_arguments(ARG "" "TARGET;ROOT" "FILES" ${ARGN})
    set(out_root "${CMAKE_BINARY_DIR}/wgsl")
    set(headers "")
    foreach(wgsl IN LISTS ARG_FILES)
        file(RELATIVE_PATH rel "${ARG_ROOT}" "${wgsl}")
        string(REGEX REPLACE "\\.wgsl$" "" stem "${rel}")
        string(MAKE_C_IDENTIFIER "${stem}" symbol)
        set(header "${out_root}/${rel}.h")
        add_custom_command(
            OUTPUT "${header}"
            COMMAND ${CMAKE_COMMAND} -DINPUT=${wgsl} -DOUTPUT=${header} -DSYMBOL=${symbol}
                    -P "${PROJECT_SOURCE_DIR}/cmake/embed_wgsl.cmake"
            DEPENDS "${wgsl}" "${PROJECT_SOURCE_DIR}/cmake/embed_wgsl.cmake"
            COMMENT "Embedding ${rel}"
            VERBATIM)
        list(APPEND headers "${header}")
    endforeach()
    add_custom_target(${ARG_TARGET}_wgsl DEPENDS ${headers})
    add_dependencies(${ARG_TARGET} ${ARG_TARGET}_wgsl)
    target_include_directories(${ARG_TARGET} PRIVATE "${out_root}")
endfunction()
