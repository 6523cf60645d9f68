// wgx_microbench's output: a table per group, or one JSON object (--json).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "result.h"
#include "wgx/device.h"

namespace wgx::bench {

void print_table(const DeviceInfo& device, const Ceilings& ceilings,
                 const std::vector<Result>& rows);
nlohmann::json to_json(const DeviceInfo& device, const Ceilings& ceilings,
                       const std::vector<Result>& rows);

}  // namespace wgx::bench
