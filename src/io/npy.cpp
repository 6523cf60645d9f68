#include "io/npy.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <regex>

#include "wgx/error.h"

namespace wgx::io {
namespace {

struct Descr {
    const char* code;
    DType dtype;
};
// '<' little-endian, '|' not applicable (one byte); '=' native (little-endian here).
constexpr Descr kDescrs[] = {
    {"f4", DType::f32}, {"f8", DType::f64}, {"f2", DType::f16}, {"i4", DType::i32},
    {"i8", DType::i64}, {"i1", DType::i8},  {"u1", DType::u8},  {"b1", DType::boolean},
};

const char* code_of(DType dtype) {
    for (const auto& d : kDescrs) {
        if (d.dtype == dtype) return d.code;
    }
    return "f4";
}

}  // namespace

NpyArray parse_npy(std::span<const std::byte> bytes, const std::string& name) {
    auto fail = [&](const std::string& what) -> NpyArray {
        throw InvalidArgument(fmt::format("{}: not a readable .npy file: {}", name, what));
    };
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
        return fail("the magic \\x93NUMPY is missing");
    }
    auto byte = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
    uint8_t major = byte(6);
    size_t header_len, header_start;
    if (major == 1) {
        header_len = byte(8) | (byte(9) << 8);
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) return fail("the header is truncated");
        header_len = byte(8) | (byte(9) << 8) | (byte(10) << 16) | (size_t(byte(11)) << 24);
        header_start = 12;
    } else {
        return fail(fmt::format("format version {} is not supported", major));
    }
    if (header_start + header_len > bytes.size()) return fail("the header is truncated");
    std::string header(reinterpret_cast<const char*>(bytes.data()) + header_start, header_len);

    std::smatch m;
    if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([<>|=])([a-z]\d+)')"))) {
        return fail("no 'descr' in the header");
    }
    if (m[1] == ">") return fail("big-endian data is not supported");
    NpyArray out;
    bool known = false;
    for (const auto& d : kDescrs) {
        if (m[2] == d.code) {
            out.dtype = d.dtype;
            known = true;
        }
    }
    if (!known) return fail(fmt::format("dtype '{}' is not supported", m[2].str()));
    const bool fortran = std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*True)"));
    if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) {
        return fail("no 'shape' in the header");
    }
    std::string dims = m[1];
    std::regex number(R"(\d+)");
    for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number);
         it != std::sregex_iterator(); ++it) {
        const std::string text = it->str();
        if (text.size() > 12) return fail("a dimension is absurdly large");
        out.shape.push_back(std::stoll(text));
    }
    uint64_t numel = 1;
    for (int64_t d : out.shape) {
        if (d != 0 && numel > std::numeric_limits<uint64_t>::max() / 16 / uint64_t(d)) {
            return fail("the element count overflows");
        }
        numel *= uint64_t(d);
    }
    uint64_t need = numel * host_size(out.dtype);
    size_t data_start = header_start + header_len;
    if (bytes.size() - data_start < need) {
        return fail(
            fmt::format("{} data bytes expected, {} present", need, bytes.size() - data_start));
    }
    out.data.assign(bytes.begin() + data_start, bytes.begin() + data_start + need);
    if (fortran && out.shape.size() > 1) {
        // Column-major data (NumPy writes a transposed view so): reorder into row-major.
        const size_t elem = host_size(out.dtype), rank = out.shape.size();
        std::vector<std::byte> c_order(out.data.size());
        std::vector<int64_t> index(rank, 0);
        for (uint64_t f = 0; f < numel; ++f) {
            uint64_t c = 0;  // row-major offset of the element at `index`
            for (size_t d = 0; d < rank; ++d) c = c * uint64_t(out.shape[d]) + uint64_t(index[d]);
            std::memcpy(c_order.data() + c * elem, out.data.data() + f * elem, elem);
            for (size_t d = 0; d < rank && ++index[d] == out.shape[d]; ++d) index[d] = 0;
        }
        out.data = std::move(c_order);
    }
    return out;
}

NpyArray read_npy(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InvalidArgument(fmt::format("{}: cannot open the file.", path.string()));
    std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_npy(std::as_bytes(std::span<const char>(raw)), path.string());
}

std::vector<std::byte> format_npy(const NpyArray& array) {
    std::string shape;
    for (int64_t d : array.shape) shape += fmt::format("{}, ", d);
    if (array.shape.size() > 1) shape.resize(shape.size() - 2);
    const char* order =
        array.dtype == DType::u8 || array.dtype == DType::i8 || array.dtype == DType::boolean ? "|"
                                                                                              : "<";
    std::string header = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': ({}), }}",
                                     order, code_of(array.dtype), shape);
    // Pad with spaces so the data starts on a 64-byte boundary, ending in a newline.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::vector<std::byte> out(10 + header.size() + array.data.size());
    std::memcpy(out.data(), "\x93NUMPY\x01\x00", 8);
    out[8] = std::byte(header.size() & 0xff);
    out[9] = std::byte(header.size() >> 8);
    std::memcpy(out.data() + 10, header.data(), header.size());
    std::memcpy(out.data() + 10 + header.size(), array.data.data(), array.data.size());
    return out;
}

void write_npy(const std::filesystem::path& path, const NpyArray& array) {
    std::vector<std::byte> bytes = format_npy(array);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error(fmt::format("{}: writing failed.", path.string()));
}

}  // namespace wgx::io
