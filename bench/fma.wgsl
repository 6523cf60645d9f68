// Arithmetic ceiling in the element type T (f32, or f16 on adapters with shader-f16; the C++
// side prepends `alias T = ...;` and, for f16, `enable f16;`): each invocation advances 8
// independent vec4 chains x = fma(x, m, c) by 4 unrolled steps per round for params.iters
// rounds (256 flops per round). Eight chains of four lanes are enough independent work to hide
// the FMA latency; m and c come from the uniform so nothing is folded at compile time, and the
// lanes' sum is written so no chain is dead code. The CPU check replays the chains.
struct Params {
    iters: u32,
    threads: u32,
    mul: f32,
    add: f32,
}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.x + gid.y * groups.x * WG;
    if (i >= params.threads) {
        return;
    }
    let m = vec4<T>(T(params.mul));
    let c = vec4<T>(T(params.add));
    // Start values: multiples of 1/128 below 2, exact in f16 too (the CPU check repeats them).
    let s = 0.5 + f32(i % 64u) / 128.0;
    let lanes = vec4<f32>(0.0, 0.015625, 0.03125, 0.046875);
    var x0 = vec4<T>(vec4<f32>(s + 0.0) + lanes);
    var x1 = vec4<T>(vec4<f32>(s + 0.0625) + lanes);
    var x2 = vec4<T>(vec4<f32>(s + 0.125) + lanes);
    var x3 = vec4<T>(vec4<f32>(s + 0.1875) + lanes);
    var x4 = vec4<T>(vec4<f32>(s + 0.25) + lanes);
    var x5 = vec4<T>(vec4<f32>(s + 0.3125) + lanes);
    var x6 = vec4<T>(vec4<f32>(s + 0.375) + lanes);
    var x7 = vec4<T>(vec4<f32>(s + 0.4375) + lanes);

    for (var n = 0u; n < params.iters; n++) {
        x0 = fma(x0, m, c);
        x1 = fma(x1, m, c);
        x2 = fma(x2, m, c);
        x3 = fma(x3, m, c);
        x4 = fma(x4, m, c);
        x5 = fma(x5, m, c);
        x6 = fma(x6, m, c);
        x7 = fma(x7, m, c);
        x0 = fma(x0, m, c);
        x1 = fma(x1, m, c);
        x2 = fma(x2, m, c);
        x3 = fma(x3, m, c);
        x4 = fma(x4, m, c);
        x5 = fma(x5, m, c);
        x6 = fma(x6, m, c);
        x7 = fma(x7, m, c);
        x0 = fma(x0, m, c);
        x1 = fma(x1, m, c);
        x2 = fma(x2, m, c);
        x3 = fma(x3, m, c);
        x4 = fma(x4, m, c);
        x5 = fma(x5, m, c);
        x6 = fma(x6, m, c);
        x7 = fma(x7, m, c);
        x0 = fma(x0, m, c);
        x1 = fma(x1, m, c);
        x2 = fma(x2, m, c);
        x3 = fma(x3, m, c);
        x4 = fma(x4, m, c);
        x5 = fma(x5, m, c);
        x6 = fma(x6, m, c);
        x7 = fma(x7, m, c);
    }
    let sum = vec4<f32>(x0) + vec4<f32>(x1) + vec4<f32>(x2) + vec4<f32>(x3) + vec4<f32>(x4) + vec4<f32>(x5) + vec4<f32>(x6) + vec4<f32>(x7);
    out[i] = dot(sum, vec4<f32>(1.0));
}
