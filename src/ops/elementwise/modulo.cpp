#include "ops/elementwise/modulo.h"

namespace wgx::ops {

std::string modulo_helpers(DType storage) {
    if (storage == DType::i32) {
        return R"(fn fmod_t(x: T, y: T) -> T {
    if (y == 0) { return 0; }
    return x % y;  // truncated, the sign of x, as C's %
}
fn remainder_t(x: T, y: T) -> T {
    let r = fmod_t(x, y);
    return select(r, r + y, r != 0 && ((r < 0) != (y < 0)));
}
)";
    }
    // |x| = q |y| + r with q = trunc(|x| / |y|): the quotient may be one off when |x| / |y|
    // rounds across an integer, and the fused multiply-add gives a - q b exactly when q is
    // right, so one correction step lands in [0, b). Exact for quotients below 2^24.
    return R"(fn fmod_t(x: T, y: T) -> T {
    let a = abs(f32(x));
    let b = abs(f32(y));
    if (!(b > 0.0) || !(a <= 3.4028235e38)) { return T(bitcast<f32>(0x7fc00000u)); }
    if (a < b) { return x; }
    let q = trunc(a / b);
    var r = fma(-q, b, a);
    if (r < 0.0) { r += b; }
    if (r >= b) { r -= b; }
    return T(select(r, -r, f32(x) < 0.0));
}
fn remainder_t(x: T, y: T) -> T {
    let r = fmod_t(x, y);
    return select(r, r + y, r != T(0) && ((r < T(0)) != (y < T(0))));
}
)";
}

}  // namespace wgx::ops
