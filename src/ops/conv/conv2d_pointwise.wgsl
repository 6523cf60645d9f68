// 1x1, stride-1, unpadded, ungrouped convolution as one GEMM per image (workgroup z):
// out[n] [C_out, P] = A [C_out, C_in] @ x[n] [C_in, P], P = H * W, A = the weight
// [C_out, C_in], or for TRANSPOSED the weight [C_in, C_out] read transposed.
// A workgroup of 8x8 threads computes a 32x32 tile; each thread 4 rows (strided by 8) by 4
// adjacent columns, walking C_in in steps of 16 through workgroup memory.
override TRANSPOSED: bool = false;

const TM = 32u;
const TN = 32u;
const TK = 16u;

var<workgroup> tile_a: array<array<f32, TM>, TK>;         // [k][row]
var<workgroup> tile_b: array<array<vec4<f32>, 8>, TK>;    // [k][column / 4]

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let M = params.C_out;
    let K = params.C_in;
    let P = params.H_out * params.W_out;
    let n = wid.z;
    let row0 = wid.y * TM;
    let col0 = wid.x * TN;
    let tid = lid.y * 8u + lid.x;
    let x0 = n * K * P;

    var acc: array<vec4<f32>, 4>;
    for (var k0 = 0u; k0 < K; k0 += TK) {
        // A tile: 16 x 32 values, 8 per thread (k fastest for the row-major weight).
        for (var e = 0u; e < 8u; e++) {
            let idx = tid + e * 64u;
            var kk: u32;
            var rr: u32;
            if (TRANSPOSED) {
                rr = idx % TM;
                kk = idx / TM;
            } else {
                kk = idx % TK;
                rr = idx / TK;
            }
            var v = 0.0;
            if (row0 + rr < M && k0 + kk < K) {
                if (TRANSPOSED) {
                    v = w[(k0 + kk) * M + row0 + rr];
                } else {
                    v = w[(row0 + rr) * K + k0 + kk];
                }
            }
            tile_a[kk][rr] = v;
        }
        // B tile: 16 x 32 values as 128 vec4, 2 per thread.
        for (var e = 0u; e < 2u; e++) {
            let idx = tid + e * 64u;
            let kk = idx / 8u;
            let c4 = idx % 8u;
            var v = vec4<f32>(0.0);
            if (k0 + kk < K) {
                let base = x0 + (k0 + kk) * P;
                let c = col0 + c4 * 4u;
                for (var j = 0u; j < 4u; j++) {
                    if (c + j < P) {
                        v[j] = x[base + c + j];
                    }
                }
            }
            tile_b[kk][c4] = v;
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            let b = tile_b[kk][lid.x];
            for (var i = 0u; i < 4u; i++) {
                acc[i] = fma(vec4<f32>(tile_a[kk][lid.y + 8u * i]), b, acc[i]);
            }
        }
        workgroupBarrier();
    }

    let o0 = n * M * P;
    for (var i = 0u; i < 4u; i++) {
        let row = row0 + lid.y + 8u * i;
        if (row >= M) {
            break;
        }
        for (var j = 0u; j < 4u; j++) {
            let c = col0 + lid.x * 4u + j;
            if (c < P) {
                out[o0 + row * P + c] = epilogue(acc[i][j], row);
            }
        }
    }
}
