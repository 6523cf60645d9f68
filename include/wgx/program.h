// A loaded program: an ExecuTorch .pte (VkGraph delegates and/or kernel calls) or a
// program.json + weights.bin. Loading reads, checks and plans; recording into a Context
// prepares every op (pipelines, bind groups, buffers) so that submitting only replays.
//
// A Program touches no GPU and never changes after load(): it may be shared, read-only, by any
// number of threads and contexts at the same time (record it into one Context per thread).
// Copies are cheap handles to the same loaded program; the file is not kept open.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "wgx/dtype.h"
#include "wgx/op.h"
#include "wgx/tensor.h"

namespace wgx {

namespace graph {
struct Graph;
}

struct TensorInfo {
    std::string name;  // may be empty
    DType dtype = DType::f32;
    Shape shape;  // the upper bound for dynamic-bound tensors
    bool dynamic_bound = false;
};

struct OpCount {
    std::string name;
    size_t count = 0;
};

// A method that computes nothing and returns constants: what an LLM export says about itself
// (get_max_seq_len, get_vocab_size, get_eos_ids, use_kv_cache, ...).
struct ConstantMethod {
    using Value = std::variant<int64_t, double, bool, std::string>;
    std::string name;
    std::vector<Value> values;  // its outputs in order (a list output spread into its items)
};

// "128", "true", "[128001, 128009]".
std::string constant_values_text(const std::vector<ConstantMethod::Value>& values);

struct ProgramOptions {
    std::string method = "forward";
    // Constants kept outside the .pte (a .ptd file), when it was exported that way.
    std::optional<std::filesystem::path> data_file;
    // Ops of your own that the program may call besides the built-in ones (not owned; they
    // must outlive the Program, and their record() may run on several threads at once when
    // the Program is shared).
    std::vector<const Op*> extra_ops;
    // Graph passes that merge ops into one kernel (a convolution with the add and activation
    // after it) and turn contiguous reshapes into views of their input's buffer. The outputs
    // are the same up to float rounding; off (every call as the file says) is for measuring.
    bool fuse = true;
    // Keep the program's float32 tensors in float16 on the GPU (half the bytes moved; kernels
    // still compute in float32), for adapters with shader-f16. Inputs and outputs stay float32;
    // ops without a float16 kernel run on float32 copies. Results differ from float32 by
    // float16 rounding (about 1e-3 relative per value): docs/PERFORMANCE.md#float16-storage
    // has the measured differences.
    bool float16 = false;
};

class Program {
  public:
    // Reads and checks the file. Throws LoadError naming the file and the problem, including
    // the full list of ops the engine lacks, with their counts.
    static Program load(const std::filesystem::path& path, const ProgramOptions& options = {});
    // Method names a .pte offers ("forward", ...).
    static std::vector<std::string> methods(const std::filesystem::path& path);
    // The methods of a .pte that only return constants, in file order (none for program.json).
    static std::vector<ConstantMethod> constant_methods(const std::filesystem::path& path);
    // From an already-built graph (tests, converters).
    static Program from_graph(graph::Graph graph, const ProgramOptions& options = {});

    const std::vector<TensorInfo>& inputs() const;
    const std::vector<TensorInfo>& outputs() const;
    std::vector<OpCount> op_counts() const;
    const std::string& origin() const;

    // The op implementing a graph op name (built-in or extra), or nullptr.
    const Op* find_op(std::string_view name) const;
    // Whether it was loaded with ProgramOptions::float16 (the device needs shader-f16).
    bool float16() const;

    // Internal: the checked, memory-planned graph.
    const graph::Graph& graph() const;

  private:
    struct State;
    std::shared_ptr<const State> state_;
};

}  // namespace wgx
