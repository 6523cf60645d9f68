// Depthwise convolution (one input and one output channel per group) through workgroup memory:
// a workgroup of 64 threads computes an 8-row x 32-column tile of one output channel; it first
// stages the input tile those outputs read (with its halo, zeros outside the image) once, then
// each thread computes 4 adjacent columns from it. Every input element is then loaded from
// global memory about once instead of once per tap (9 times for 3x3).
// Grid: x = column tiles, y = row tiles, z = image * channels.
override KH: u32 = 3;
override KW: u32 = 3;

const TILE_ROWS = 8u;
const TILE_COLS = 32u;
// Largest staged tile: 7 rows of stride 2 plus a 7-tap dilated-1 window, same for columns
// (conv2d.cpp takes this kernel only when the tile fits).
const MAX_STAGED = 1456u;

var<workgroup> staged: array<f32, MAX_STAGED>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let sh = params.stride_h;
    let sw = params.stride_w;
    let rows = (TILE_ROWS - 1u) * sh + (KH - 1u) * params.dil_h + 1u;
    let cols = (TILE_COLS - 1u) * sw + (KW - 1u) * params.dil_w + 1u;
    let c = wid.z % params.C_out;
    let n = wid.z / params.C_out;
    let oy0 = wid.y * TILE_ROWS;
    let ox0 = wid.x * TILE_COLS;
    let iy0 = i32(oy0 * sh) - i32(params.pad_h);
    let ix0 = i32(ox0 * sw) - i32(params.pad_w);
    let plane = (n * params.C_in + c) * params.H_in;

    for (var i = lid; i < rows * cols; i += 64u) {
        let iy = iy0 + i32(i / cols);
        let ix = ix0 + i32(i % cols);
        var v = 0.0;
        if (iy >= 0 && iy < i32(params.H_in) && ix >= 0 && ix < i32(params.W_in)) {
            v = f32(x[(plane + u32(iy)) * params.W_in + u32(ix)]);
        }
        staged[i] = v;
    }
    workgroupBarrier();

    let ty = lid / 8u;
    let tx = lid % 8u;
    let oy = oy0 + ty;
    let ox = ox0 + tx * 4u;
    if (oy >= params.H_out || ox >= params.W_out) {
        return;
    }
    let w_base = c * KH * KW;
    var acc = vec4<f32>(0.0);
    for (var kh = 0u; kh < KH; kh++) {
        let row = (ty * sh + kh * params.dil_h) * cols;
        for (var kw = 0u; kw < KW; kw++) {
            let wv = f32(w[w_base + kh * KW + kw]);
            let at = row + tx * 4u * sw + kw * params.dil_w;
            let xv = vec4<f32>(staged[at], staged[at + sw], staged[at + 2u * sw],
                               staged[at + 3u * sw]);
            acc = fma(xv, vec4<f32>(wv), acc);
        }
    }
    store_columns(((n * params.C_out + c) * params.H_out + oy) * params.W_out, ox, acc, c);
}
