// Runs an exported program on the GPU and checks it against the expected outputs stored beside
// it: consumer <fixture dir> [model file name, default vulkan.pte].
// The fixture directory holds the model, input_<i>.npy and expected_<i>.npy (float32).
#include <wgx/wgx.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

// Reads a little-endian float32, C-order .npy file (the only kind this example needs).
std::vector<float> read_npy_f32(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
        throw std::runtime_error(path.string() + " is not a .npy file");
    }
    size_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
    size_t data_at = 10 + header_len;
    if (bytes[6] >= 2) {  // version 2 and 3: four length bytes
        header_len = 0;
        for (int i = 0; i < 4; ++i)
            header_len |= size_t(static_cast<uint8_t>(bytes[8 + i])) << 8 * i;
        data_at = 12 + header_len;
    }
    std::string header(bytes.data(), std::min(bytes.size(), data_at));
    if (header.find("'<f4'") == std::string::npos || header.find("True") != std::string::npos) {
        throw std::runtime_error(path.string() + " is not a C-order float32 array");
    }
    std::vector<float> values((bytes.size() - data_at) / sizeof(float));
    std::memcpy(values.data(), bytes.data() + data_at, values.size() * sizeof(float));
    return values;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FIXTURE_DIR [MODEL]\n", argv[0]);
        return 2;
    }
    fs::path dir = argv[1];
    fs::path model = dir / (argc > 2 ? argv[2] : "vulkan.pte");
    try {
        std::printf("wgx %s (%s)\n", std::string(wgx::version()).c_str(),
                    wgx::webgpu_implementation().c_str());

        // A Program is the checked, planned model: read-only, usable by any number of contexts.
        wgx::Program program = wgx::Program::load(model);
        // A Context owns one GPU device and everything made on it; use it from one thread.
        wgx::Context ctx = wgx::Context::create();
        std::printf("device: %s (%s)\n", ctx.device_info().adapter.name.c_str(),
                    ctx.device_info().adapter.backend.c_str());

        // The program's inputs then its outputs, as tensors of this context.
        std::vector<wgx::Tensor> io;
        for (size_t i = 0; i < program.inputs().size(); ++i) {
            const wgx::TensorInfo& in = program.inputs()[i];
            io.push_back(
                ctx.tensor(in.dtype, in.shape)
                    .set_data(read_npy_f32(dir / ("input_" + std::to_string(i) + ".npy"))));
        }
        for (const wgx::TensorInfo& out : program.outputs()) {
            io.push_back(ctx.tensor(out.dtype, out.shape));
        }

        ctx.record(program, io);  // prepares every op once
        ctx.submit();             // runs it; submit() again to run again
        ctx.sync();

        bool ok = true;
        for (size_t o = 0; o < program.outputs().size(); ++o) {
            std::vector<float> got = io[program.inputs().size() + o].get_data<float>();
            std::vector<float> want =
                read_npy_f32(dir / ("expected_" + std::to_string(o) + ".npy"));
            double scale = 1e-30, err = got.size() == want.size() ? 0.0 : INFINITY;
            for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
                scale = std::max(scale, double(std::abs(want[i])));
                err = std::max(err, double(std::abs(got[i] - want[i])));
            }
            bool close = err <= 1e-4 * scale;
            ok = ok && close;
            std::printf("output %zu: %s %zu values, first %g, max |error| %.3g of max %.3g: %s\n",
                        o, wgx::shape_string(program.outputs()[o].shape).c_str(), got.size(),
                        got.empty() ? 0.0 : got[0], err, scale, close ? "ok" : "MISMATCH");
        }
        ctx.destroy();  // frees the GPU memory now (dropping the last handle does it too)
        return ok ? 0 : 1;
    } catch (const wgx::Error& e) {  // every engine failure: see wgx/error.h
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
