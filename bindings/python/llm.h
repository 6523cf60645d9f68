// The LLM pieces of wgx._core (llm.cpp).
#pragma once

#include <nanobind/nanobind.h>

namespace wgx::python {

void bind_llm(nanobind::module_& m);

}  // namespace wgx::python
