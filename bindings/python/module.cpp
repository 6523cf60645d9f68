// wgx._core: the engine's public API for Python (nanobind). The Python layer (wgx/__init__.py)
// builds the user-facing API on these few calls: a context (the device), a program loaded for
// one method and run on host arrays, and the file's methods. Arrays cross as C-contiguous
// ndarrays (numpy, or any DLPack producer on the CPU); outputs are new numpy arrays. The GPU
// work of a run happens with the GIL released. Engine errors become the Python exceptions that
// wgx/__init__.py names (LoadError, InvalidArgument, GpuError, DeviceLost), with the engine's
// message.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine.h"
#include "llm.h"
#include "wgx/wgx.h"
#ifdef WGX_PYTHON_CLI
#include "cli_main.h"
#endif

namespace nb = nanobind;

namespace {

using wgx::python::EngineContext;
using wgx::python::EngineProgram;
using Array = nb::ndarray<nb::c_contig, nb::device::cpu>;

// The engine's dtype of an array, or nullopt for a type it has no tensors of.
std::optional<wgx::DType> dtype_of(const nb::dlpack::dtype& t) {
    using nb::dlpack::dtype_code;
    const auto code = static_cast<dtype_code>(t.code);
    if (t.lanes != 1) return std::nullopt;
    if (code == dtype_code::Float && t.bits == 32) return wgx::DType::f32;
    if (code == dtype_code::Float && t.bits == 16) return wgx::DType::f16;
    if (code == dtype_code::Float && t.bits == 64) return wgx::DType::f64;
    if (code == dtype_code::Int && t.bits == 32) return wgx::DType::i32;
    if (code == dtype_code::Int && t.bits == 64) return wgx::DType::i64;
    if (code == dtype_code::Int && t.bits == 8) return wgx::DType::i8;
    if (code == dtype_code::UInt && t.bits == 8) return wgx::DType::u8;
    if (code == dtype_code::Bool && t.bits == 8) return wgx::DType::boolean;
    return std::nullopt;
}

nb::dlpack::dtype dlpack_of(wgx::DType t) {
    switch (t) {
        case wgx::DType::f32: return nb::dtype<float>();
        case wgx::DType::f16:
            return nb::dlpack::dtype{static_cast<uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
        case wgx::DType::f64: return nb::dtype<double>();
        case wgx::DType::i32: return nb::dtype<int32_t>();
        case wgx::DType::i64: return nb::dtype<int64_t>();
        case wgx::DType::i8: return nb::dtype<int8_t>();
        case wgx::DType::u8: return nb::dtype<uint8_t>();
        case wgx::DType::boolean: return nb::dtype<bool>();
    }
    return nb::dtype<float>();
}

// An output read back to the host (without the GIL), before it becomes a numpy array (with it).
struct HostCopy {
    std::unique_ptr<std::vector<std::byte>> bytes;
    std::vector<size_t> shape;
    wgx::DType dtype;
};

HostCopy read_back(const wgx::Tensor& t) {
    HostCopy c{std::make_unique<std::vector<std::byte>>(t.host_bytes()),
               std::vector<size_t>(t.shape().begin(), t.shape().end()), t.dtype()};
    t.get_bytes(*c.bytes);
    return c;
}

// A numpy array that takes over the copy's bytes.
nb::object to_numpy(HostCopy&& c) {
    std::vector<std::byte>* bytes = c.bytes.release();
    nb::capsule owner(bytes,
                      [](void* p) noexcept { delete static_cast<std::vector<std::byte>*>(p); });
    return nb::cast(nb::ndarray<nb::numpy>(bytes->data(), c.shape.size(), c.shape.data(), owner,
                                           nullptr, dlpack_of(c.dtype)));
}

nb::dict info_dict(const wgx::TensorInfo& info) {
    nb::dict d;
    d["name"] = info.name;
    d["dtype"] = std::string(wgx::dtype_name(info.dtype));
    d["shape"] = nb::tuple(nb::cast(std::vector<int64_t>(info.shape.begin(), info.shape.end())));
    d["dynamic"] = info.dynamic_bound;
    return d;
}

std::shared_ptr<EngineContext> make_context(const std::string& adapter, const std::string& backend,
                                            bool allow_cpu, std::optional<bool> shader_checks) {
    wgx::DeviceOptions options;
    options.adapter = adapter;
    options.backend = backend;
    options.allow_cpu = allow_cpu;
    if (shader_checks) options.shader_checks = *shader_checks;
    nb::gil_scoped_release unlocked;
    return std::make_shared<EngineContext>(wgx::Context::create(options));
}

std::unique_ptr<EngineProgram> load_program(std::shared_ptr<EngineContext> context,
                                            const std::string& path, const std::string& method,
                                            bool fuse, bool float16) {
    wgx::ProgramOptions options;
    options.method = method;
    options.fuse = fuse;
    options.float16 = float16;
    auto p = std::make_unique<EngineProgram>();
    p->context = std::move(context);
    nb::gil_scoped_release unlocked;
    wgx::Program program = wgx::Program::load(path, options);
    std::lock_guard<std::mutex> held(p->lock());  // the runner allocates and uploads on it
    p->runner = std::make_unique<wgx::Runner>(p->context->context, std::move(program));
    return p;
}

// The arrays as the runner takes them (views: the arrays outlive the call).
std::vector<wgx::HostTensor> host_inputs(const std::vector<Array>& arrays) {
    std::vector<wgx::HostTensor> inputs(arrays.size());
    for (size_t i = 0; i < arrays.size(); ++i) {
        const Array& a = arrays[i];
        const auto dtype = dtype_of(a.dtype());
        if (!dtype) {
            throw wgx::InvalidArgument(
                "input " + std::to_string(i) +
                ": the engine takes float32, float16, float64, int64, int32, int8, uint8 or bool "
                "arrays");
        }
        inputs[i].dtype = *dtype;
        for (size_t d = 0; d < a.ndim(); ++d) inputs[i].shape.push_back(int64_t(a.shape(d)));
        inputs[i].bytes =
            std::span<const std::byte>(static_cast<const std::byte*>(a.data()), a.nbytes());
    }
    return inputs;
}

nb::list run_program(EngineProgram& p, const std::vector<Array>& arrays) {
    const std::vector<wgx::HostTensor> inputs = host_inputs(arrays);
    // The outputs are read back under the lock (the next run reuses their buffers), and no
    // thread waits for the GIL while it holds the lock (see EngineProgram's destructor).
    std::vector<HostCopy> copies;
    {
        nb::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> held(p.lock());
        for (const wgx::Tensor& t : p.runner->run(inputs)) copies.push_back(read_back(t));
    }
    nb::list out;
    for (HostCopy& c : copies) out.append(to_numpy(std::move(c)));
    return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Wall times of `iters` runs after `warmup` untimed ones: "run" (the inputs written, the work
// submitted and waited for) and "end_to_end" (the same and the outputs read back to the host).
nb::dict bench_program(EngineProgram& p, const std::vector<Array>& arrays, int iters, int warmup) {
    if (iters < 1 || warmup < 0) {
        throw wgx::InvalidArgument("bench needs iters >= 1 and warmup >= 0, not " +
                                   std::to_string(iters) + " and " + std::to_string(warmup));
    }
    const std::vector<wgx::HostTensor> inputs = host_inputs(arrays);
    std::vector<double> run, end_to_end;
    {
        nb::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> held(p.lock());
        wgx::Context& ctx = p.runner->context();
        for (int i = 0; i < warmup; ++i) {
            p.runner->run(inputs);
            ctx.sync();
        }
        for (int i = 0; i < iters; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            p.runner->run(inputs);
            ctx.sync();
            run.push_back(ms_since(t0));
        }
        // Host buffers kept from run to run, as an application serving requests would.
        std::vector<std::vector<std::byte>> host;
        for (int i = 0; i < iters; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::vector<wgx::Tensor> outputs = p.runner->run(inputs);
            host.resize(outputs.size());
            for (size_t k = 0; k < outputs.size(); ++k) {
                host[k].resize(outputs[k].host_bytes());
                outputs[k].get_bytes(host[k]);
            }
            end_to_end.push_back(ms_since(t0));
        }
    }
    nb::dict out;
    out["run"] = nb::cast(run);
    out["end_to_end"] = nb::cast(end_to_end);
    return out;
}

// One run with GPU timestamps around every dispatch: (scope, kernel, ms) in recorded order.
nb::list profile_program(EngineProgram& p, const std::vector<Array>& arrays) {
    const std::vector<wgx::HostTensor> inputs = host_inputs(arrays);
    wgx::Profile profile;
    {
        nb::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> held(p.lock());
        if (!p.runner->context().device_info().features.timestamp_query) {
            throw wgx::InvalidArgument("profiling needs GPU timestamps; " +
                                       p.runner->context().device_info().adapter.name +
                                       " does not offer the timestamp-query feature");
        }
        profile = p.runner->profile(inputs);
    }
    nb::list out;
    for (const wgx::DispatchTime& d : profile.dispatches) {
        out.append(nb::make_tuple(d.scope, d.kernel, d.ms));
    }
    return out;
}

nb::list constant_methods(const std::string& path) {
    nb::list out;
    for (const wgx::ConstantMethod& m : wgx::Program::constant_methods(path)) {
        nb::list values;
        for (const auto& v : m.values) values.append(nb::cast(v));
        out.append(nb::make_tuple(m.name, values));
    }
    return out;
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "wgx's engine (use the wgx package, not this module)";
    // As the CLI does: Mesa's Vulkan drivers print an error for every Wayland probe when
    // XDG_RUNTIME_DIR is unset (headless machines); any existing directory silences them.
    setenv("XDG_RUNTIME_DIR", "/tmp", /*overwrite=*/0);
    auto base = nb::exception<wgx::Error>(m, "Error");
    nb::exception<wgx::InvalidArgument>(m, "InvalidArgument", base);
    nb::exception<wgx::LoadError>(m, "LoadError", base);
    auto gpu = nb::exception<wgx::GpuError>(m, "GpuError", base);
    nb::exception<wgx::DeviceLost>(m, "DeviceLost", gpu);

    m.def("version", [] { return std::string(wgx::version()); });
#ifdef WGX_PYTHON_CLI
    // `python -m wgx`: the command-line tool itself, printing to the process's stdout and
    // stderr (flushed before returning, so that Python's own output stays in order).
    m.def("cli_main", [](std::vector<std::string> args) {
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        nb::gil_scoped_release unlocked;
        const int status = wgx::cli::run_main(static_cast<int>(args.size()), argv.data());
        std::fflush(stdout);
        std::fflush(stderr);
        return status;
    });
#endif
    m.def("methods", [](const std::string& path) { return wgx::Program::methods(path); });
    m.def("constant_methods", &constant_methods);

    nb::class_<EngineContext>(m, "Context")
        .def_prop_ro("adapter",
                     [](const EngineContext& c) { return c.context.device_info().adapter.name; })
        .def_prop_ro("allocated_bytes",
                     [](const EngineContext& c) { return c.context.allocated_bytes(); });
    m.def("create_context", &make_context, nb::arg("adapter"), nb::arg("backend"),
          nb::arg("allow_cpu"), nb::arg("shader_checks").none());

    nb::class_<EngineProgram>(m, "Program")
        .def_prop_ro("inputs",
                     [](const EngineProgram& p) {
                         nb::list l;
                         for (const auto& i : p.runner->program().inputs()) l.append(info_dict(i));
                         return l;
                     })
        .def_prop_ro("outputs",
                     [](const EngineProgram& p) {
                         nb::list l;
                         for (const auto& o : p.runner->program().outputs()) l.append(info_dict(o));
                         return l;
                     })
        .def_prop_ro("has_state", [](const EngineProgram& p) { return p.runner->has_state(); })
        .def("run", &run_program)
        .def("bench", &bench_program)
        .def("profile", &profile_program)
        .def("reset_state", [](EngineProgram& p) {
            nb::gil_scoped_release unlocked;
            std::lock_guard<std::mutex> held(p.lock());
            p.runner->reset_state();
        });
    wgx::python::bind_llm(m);
    m.def("load_program", &load_program, nb::arg("context"), nb::arg("path"), nb::arg("method"),
          nb::arg("fuse"), nb::arg("float16"));
}
