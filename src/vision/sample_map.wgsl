// Bilinear sample of a model's output map with the position clamped to the map, shared by the
// post-processing kernels (appended to each; WGSL declarations may come in any order). The including shader defines
// `fn map_at(x: u32, y: u32) -> f32` and has params.map_w / params.map_h.
fn sample_map(px: f32, py: f32) -> f32 {
    let x = clamp(px, 0.0, f32(params.map_w - 1u));
    let y = clamp(py, 0.0, f32(params.map_h - 1u));
    let x0 = u32(x);
    let y0 = u32(y);
    let x1 = min(x0 + 1u, params.map_w - 1u);
    let y1 = min(y0 + 1u, params.map_h - 1u);
    let fx = x - f32(x0);
    let fy = y - f32(y0);
    let top = mix(map_at(x0, y0), map_at(x1, y0), fx);
    let bottom = mix(map_at(x0, y1), map_at(x1, y1), fx);
    return mix(top, bottom, fy);
}
