// A family of built-in ops made from a table, one op per row (WGX_OP_TABLE in op_list.def): the
// family file holds the rows and one class that records any of them, so adding an op of the
// family is one line.
#pragma once

#include <span>
#include <vector>

#include "wgx/op.h"

namespace wgx::ops {

// One `OpType` made from each row, and the list of them for the registry. Held in a
// function-local static by the family's `<family>_ops()`.
template <typename OpType>
class OpTable {
  public:
    template <typename Row, size_t N>
    explicit OpTable(const Row (&rows)[N]) {
        ops_.reserve(N);  // no reallocation after the pointers are taken
        for (const Row& row : rows) ops_.emplace_back(row);
        for (const OpType& op : ops_) pointers_.push_back(&op);
    }
    OpTable(const OpTable&) = delete;
    OpTable& operator=(const OpTable&) = delete;

    std::span<const Op* const> ops() const { return pointers_; }

  private:
    std::vector<OpType> ops_;
    std::vector<const Op*> pointers_;
};

}  // namespace wgx::ops
