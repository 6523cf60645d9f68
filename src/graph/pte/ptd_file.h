// A .ptd external data file (FlatTensor): the "FT01" flatbuffer with its "FH01" header at
// byte 8, read into a key -> bytes map. The spans point into `bytes`, which the caller keeps
// alive (a Graph adds it to its storage).
#pragma once

#include <string>

#include "graph/pte/named_data.h"
#include "graph/util/bytes.h"

namespace wgx::graph {

NamedDataMap read_ptd(const SharedBytes& bytes, const std::string& name);

}  // namespace wgx::graph
