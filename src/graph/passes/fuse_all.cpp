#include "graph/passes/fuse_all.h"

#include "graph/passes/addmm_as_linear.h"
#include "graph/passes/compose_permutes.h"
#include "graph/passes/fuse_activations.h"
#include "graph/passes/fuse_attention.h"
#include "graph/passes/fuse_channel_shuffle.h"
#include "graph/passes/fuse_conv_epilogue.h"
#include "graph/passes/fuse_dynamic_quant.h"
#include "graph/passes/fuse_gated_linear.h"
#include "graph/passes/fuse_linear_epilogue.h"
#include "graph/passes/fuse_residual_norm.h"
#include "graph/passes/fuse_rms_norm.h"
#include "graph/passes/fuse_silu_mul.h"

namespace wgx::graph {

void run_fusion_passes(Graph& g) {
    // addmm_as_linear first: the linear layers it makes are what fuse_linear_epilogue takes.
    addmm_as_linear(g);
    fuse_rms_norm(g);
    fuse_dynamic_quant(g);
    fuse_activations(g);
    // After the two above: the silu and the norms they rebuild are what these take.
    fuse_silu_mul(g);
    fuse_gated_linear(g);  // the 4-bit layers of fuse_dynamic_quant and the gates above
    fuse_residual_norm(g);
    fuse_conv_epilogue(g);
    fuse_conv_activation(g);  // sees the silu / hardswish calls fuse_activations made
    fuse_channel_shuffle(g);
    // Attention before the permute chains are composed: it reads q, k and v through them.
    fuse_attention(g);
    fuse_linear_epilogue(g);
    compose_permutes(g);
}

}  // namespace wgx::graph
