#include "ops/common/dim_order.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace wgx::ops {

void expect_contiguous_dim_order(const Args& args, size_t i, int rank) {
    if (args.is_none(i)) return;
    std::vector<int64_t> order = args.int_list(i, "dim_order");
    if (order.empty()) return;
    bool identity = static_cast<int>(order.size()) == rank;
    for (size_t d = 0; identity && d < order.size(); ++d) identity = order[d] == int64_t(d);
    if (!identity) {
        args.fail(
            fmt::format("dim_order [{}] is not the contiguous order for rank {}; only "
                        "contiguous tensors are supported.",
                        fmt::join(order, ", "), rank));
    }
}

}  // namespace wgx::ops
