// One row of wgx_microbench's output, and the helpers every benchmark shares: seeded random
// inputs and the comparison with a CPU (float64) reference that gates every number.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure.h"
#include "wgx/context.h"

namespace wgx::bench {

struct Result {
    std::string group;    // "ceiling", "gemm", "conv", "sweep"
    std::string name;     // "mm 1024x1024x1024", "conv 3x3/1 64->64 56x56", ...
    std::string kernel;   // the dispatches' labels, or the variant for a sweep row
    double flops = 0;     // per call
    double bytes = 0;     // per call: each input read once, each output written once
    bool ok = false;      // matched its CPU reference (else no timing is reported)
    double error = 0;     // max |got - want| / max(1, max |want|) over the checked outputs
    std::string checked;  // what was compared ("all 3211264 outputs", "2048 sampled outputs")
    std::string failure;  // why it did not run (a kernel file that did not compile), else empty
    Timing timing;

    double gflops() const { return timing.ms > 0 ? flops / (timing.ms * 1e6) : 0; }
    double gbps() const { return timing.ms > 0 ? bytes / (timing.ms * 1e6) : 0; }
};

// The device's measured ceilings (0 when not measured).
struct Ceilings {
    double copy_gbps = 0;
    double fma_gflops = 0;
    double fma_f16_gflops = 0;
};

// Uniform values in [-1, 1) without zeros (zeros hide unwritten outputs), from a seed. Fast
// enough for the 16M-element operands of the largest GEMM.
std::vector<float> random_values(size_t n, uint64_t seed);

// Float16 cases: a tensor of `dtype` holding `values`. For float16 the values are rounded to
// float16 in place first, so the CPU reference sees exactly what the GPU reads.
Tensor upload(Context& ctx, DType dtype, const Shape& shape, std::vector<float>& values);
// A tensor of `dtype` filled with NaN (an unwritten output fails its check).
Tensor poisoned(Context& ctx, DType dtype, const Shape& shape);
// A float32 or float16 tensor's values as floats.
std::vector<float> download(const Tensor& t);
// " f16" for float16 rows, "" for float32.
const char* dtype_suffix(DType dtype);
// The reference tolerance of a float16 output (ErrorMeter's measure): its single rounding to
// float16 is at most 2^-11 of the largest output, float32 accumulation adds far less.
inline constexpr double kFloat16Tolerance = 1e-3;

// "gemm 128x128/k8/8x8, ..." from dispatch labels ("aten.mm.default/gemm 128x128/k8/8x8"): the
// op prefix is dropped because the pipeline cache keeps the label of the first op that compiled
// an identical kernel, which may be another op.
std::string kernel_names(const std::vector<std::string>& labels);

// Tracks the error measure of DESIGN.md §6 over compared outputs.
class ErrorMeter {
  public:
    void add(double got, double want);
    double error() const;  // max |got - want| / max(1, max |want|); inf after a NaN/Inf
    size_t count() const { return count_; }

  private:
    double max_abs_diff_ = 0, max_want_ = 0;
    bool non_finite_ = false;
    size_t count_ = 0;
};

// Compares every output with its float64 reference: sets r.error and r.checked ("all N
// outputs") and returns whether the error is within `tolerance`.
bool check_all(Result& r, const std::vector<float>& got, const std::vector<double>& want,
               double tolerance);

// Takes a measurement into `r` (ok, timing, the kernels' names) and appends it to `rows`.
void add_measured(std::vector<Result>& rows, Result r, const Measured& m);

}  // namespace wgx::bench
