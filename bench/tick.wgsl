// The smallest useful dispatch: one workgroup adds 1 to 64 floats it also reads, so every
// dispatch of a chain depends on the one before (the runtime must order them). A chain of these
// measures what one dispatch costs beyond its work: launch, barrier, and the gap between them.
@group(0) @binding(0) var<storage, read_write> x: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    x[i] = x[i] + 1.0;
}
