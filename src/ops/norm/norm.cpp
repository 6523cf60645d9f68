#include "ops/norm/norm.h"

#include <fmt/format.h>

#include "ops/common/float16_support.h"
#include "ops/common/workgroup_reduce.h"
#include "ops/norm/norm_rows.wgsl.h"

namespace wgx::ops {

void record_norm_rows(Recorder& rec, std::string_view label, const Tensor& x,
                      const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                      const Tensor& out, const std::optional<Tensor>& mean,
                      const std::optional<Tensor>& rstd, const NormRowsParams& p) {
    // Absent statistics go to scratch buffers; absent weight/bias bind x (never read).
    Tensor mean_t = mean ? *mean : rec.scratch(x.dtype(), {p.rows});
    Tensor rstd_t = rstd ? *rstd : rec.scratch(x.dtype(), {p.rows});
    uint32_t preferred = 64;
    while (preferred < 256 && preferred < p.row_len) preferred *= 2;
    uint32_t wg = rec.workgroup_size(preferred);
    bool subgroups = use_subgroups(rec);
    Kernel k = rec.kernel(
        fmt::format("{}/rows{}", label, subgroups ? "_subgroups" : ""),
        workgroup_reduce_prelude(storage_dtype(x.dtype()), subgroups) +
            std::string(wgsl::ops_norm_norm_rows),
        {{"WG", double(wg)}, {"HAS_WEIGHT", weight ? 1.0 : 0.0}, {"HAS_BIAS", bias ? 1.0 : 0.0}});
    rec.dispatch(
        k, {x, weight ? *weight : x, bias ? *bias : x, out, mean_t, rstd_t, Binding::uniform(p)},
        rec.grid_1d(p.rows, 1));
}

std::vector<std::optional<Tensor>> output_list(const Args& args, size_t first, size_t count) {
    std::vector<std::optional<Tensor>> outs;
    if (args.size() == first + 1 && !args.is_none(first) &&
        std::holds_alternative<Arg::TensorList>(args[first].value())) {
        outs = args.tensor_list(first, "out");
    } else {
        args.expect_count(first + count, first + count);
        for (size_t i = 0; i < count; ++i) outs.push_back(args.optional_tensor(first + i, "out"));
    }
    if (outs.size() != count) {
        args.fail(fmt::format("expects {} outputs, got a list of {}.", count, outs.size()));
    }
    if (!outs[0]) args.fail("the first output (out) is absent.");
    return outs;
}

void expect_float(const Recorder& rec, const Args& args, const Tensor& t, std::string_view name) {
    const std::string n(name);
    one_float_type(rec, args, {{&t, n.c_str()}});
}

}  // namespace wgx::ops
