// torchao's choose_qparams_affine over blocks of `block` contiguous elements: per block, its
// min and max (each widened to include 0), then
//   ASYMMETRIC (MODE 0): scale = max(eps, (max - min) / (qmax - qmin)),
//                        zp = clamp(qmin - round(min / scale), qmin, qmax)
//   SYMMETRIC (MODE 1):  scale = max(eps, max(-min, max) / ((qmax - qmin) / 2)), zp = mid
//   SYMMETRIC_NO_CLIPPING_ERR (MODE 2): scale = max(eps, larger of min / qmin and max / qmax),
//                        zp = mid
// with mid = (qmax + qmin + 1) / 2 (integer division), as torchao's _choose_qparams_affine.
// One workgroup per PACK blocks: a zero point stored as int8 shares its word with three others,
// so one workgroup computes all four and writes the word whole.
// The C++ side prepends common/workgroup_reduce's prelude (alias T = f32, workgroup_max).
struct Params {
    blocks: u32,
    block: u32,
    qmin: i32,
    qmax: i32,
    eps: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> scale: array<f32>;
@group(0) @binding(2) var<storage, read_write> zero_point: array<u32>;  // int8 (PACK 4) or int32
@group(0) @binding(3) var<uniform> params: Params;

override WG: u32 = 256;
override MODE: u32 = 0u;
override PACK: u32 = 1u;  // 4 when zero_point holds int8

// a / b correctly rounded, as the CPU computes it (WGSL's division may be 2.5 ulp off).
fn divide(a: f32, b: f32) -> f32 {
    let q = a / b;
    return fma(fma(-q, b, a), 1.0 / b, q);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        ids: ReduceIds) {
    let first = (wid.x + wid.y * nwg.x) * PACK;  // uniform across the workgroup
    if (first >= params.blocks) {
        return;
    }
    let qmin = f32(params.qmin);
    let qmax = f32(params.qmax);
    var word = 0u;
    for (var i = 0u; i < PACK; i++) {
        let b = first + i;
        if (b >= params.blocks) {
            break;  // uniform: b depends on the workgroup only
        }
        var lo = 0.0;
        var hi = 0.0;
        for (var k = ids.lid; k < params.block; k += WG) {
            let v = x[b * params.block + k];
            lo = min(lo, v);
            hi = max(hi, v);
        }
        lo = -workgroup_max(-lo, ids);
        hi = workgroup_max(hi, ids);
        var s: f32;
        var zp: i32;
        if (MODE == 0u) {
            s = max(divide(hi - lo, qmax - qmin), params.eps);
            zp = i32(clamp(qmin - round(divide(lo, s)), qmin, qmax));
        } else {
            if (MODE == 1u) {
                s = divide(max(-lo, hi), (qmax - qmin) / 2.0);
            } else {
                let smin = divide(lo, qmin);
                let smax = divide(hi, qmax);
                s = select(smax, smin, smin > smax);
            }
            s = max(s, params.eps);
            zp = (params.qmax + params.qmin + 1) / 2;
        }
        if (ids.lid == 0u) {
            scale[b] = s;
            if (PACK == 1u) {
                zero_point[b] = bitcast<u32>(zp);
            }
        }
        word |= (bitcast<u32>(zp) & 0xffu) << (8u * i);
    }
    if (PACK == 4u && ids.lid == 0u) {
        zero_point[first / 4u] = word;
    }
}
