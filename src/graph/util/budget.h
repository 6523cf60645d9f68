// A cap on what a reader materialises. FlatBuffers lets many tables point at one shared list,
// so a small file can describe a huge graph (a million values sharing one million-item
// list). Readers charge every list item, dim and string byte they copy to a Budget sized from
// the input, and fail cleanly when a file asks for far more than it could honestly hold.
#pragma once

#include <cstdint>
#include <string>

#include "graph/util/text.h"

namespace wgx::graph {

class Budget {
  public:
    // Honest files copy each stored item once; allow generous slack on top of that.
    Budget(std::string file, uint64_t input_bytes)
        : file_(std::move(file)), left_(input_bytes * 4 + (uint64_t{1} << 20)) {}

    void charge(uint64_t units, const char* what) {
        if (units > left_) {
            fail(file_, cat("the file describes more data than it holds (", what,
                            " would exceed the reader's budget derived from the file size)"));
        }
        left_ -= units;
    }

  private:
    std::string file_;
    uint64_t left_;
};

}  // namespace wgx::graph
