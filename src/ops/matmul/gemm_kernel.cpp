#include "ops/matmul/gemm_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/common/math.wgsl.h"
#include "ops/common/wgsl_types.h"
#include "ops/matmul/gemm.wgsl.h"
#include "ops/matmul/gemm_implicit_conv.wgsl.h"
#include "ops/matmul/gemm_params.wgsl.h"

namespace wgx::ops {
namespace {

// {name, wg_x, wg_y, tm, tn, bk}. 8x8 outputs per invocation (64 accumulators) is the largest
// block that stays in registers with room for occupancy on current GPUs; 4x4 blocks and 64-wide
// workgroups serve small problems and devices with small workgroup limits.
constexpr std::array<GemmVariant, 10> kVariants{{
    {"128x128/k8/8x8", 16, 16, 8, 8, 8},
    {"128x128/k16/8x8", 16, 16, 8, 8, 16},
    {"64x256/k8/8x8", 32, 8, 8, 8, 8},
    {"256x64/k8/8x8", 8, 32, 8, 8, 8},
    {"128x64/k16/8x4", 16, 16, 8, 4, 16},
    {"64x128/k16/4x8", 16, 16, 4, 8, 16},
    {"64x64/k16/8x8", 8, 8, 8, 8, 16},
    {"64x64/k16/4x4", 16, 16, 4, 4, 16},
    {"32x64/k16/4x8", 8, 8, 4, 8, 16},
    {"32x32/k16/4x4", 8, 8, 4, 4, 16},
}};

// Defaults, largest first: the first that gives at least `fill` workgroups is used. For GPUs,
// 256 is about two workgroups per compute unit on the largest ones (132 SMs on an H200), the
// point below which a larger tile leaves units idle. A CPU adapter runs one workgroup per core
// at a time, so only a few are needed, and there 8x8 outputs per invocation won at every shape
// of the lavapipe sweep. `wgx_microbench --sweep` is how these tables are
// checked on a device (docs/PERFORMANCE.md#one-gemm-family).
struct Ladder {
    std::array<std::string_view, 3> names;
    uint64_t fill;
};
constexpr Ladder kGpuLadder{{"128x128/k8/8x8", "64x64/k16/4x4", "32x32/k16/4x4"}, 256};
constexpr Ladder kCpuLadder{{"256x64/k8/8x8", "64x64/k16/8x8", "32x32/k16/4x4"}, 8};

// Split K: a GPU gets K chunks until the workgroups hold this many invocations (about 8 warps
// of 32 per SM on a 132-SM GPU, enough to hide load latency), each chunk keeping at least
// kSplitMinSteps K steps so the partial sums' extra traffic stays small against the FMAs.
constexpr uint64_t kSplitFillInvocations = 32768;
constexpr uint64_t kSplitMinSteps = 8;
constexpr uint32_t kSplitMaxChunks = 32;

const char* const kLanes[4] = {"x", "y", "z", "w"};

// One operand's tile traffic. `along_k`: the four elements of a load are consecutive in K (A
// stored [M, K], B stored [N, K]); else consecutive in M or N (A stored [K, M], B [K, N]).
struct Operand {
    char name;           // 'a' or 'b'
    const char* buffer;  // "A" / "B"
    const char* extent;  // "params.M" / "params.N"
    const char* origin;  // "m0" / "n0"
    const char* base;    // "a_base" / "b_base"
    uint32_t tile;       // BM / BN
    bool along_k;
    bool vec;
    bool f16;           // stored as float16: each load widens to f32
    bool conv = false;  // B of an implicit-GEMM convolution (gemm_implicit_conv.wgsl)
    bool q4 = false;    // B of 4-bit weights (GemmShapeFlags::q4_group)
    bool q4_high_first = false;
};

// `load` (an expression of the operand's element type) as f32 / vec4<f32>.
std::string widen(const Operand& o, const std::string& load) {
    if (!o.f16) return load;
    return fmt::format("{}({})", o.vec ? "vec4<f32>" : "f32", load);
}

// fetch_a / fetch_b: four elements from index `i` (m or n) and `k`, zero outside the matrix.
std::string fetch_body(const Operand& o) {
    // The loads in the K loop call conv_gather directly with the columns worked out before the
    // loop (prefetch, conv_column_slots); this whole-element form is what fetch_b means.
    if (o.conv) return "    return conv_gather(base, conv_columns(n), k);\n";
    if (o.q4) {
        // Four consecutive k of row n: half a word (k is a multiple of 4), unpacked and scaled.
        const char* shifts =
            o.q4_high_first ? "sh + 4u, sh, sh + 12u, sh + 8u" : "sh, sh + 4u, sh + 8u, sh + 12u";
        return fmt::format(
            "    if (n < params.N && k < k_end) {{\n"
            "        let word = B[base + n * Q4_ROW_WORDS + k / 8u];\n"
            "        let sh = (k % 8u) * 4u;\n"
            "        let nib = (vec4<u32>(word) >> vec4<u32>({})) & vec4<u32>(15u);\n"
            "        return (vec4<f32>(nib) - 8.0) * q4_scales[(k / Q4_GROUP) * params.N + n];\n"
            "    }}\n"
            "    return vec4<f32>(0.0);\n",
            shifts);
    }
    const char* i = o.name == 'a' ? "m" : "n";
    if (o.vec) {
        if (o.along_k) {
            return fmt::format(
                "    if ({i} < {E} && k < k_end) {{\n"
                "        return {L};\n"
                "    }}\n"
                "    return vec4<f32>(0.0);\n",
                fmt::arg("i", i), fmt::arg("E", o.extent),
                fmt::arg("L", widen(o, fmt::format("{}[(base + {} * params.K + k) / 4u]", o.buffer,
                                                   i))));
        }
        return fmt::format(
            "    if (k < k_end && {i} < {E}) {{\n"
            "        return {L};\n"
            "    }}\n"
            "    return vec4<f32>(0.0);\n",
            fmt::arg("i", i), fmt::arg("E", o.extent),
            fmt::arg("L", widen(o, fmt::format("{}[(base + k * {} + {}) / 4u]", o.buffer, o.extent,
                                               i))));
    }
    std::string s = "    var v = vec4<f32>(0.0);\n";
    if (o.along_k) {
        s += fmt::format("    if ({} < {}) {{\n        let at = base + {} * params.K + k;\n", i,
                         o.extent, i);
        for (int j = 0; j < 4; ++j) {
            s += fmt::format("        if (k + {}u < k_end) {{ v.{} = {}; }}\n", j, kLanes[j],
                             widen(o, fmt::format("{}[at + {}u]", o.buffer, j)));
        }
    } else {
        s += fmt::format("    if (k < k_end) {{\n        let at = base + k * {} + {};\n", o.extent,
                         i);
        for (int j = 0; j < 4; ++j) {
            s += fmt::format("        if ({} + {}u < {}) {{ v.{} = {}; }}\n", i, j, o.extent,
                             kLanes[j], widen(o, fmt::format("{}[at + {}u]", o.buffer, j)));
        }
    }
    s += "    }\n    return v;\n";
    return s;
}

uint32_t slots(const GemmVariant& v, const Operand& o) {
    return o.tile * v.bk / 4;  // vec4 loads per K step
}

// Loads this invocation's share of the K step at k0 into registers p<name><s>.
std::string prefetch(const GemmVariant& v, const Operand& o, const char* indent) {
    const uint32_t threads = v.invocations();
    const uint32_t total = slots(v, o);
    std::string s;
    for (uint32_t first = 0, n = 0; first < total; first += threads, ++n) {
        bool guard = first + threads > total;
        std::string coords;
        if (o.along_k) {
            coords = fmt::format("{} + g / {}u, k0 + (g % {}u) * 4u", o.origin, v.bk / 4, v.bk / 4);
        } else {
            coords =
                fmt::format("{} + (g % {}u) * 4u, k0 + g / {}u", o.origin, o.tile / 4, o.tile / 4);
        }
        s += fmt::format("{}{{\n{}    let g = tid + {}u;\n", indent, indent, first);
        std::string load =
            fmt::format("p{}{} = fetch_{}({}, {});", o.name, n, o.name, o.base, coords);
        if (o.conv) {
            // The slot's columns (n0 + (g % (BN / 4)) * 4) do not change along K: their windows
            // were placed once, before the loop (conv_column_slots).
            load = fmt::format("p{}{} = conv_gather({}, bcols{}, k0 + g / {}u);", o.name, n, o.base,
                               first % (o.tile / 4), o.tile / 4);
        }
        if (guard) {
            s += fmt::format("{}    if (g < {}u) {{ {} }}\n", indent, total, load);
        } else {
            s += fmt::format("{}    {}\n", indent, load);
        }
        s += fmt::format("{}}}\n", indent);
    }
    return s;
}

// An implicit-GEMM convolution's B: the windows of the four columns each load slot fetches,
// placed once before the K loop. Slot `first` loads columns n0 + ((tid + first) % (BN / 4)) * 4,
// so slots whose `first` agree modulo BN / 4 (all of them when the workgroup is a multiple of
// BN / 4 invocations) share one bcols<first % (BN / 4)>, which saves registers.
std::string conv_column_slots(const GemmVariant& v, const Operand& o) {
    const uint32_t threads = v.invocations();
    const uint32_t q = o.tile / 4;
    std::string s;
    std::vector<uint32_t> placed;
    for (uint32_t first = 0; first < slots(v, o); first += threads) {
        const uint32_t r = first % q;
        if (std::find(placed.begin(), placed.end(), r) != placed.end()) continue;
        placed.push_back(r);
        s += fmt::format("    let bcols{} = conv_columns({} + ((tid + {}u) % {}u) * 4u);\n", r,
                         o.origin, r, q);
    }
    return s;
}

// Stores the registers of the last prefetch into tile_<name> ([k][i / 4] as vec4).
std::string store_tile(const GemmVariant& v, const Operand& o, const char* indent) {
    const uint32_t threads = v.invocations();
    const uint32_t total = slots(v, o);
    const uint32_t q = o.tile / 4;
    std::string s;
    for (uint32_t first = 0, n = 0; first < total; first += threads, ++n) {
        bool guard = first + threads > total;
        std::string body;
        std::string in = std::string(indent) + (guard ? "        " : "    ");
        if (o.along_k) {
            // Four k of one row: a column of the k-major tile, one lane each.
            body += fmt::format("{}let i = g / {}u;\n{}let kq = (g % {}u) * 4u;\n", in, v.bk / 4,
                                in, v.bk / 4);
            for (int j = 0; j < 4; ++j) {
                body += fmt::format("{}tile_{}[(kq + {}u) * {}u + i / 4u][i % 4u] = p{}{}.{};\n",
                                    in, o.name, j, q, o.name, n, kLanes[j]);
            }
        } else {
            body += fmt::format("{}tile_{}[(g / {}u) * {}u + g % {}u] = p{}{};\n", in, o.name, q, q,
                                q, o.name, n);
        }
        s += fmt::format("{}{{\n{}    let g = tid + {}u;\n", indent, indent, first);
        if (guard) {
            s += fmt::format("{}    if (g < {}u) {{\n{}{}    }}\n", indent, total, body, indent);
        } else {
            s += body;
        }
        s += fmt::format("{}}}\n", indent);
    }
    return s;
}

// The code gemm_wgsl writes into gemm.wgsl, one piece per `//@NAME` line, in the file's order.
struct GemmPieces {
    std::string scale_binding;   // SCALE_BINDING: the scale's binding, or nothing
    std::string fetch_a;         // FETCH_A: fetch_a's body
    std::string fetch_b;         // FETCH_B: fetch_b's body
    std::string store_c;         // STORE_C (both lines): the store of store_c's v
    std::string activate;        // ACTIVATE: store_c's activation, or nothing
    std::string scale;           // SCALE: store_c's scale, or nothing
    std::string add_residual;    // ADD_RESIDUAL: store_c's residual step
    std::string declare;         // DECLARE: accumulators, prefetch registers (conv columns)
    std::string prefetch_first;  // PREFETCH_FIRST: the first K step's loads
    std::string store_tiles;     // STORE_TILES: the loaded registers into workgroup memory
    std::string prefetch_next;   // PREFETCH_NEXT: the next K step's loads
    std::string compute;         // COMPUTE: one K step's FMAs
    std::string epilogue;        // EPILOGUE: the store_c calls of the accumulators
};

// Writes each piece into its marker lines; throws std::logic_error when gemm.wgsl lacks a
// marker or has one that no piece fills.
void splice(std::string& text, const GemmPieces& p) {
    const std::pair<std::string_view, const std::string*> markers[] = {
        {"SCALE_BINDING", &p.scale_binding},
        {"FETCH_A", &p.fetch_a},
        {"FETCH_B", &p.fetch_b},
        {"STORE_C", &p.store_c},
        {"ACTIVATE", &p.activate},
        {"SCALE", &p.scale},
        {"ADD_RESIDUAL", &p.add_residual},
        {"DECLARE", &p.declare},
        {"PREFETCH_FIRST", &p.prefetch_first},
        {"STORE_TILES", &p.store_tiles},
        {"PREFETCH_NEXT", &p.prefetch_next},
        {"COMPUTE", &p.compute},
        {"EPILOGUE", &p.epilogue},
    };
    for (const auto& [marker, code] : markers) replace_wgsl_marker(text, marker, *code);
    const size_t nl = text.find("\n//@");
    const size_t from = text.starts_with("//@") ? 0 : nl == std::string::npos ? nl : nl + 1;
    if (from != std::string::npos) {
        throw std::logic_error(fmt::format("gemm_wgsl: no piece fills the WGSL's {} line",
                                           text.substr(from, text.find('\n', from) - from)));
    }
}

// The variant's constants and element aliases, after a comment naming the variant and flags.
std::string header(const GemmVariant& v, const GemmShapeFlags& f) {
    const bool conv = f.implicit_conv();
    // Element types as stored. With split K, C is the float32 scratch of partial sums.
    const char* s = f.f16 ? "f16" : "f32";
    const bool c_f16 = f.f16 && !f.split_k;
    const std::string vs = fmt::format("vec4<{}>", s);
    const char* cs = c_f16 ? "f16" : "f32";
    const std::string vcs = fmt::format("vec4<{}>", cs);
    return fmt::format(
        "{}// Variant {} ({}{}{}{}{}{}{})\n"
        "const BM = {}u;\nconst BN = {}u;\nconst BK = {}u;\nconst WG_X = {}u;\nconst WG_Y = {}u;\n"
        "const HAS_BIAS = {};\nconst HAS_RESIDUAL = {};\nconst HAS_CLAMP = {};\n"
        "const SPLIT_K = {};\n"
        "alias AElem = {};\nalias BElem = {};\nalias CElem = {};\n"
        "alias BiasElem = {};\nalias RElem = {};\n\n",
        f.f16 ? "enable f16;\n" : "", v.name, f.trans_a ? "A^T" : "A",
        f.q4() ? fmt::format(" B^T = 4-bit g{}{}", f.q4_group, f.q4_high_first ? " high first" : "")
        : f.trans_b ? std::string(" B^T")
        : conv      ? fmt::format(" B = conv {}x{} input", f.conv_kh, f.conv_kw)
                    : std::string(" B"),
        f.vec_a ? " vec_a" : "", f.vec_b ? " vec_b" : "", f.vec_c ? " vec_c" : "",
        f.split_k ? " split-K"
                  : (std::string(f.has_bias ? " bias" : "") +
                     std::string(activation_label(f.activation)) +
                     (f.has_scale ? (f.scale_rows ? " scale rows" : " scale") : "") +
                     (f.has_residual ? (f.residual_mul ? " times residual" : " residual") : "") +
                     (f.has_clamp ? " clamp" : "")),
        f.f16 ? " f16" : "", v.bm(), v.bn(), v.bk, v.wg_x, v.wg_y, f.has_bias && !f.split_k,
        f.has_residual && !f.split_k, f.has_clamp && !f.split_k, f.split_k,
        f.vec_a ? vs : std::string(s),
        f.q4()    ? std::string("u32")
        : f.vec_b ? vs
                  : std::string(s),
        f.vec_c ? vcs : std::string(cs), s, f.vec_c ? vs : std::string(s));
}

// The activation and the scale are absent with split K, whose reduce pass applies them; without
// them their lines are empty and the text is that of a GEMM without these steps.
bool activates(const GemmShapeFlags& f) { return f.activation != Activation::none && !f.split_k; }
bool scales(const GemmShapeFlags& f) { return f.has_scale && !f.split_k; }

std::string scale_binding(const GemmShapeFlags& f) {
    if (!scales(f)) return "";
    return fmt::format("@group(0) @binding(6) var<storage, read> scale: array<{}>;\n",
                       f.f16 ? "f16" : "f32");
}

// Per lane (the math functions take f32); for GELU the line reads as it did before the other
// activations existed.
std::string activate_step(const GemmShapeFlags& f) {
    if (!activates(f)) return "";
    return fmt::format("    v = vec4<f32>({}, {}, {}, {});\n", activation_wgsl(f.activation, "v.x"),
                       activation_wgsl(f.activation, "v.y"), activation_wgsl(f.activation, "v.z"),
                       activation_wgsl(f.activation, "v.w"));
}

std::string scale_step(const GemmShapeFlags& f) {
    if (!scales(f)) return "";
    if (f.scale_rows) return "    v *= f32(scale[r]);\n";
    return "    for (var j = 0u; j < 4u; j++) {\n"
           "        if (c + j < params.N) {\n"
           "            v[j] *= f32(scale[c + j]);\n"
           "        }\n"
           "    }\n";
}

// Stores round to float16 once, here.
std::string store_c_step(const GemmShapeFlags& f) {
    const bool c_f16 = f.f16 && !f.split_k;
    if (f.vec_c) {
        return fmt::format(
            "    if (c < params.N) {{\n"
            "        C[(base + r * params.c_row_stride + c) / 4u] = {};\n"
            "    }}\n",
            c_f16 ? "vec4<f16>(v)" : "v");
    }
    std::string st = "    let at = base + r * params.c_row_stride + c;\n";
    for (int j = 0; j < 4; ++j) {
        st += fmt::format(
            "    if (c + {}u < params.N) {{ C[at + {}u] = {}; }}\n", j, j,
            c_f16 ? fmt::format("f16(v.{})", kLanes[j]) : fmt::format("v.{}", kLanes[j]));
    }
    return st;
}

// Residual loads widen to f32; the residual is added, or with residual_mul multiplies.
std::string add_residual_step(const GemmShapeFlags& f) {
    const char* op = f.residual_mul ? "*=" : "+=";
    if (f.vec_c) {
        const std::string load = "residual[(base + r * params.c_row_stride + c) / 4u]";
        return fmt::format(
            "        if (c < params.N) {{\n"
            "            v {} {};\n"
            "        }}\n",
            op, f.f16 ? "vec4<f32>(" + load + ")" : load);
    }
    std::string st = "        let at = base + r * params.c_row_stride + c;\n";
    for (int j = 0; j < 4; ++j) {
        const std::string load = fmt::format("residual[at + {}u]", j);
        st += fmt::format("        if (c + {}u < params.N) {{ v.{} {} {}; }}\n", j, kLanes[j], op,
                          f.f16 ? "f32(" + load + ")" : load);
    }
    return st;
}

// Accumulators acc<row>_<column group>, prefetch registers pa<n>, pb<n>, and an implicit-GEMM
// convolution's column windows.
std::string declarations(const GemmVariant& v, const Operand& a, const Operand& b) {
    std::string decl;
    for (uint32_t i = 0; i < v.tm; ++i) {
        for (uint32_t h = 0; h < v.tn / 4; ++h) {
            decl += fmt::format("    var acc{}_{} = vec4<f32>(0.0);\n", i, h);
        }
    }
    for (const Operand* o : {&a, &b}) {
        for (uint32_t n = 0; n * v.invocations() < slots(v, *o); ++n) {
            decl += fmt::format("    var p{}{} = vec4<f32>(0.0);\n", o->name, n);
        }
    }
    if (b.conv) decl += conv_column_slots(v, b);
    return decl;
}

// One block per k of the step: this invocation's TM / 4 vec4 of A (row groups spaced WG_Y apart
// in the tile) and TN / 4 vec4 of B, then TM x TN / 4 vec4 FMAs.
std::string compute_step(const GemmVariant& v) {
    const uint32_t groups_n = v.tn / 4;
    std::string compute;
    for (uint32_t kk = 0; kk < v.bk; ++kk) {
        compute += "        {\n";
        for (uint32_t g = 0; g < v.tm / 4; ++g) {
            compute += fmt::format("            let a{} = tile_a[ty + {}u];\n", g,
                                   kk * (v.bm() / 4) + g * v.wg_y);
        }
        for (uint32_t h = 0; h < groups_n; ++h) {
            compute += fmt::format("            let b{} = tile_b[tx + {}u];\n", h,
                                   kk * (v.bn() / 4) + h * v.wg_x);
        }
        for (uint32_t i = 0; i < v.tm; ++i) {
            for (uint32_t h = 0; h < groups_n; ++h) {
                compute += fmt::format(
                    "            acc{0}_{1} = fma(vec4<f32>(a{2}.{3}), b{1}, acc{0}_{1});\n", i, h,
                    i / 4, kLanes[i % 4]);
            }
        }
        compute += "        }\n";
    }
    return compute;
}

// store_c of each accumulator at its row and columns.
std::string epilogue_stores(const GemmVariant& v) {
    std::string epilogue;
    for (uint32_t i = 0; i < v.tm; ++i) {
        for (uint32_t h = 0; h < v.tn / 4; ++h) {
            epilogue += fmt::format(
                "    store_c(c_base, z, m0 + (ty + {}u) * 4u + {}u, n0 + (tx + {}u) * 4u, "
                "acc{}_{});\n",
                (i / 4) * v.wg_y, i % 4, h * v.wg_x, i, h);
        }
    }
    return epilogue;
}

GemmPieces pieces(const GemmVariant& v, const GemmShapeFlags& f, const Operand& a,
                  const Operand& b) {
    return {
        .scale_binding = scale_binding(f),
        .fetch_a = fetch_body(a),
        .fetch_b = fetch_body(b),
        .store_c = store_c_step(f),
        .activate = activate_step(f),
        .scale = scale_step(f),
        .add_residual = add_residual_step(f),
        .declare = declarations(v, a, b),
        .prefetch_first = prefetch(v, a, "    ") + prefetch(v, b, "    "),
        .store_tiles = store_tile(v, a, "        ") + store_tile(v, b, "        "),
        .prefetch_next = prefetch(v, a, "            ") + prefetch(v, b, "            "),
        .compute = compute_step(v),
        .epilogue = epilogue_stores(v),
    };
}

}  // namespace

std::string activation_wgsl(Activation a, std::string_view x) {
    switch (a) {
        case Activation::none: return std::string(x);
        case Activation::gelu: return fmt::format("gelu_erf({})", x);
        case Activation::gelu_tanh: return fmt::format("gelu_tanh({})", x);
        case Activation::silu: return fmt::format("{0} * sigmoid({0})", x);
        case Activation::hardswish: return fmt::format("{0} * clamp({0} + 3.0, 0.0, 6.0) / 6.0", x);
    }
    return std::string(x);
}

std::string activation_label(Activation a) {
    return a == Activation::none ? std::string() : " " + std::string(schema::activation_name(a));
}

std::span<const GemmVariant> gemm_variants() { return kVariants; }

const GemmVariant* find_gemm_variant(std::string_view name) {
    for (const GemmVariant& v : kVariants) {
        if (v.name == name) return &v;
    }
    return nullptr;
}

bool gemm_variant_fits(const GemmVariant& v, const DeviceLimits& limits) {
    return v.invocations() <= limits.max_workgroup_invocations &&
           v.wg_x <= limits.max_workgroup_size_x && v.wg_y <= limits.max_workgroup_size_y &&
           v.workgroup_bytes() <= limits.max_workgroup_storage_bytes;
}

const GemmVariant& choose_gemm_variant(const DeviceInfo& device, uint64_t M, uint64_t N,
                                       uint64_t batch) {
    const Ladder& ladder = device.adapter.type == AdapterType::cpu ? kCpuLadder : kGpuLadder;
    const GemmVariant* chosen = nullptr;
    for (std::string_view name : ladder.names) {
        const GemmVariant& v = *find_gemm_variant(name);
        if (!gemm_variant_fits(v, device.limits)) continue;
        chosen = &v;
        uint64_t groups = (M + v.bm() - 1) / v.bm() * ((N + v.bn() - 1) / v.bn()) * batch;
        if (groups >= ladder.fill) return v;
    }
    if (chosen) return *chosen;
    // Tiny workgroup limits: the smallest variant that fits, else the smallest of all (its
    // pipeline creation then reports the limit).
    for (auto it = kVariants.rbegin(); it != kVariants.rend(); ++it) {
        if (gemm_variant_fits(*it, device.limits)) return *it;
    }
    return kVariants.back();
}

uint32_t choose_gemm_splits(const DeviceInfo& device, const GemmVariant& v, uint64_t M, uint64_t N,
                            uint64_t K, uint64_t batch) {
    if (device.adapter.type == AdapterType::cpu) return 1;
    const uint64_t groups = (M + v.bm() - 1) / v.bm() * ((N + v.bn() - 1) / v.bn()) * batch;
    const uint64_t invocations = groups * v.invocations();
    if (invocations >= kSplitFillInvocations) return 1;
    uint64_t splits = (kSplitFillInvocations + invocations - 1) / invocations;
    splits = std::min({splits, K / (kSplitMinSteps * v.bk), uint64_t(kSplitMaxChunks)});
    return splits < 2 ? 1 : uint32_t(splits);
}

std::string gemm_wgsl(const GemmVariant& v, const GemmShapeFlags& f) {
    const bool conv = f.implicit_conv();
    if (conv && (f.trans_b || f.vec_b || f.has_scale || f.conv_kw == 0)) {
        throw std::logic_error(
            "gemm_wgsl: an implicit-GEMM convolution reads B stored, by scalars, without a scale");
    }
    const Operand a{'a', "A", "params.M", "m0", "a_base", v.bm(), !f.trans_a, f.vec_a, f.f16};
    if (f.q4() && (!f.trans_b || f.vec_b || f.f16 || f.has_scale || conv)) {
        throw std::logic_error(
            "gemm_wgsl: 4-bit weights are B read transposed by scalars, float32, without a scale");
    }
    const Operand b{'b',       "B",     "params.N", "n0", "b_base", v.bn(),
                    f.trans_b, f.vec_b, f.f16,      conv, f.q4(),   f.q4_high_first};
    // The constants, the uniform, the math an activation calls, then the template filled in.
    std::string text = header(v, f) + std::string(wgsl::ops_matmul_gemm_params);
    if (activates(f)) text += wgsl::ops_common_math;
    text += wgsl::ops_matmul_gemm;
    splice(text, pieces(v, f, a, b));
    if (conv) {
        // The kernel size as constants (gemm_implicit_conv.wgsl divides by them), then the
        // gather; WGSL declarations may follow their use.
        text += fmt::format("\nconst KH = {}u;\nconst KW = {}u;\n", f.conv_kh, f.conv_kw);
        text += wgsl::ops_matmul_gemm_implicit_conv;
    }
    if (f.q4()) {
        text += fmt::format(
            "\nconst Q4_GROUP = {}u;\nconst Q4_ROW_WORDS = {}u;\n"
            "@group(0) @binding(6) var<storage, read> q4_scales: array<f32>;  // [K / G, N]\n",
            f.q4_group, f.q4_row_words);
    }
    return text;
}

}  // namespace wgx::ops
