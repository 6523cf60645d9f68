#!/usr/bin/env bash
# The LLM benchmark in one call on the lent GPU machine: Llama 3.2 1B's shapes with seeded random
# weights, exported by ExecuTorch's own export_llama (fp32, and --vulkan-force-fp16), run by
# `wgx generate`, against PyTorch on CUDA with the exporter's own model class, and a
# device-to-device copy as the memory ceiling. Steps, each guarded (a failure leaves the others):
#   wheels   .whl/*.whl and .whl/llm/*.whl into $SITE, unless executorch imports already
#   model    params.json, ckpt.pth, prompt.txt in $WORK (python/llm_bench_model.py; kept while
#            the machine stays, so a second call skips it and the exports)
#   export   the two export_llama runs in parallel, in the background (python/llm_bench_export.py)
#   torch    python/bench_llm_torch.py: eager and CUDA graphs, fp32/tf32/fp16/bf16, while the
#            exports run (they take the CPU, the peer the GPU; SERIAL=1 runs it after them)
#   wgx      python/bench_llm_wgx.py: fp32.pte, fp32.pte with --f16, force16.pte
#   check    python/check_llm_real.py: PyTorch's fp32 greedy continuation and its fp32/fp64/fp16
#            logits (on the GPU while the exports run), then `wgx score` of the same sequence on
#            each program against fp64, and `wgx generate`'s greedy tokens against PyTorch's
#   compile  the peer again with torch.compile(mode="reduce-overhead"), in the time left
#   prefill  (quant) a LONG_PROMPT-token prompt's prefill rate on each 4-bit program (again
#            under BEFORE_ENV when given; PREFILL_PROFILE=1 adds a per-op profile of each)
#   memory   (quant) the 4-bit programs' GPU memory: wgx info's allocation and nvidia-smi's figure
#            (with the clocks while it decodes), and nvidia-smi's figure for a bare process
#   report   python/llm_bench_report.py -> report.md
# Writes into OUT_DIR (8 files at most): results.jsonl, report.md, bench.log, torch.log,
# wgx.log, check.log, export-fp32.log, export-force16.log (micro.log with MICRO, export logs
# named after the quant programs with PROGRAMS=quant). Carry: .whl (with .whl/llm from
# scripts/fetch-device-llm-wheels.sh), .device and .gl (scripts/pack-for-device.sh).
#   usage: scripts/device-llm-bench.sh [--small] [OUT_DIR]      (OUT_DIR default $OUT)
#   --small: the test fixture's tiny dims, for a check on a CPU (PyTorch on the CPU, wgx on
#            lavapipe): PYTHON=/tmp/py312/bin/python WGX=build/wgx scripts/device-llm-bench.sh --small /tmp/o
#   env: PYTHON (python3), WGX (.device/wgx, else build/wgx), SITE (/tmp/site), WORK
#        (/tmp/llm-bench-full|small), BUDGET (seconds for the whole run, 520), NEW_TOKENS,
#        COMPILE (precisions for torch.compile, "fp32,fp16"; empty: none), SERIAL (0),
#        PEER (1; 0 skips the PyTorch peer, for a second call whose first one measured it),
#        WGX_REPEATS (fresh wgx processes a program, 3; 2 with --small),
#        TRACE_DEPTH (16: python/llm_bench_export.py's bound), CHECK (1; 0 skips the check),
#        CHECK_TOKENS (48; 16 with --small), PROGRAMS (float: fp32.pte and force16.pte; quant:
#        q8da4w.pte (-qmode 8da4w -G 32 -E 4,32) and q4w.pte (-qmode 4w -G 32), the 4-bit
#        programs, whose correctness the small fixtures test: CHECK applies to float only; their
#        exports take about 300 s there, so BUDGET must leave that after the model: 520 or more),
#        WGX_BEFORE (with quant: an earlier wgx binary, run on the same programs after WGX),
#        BEFORE_ENV (with quant: NAME=VALUE under which WGX_BEFORE, or without it the same wgx,
#        runs them again), LONG_PROMPT (quant: the longer prompt's tokens, 512),
#        MICRO (wgx_microbench groups, e.g. ceiling,quant, into micro.log while the exports run;
#        with CHECK=0 so that check.log leaves room for it among the 8 files)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
size=full
if [ "${1:-}" = --small ]; then size=small; shift; fi
out=${1:-${OUT:?usage: scripts/device-llm-bench.sh [--small] OUT_DIR}}
py=${PYTHON:-python3}
site=${SITE:-/tmp/site}
work=${WORK:-/tmp/llm-bench-$size}
budget=${BUDGET:-520}
wgx=${WGX:-.device/wgx}
[ -x "$wgx" ] || wgx=build/wgx
if [ $size = full ]; then
    tokens=${NEW_TOKENS:-128} copy_gib=4 torch_repeats=5 wgx_repeats=${WGX_REPEATS:-3} profile_runs=20
else
    tokens=${NEW_TOKENS:-16} copy_gib=0.25 torch_repeats=3 wgx_repeats=${WGX_REPEATS:-2} profile_runs=5
fi
compile=${COMPILE-fp32,fp16}
[ "${PROGRAMS:-float}" = quant ] && compile=${COMPILE-fp16}
check_tokens=${CHECK_TOKENS:-48}
[ $size = small ] && check_tokens=${CHECK_TOKENS:-16}
# What the wgx runs leave for the report, and for the check's scoring runs after them.
wgx_reserve=20
[ "${CHECK:-1}" = 1 ] && wgx_reserve=110
# The 4-bit programs' steps after them: two long prefills, two generates and a baseline.
[ "${PROGRAMS:-float}" = quant ] && [ "${CHECK:-1}" != 1 ] && wgx_reserve=110
trace_depth=${TRACE_DEPTH:-16}
repo=$PWD
mkdir -p "$out" "$work"
out=$(cd "$out" && pwd)
results=$out/results.jsonl
: > "$results"
exec > >(tee -a "$out/bench.log") 2>&1
tee_pid=$!

log() { printf '[llm-bench %s +%3ds] %s\n' "$(date +%H:%M:%S)" "$SECONDS" "$*"; }
left() { echo $((budget - SECONDS)); }
# A step's time limit: its own, or what the budget leaves after a reserve for the steps after it
# (at least 1: `timeout 0` would mean no limit).
limit() {
    local own=$1 reserve=$2 rest
    rest=$(($(left) - reserve))
    rest=$((own < rest ? own : rest))
    echo $((rest > 0 ? rest : 1))
}
# A line for the report, beside the measurements.
note() { printf '{"kind": "note", "text": "%s"}\n' "$*" >> "$results"; }

log "size $size, $tokens new tokens, budget ${budget}s, work $work, wgx $wgx"
# The full-size 4-bit exports take about 300 s on a fresh machine (240-290 measured), and the
# model about 40 before them: a smaller budget leaves them too little and measures nothing.
if [ "$size" = full ] && [ "${PROGRAMS:-float}" = quant ] && [ "$budget" -lt 500 ] &&
    [ ! -f "$work/q8da4w.pte" ]; then
    log "warning: BUDGET=$budget leaves the exports about $((budget - 190)) s; they take about 300 (use 500 or more)"
fi
export PYTHONPATH=$site:$PWD/python PYTHONUNBUFFERED=1
# The exporter's own imports too: a $SITE from scripts/device-export-full.sh lacks .whl/llm's.
if ! "$py" -c 'import executorch, omegaconf, pytorch_tokenizers' 2>/dev/null; then
    log "installing the carried wheels into $site"
    shopt -s nullglob
    "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" .whl/*.whl .whl/llm/*.whl || log "wheel install FAILED"
    shopt -u nullglob
fi
# ExecuTorch serializes the Vulkan graph through flatc; the wheel carries one.
flatc=$site/executorch/data/bin/flatc
[ -f "$flatc" ] && chmod +x "$flatc" && export FLATC_EXECUTABLE=$flatc
"$py" -c 'import torch, executorch.version as v; print("torch", torch.__version__, "executorch",
    v.__version__, "cuda", torch.cuda.is_available())' || log "executorch does not import"

# The Vulkan loader and the packed libraries, as scripts/pack-for-device.sh describes.
if [ -d .gl ] && ! ldconfig -p | grep -q libvulkan.so.1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
[ -d .device/lib ] && export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$icd}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

log "model: params, seeded weights, prompt (kept if $work has them from the same arguments)"
small_flag=()
[ $size = small ] && small_flag=(--small)
# The small dims' vocabulary (509) fails in the exporter's 4-bit packing; 512 does not.
[ $size = small ] && [ "${PROGRAMS:-float}" = quant ] && small_flag+=(--vocab 512)
if ! "$py" python/llm_bench_model.py "$work" "${small_flag[@]}" --reuse >> "$results"; then
    log "model FAILED: nothing else can run"
    exit 1
fi
log "model: $(du -h "$work/ckpt.pth" | cut -f1) checkpoint"

# One export_llama run in the background, which writes its duration into $work/NAME.seconds; a
# .pte already there from this checkpoint is kept. python/llm_bench_export.py is export_llama
# with executorch 1.2.0's exponential Vulkan lookahead bounded (its docstring says why).
export_pte() {
    local name=$1; shift
    if [ "$work/$name.pte" -nt "$work/ckpt.pth" ]; then
        log "export $name: kept from an earlier call"
        return 0
    fi
    rm -f "$work/$name.pte" "$work/$name.seconds"
    (cd "$work" && t0=$SECONDS && timeout "$(limit 900 150)" "$py" \
        "$repo/python/llm_bench_export.py" --trace-depth "$trace_depth" "${hqq_flag[@]}" --model llama3_2 \
        --checkpoint ckpt.pth --params params.json -kv --use_sdpa_with_kv_cache --vulkan \
        --max_seq_length 128 --max_context_length 2048 -d fp32 "$@" --output_name "$name.tmp.pte" &&
        mv "$name.tmp.pte" "$name.pte" && echo $((SECONDS - t0)) > "$name.seconds") \
        > "$out/export-$name.log" 2>&1 &
    pids[$name]=$!
    log "export $name: started (pid ${pids[$name]})"
}
declare -A pids=()
note "export_llama ran through python/llm_bench_export.py: executorch 1.2.0's Vulkan memory tagging with its lookahead bounded to $trace_depth (unbounded, 16 layers do not lower in minutes)."
programs=${PROGRAMS:-float}
# The 1B model's HQQ scale search alone takes minutes there (python/llm_bench_export.py).
hqq_flag=()
if [ "$programs" = quant ]; then
    hqq_flag=(--no-hqq)
    note "the 4-bit exports chose their scales by min/max (--no-hqq): the same program shapes, slightly different weights."
    export_pte q8da4w -qmode 8da4w -G 32 -E 4,32
    export_pte q4w -qmode 4w -G 32
else
    export_pte fp32
    export_pte force16 --vulkan-force-fp16
fi

# Waits for the exports, with a progress line every 30 seconds.
wait_exports() {
    local name shown=$SECONDS running
    while true; do
        running=()
        for name in "${!pids[@]}"; do
            kill -0 "${pids[$name]}" 2>/dev/null && running+=("$name")
        done
        [ ${#running[@]} -eq 0 ] && break
        if [ $((SECONDS - shown)) -ge 30 ]; then
            log "export running: ${running[*]}; memory in use: $(free -g 2>/dev/null | awk '/Mem:/ {print $3}') GiB"
            shown=$SECONDS
        fi
        sleep 2
    done
    for name in "${!pids[@]}"; do
        if wait "${pids[$name]}"; then
            log "export $name: done in $(cat "$work/$name.seconds")s, $(du -h "$work/$name.pte" | cut -f1)"
            note "export_llama $name.pte: $(cat "$work/$name.seconds") s, $(du -h "$work/$name.pte" | cut -f1)"
        else
            log "export $name: FAILED (exit $?); end of export-$name.log:"
            tail -5 "$out/export-$name.log"
        fi
    done
    pids=()
}

# usage: torch_peer OWN_LIMIT RESERVE ARGS...
torch_peer() {
    local seconds
    seconds=$(limit "$1" "$2")
    log "torch (${seconds}s at most): ${*:3}"
    timeout "$seconds" "$py" python/bench_llm_torch.py "$work" --out "$results" \
        --new-tokens "$tokens" --repeats "$torch_repeats" --check-tokens "$check_tokens" "${@:3}" \
        >> "$out/torch.log" 2>&1 ||
        log "torch: FAILED or stopped (exit $?); see torch.log"
}

if [ "${SERIAL:-0}" = 1 ]; then
    wait_exports
elif [ ${#pids[@]} -gt 0 ]; then
    note "PyTorch eager and graph ran while the exports ran (two processes on the CPU); SERIAL=1 runs them after."
fi
# Leaves the wgx runs and the report about 150 seconds.
if [ "${PEER:-1}" = 1 ]; then
    # Beside the 4-bit programs, the peer users pick on a GPU: fp16.
    peer_precisions=()
    [ "$programs" = quant ] && peer_precisions=(--precisions fp16)
    torch_peer 300 150 --copy-gib "$copy_gib" "${peer_precisions[@]}"
else
    log "torch: skipped (PEER=0)"
fi
# The correctness check's PyTorch side (fp32 greedy tokens, then fp32/fp64/fp16 logits), on the
# GPU while the exports may still take the CPU.
if [ "${CHECK:-1}" = 1 ]; then
    log "check reference ($(limit 150 150)s at most): $check_tokens greedy tokens after the prompt"
    timeout "$(limit 150 150)" "$py" python/check_llm_real.py reference "$work" \
        --new-tokens "$check_tokens" --out "$results" >> "$out/check.log" 2>&1 ||
        log "check reference: FAILED or stopped (exit $?); see check.log"
fi
# The kernels alone while the exports take the CPU: wgx_microbench's groups (MICRO, e.g.
# "ceiling,quant": each decode GEMV shape against the copy ceiling, the dispatch floor).
if [ -n "${MICRO:-}" ] && [ -x .device/wgx_microbench ]; then
    log "microbench ($(limit 120 200)s at most): groups $MICRO"
    timeout "$(limit 120 200)" .device/wgx_microbench --groups "$MICRO" > "$out/micro.log" 2>&1 ||
        log "microbench: FAILED or stopped (exit $?); see micro.log"
    if [ -n "${BEFORE_ENV:-}" ] && [ -z "${WGX_BEFORE:-}" ] && [[ $MICRO == *quant* ]]; then
        echo "== with $BEFORE_ENV" >> "$out/micro.log"
        (export "${BEFORE_ENV?}"
            timeout "$(limit 60 200)" .device/wgx_microbench --groups quant >> "$out/micro.log" 2>&1) ||
            log "microbench with $BEFORE_ENV: FAILED or stopped"
    fi
fi
wait_exports

# usage: wgx_run NAME SHARE ARGS...: NAME.pte in the SHARE-th part of the time left (less a
# reserve for the report), so that a slow load cannot take the later runs' time.
wgx_run() {
    local pte=$work/$1.pte share=$2
    shift 2
    if [ ! -f "$pte" ]; then
        log "wgx $*: no $(basename "$pte")"
        return 0
    fi
    local seconds=$(($(limit 9999 "$wgx_reserve") / share))
    log "wgx (${seconds}s at most): $(basename "$pte") $*"
    "$py" python/bench_llm_wgx.py --wgx "${WGX_BIN:-$wgx}" --pte "$pte" --prompt "$work/prompt.txt" \
        --new-tokens "$tokens" --repeats "$wgx_repeats" --time-limit "$seconds" --device "$adapter" \
        --check-tokens "$check_tokens" \
        --out "$results" "$@" >> "$out/wgx.log" 2>&1 || log "wgx: FAILED (see results.jsonl and wgx.log)"
}
{ "$wgx" --version && "$wgx" info --device; } > "$out/wgx.log" 2>&1 || log "wgx info --device FAILED"
adapter=$(sed -n 's/^Chosen: #[0-9]* //p' "$out/wgx.log")
# The calls of the fp32 program after the graph passes, for reading the profile against.
[ -f "$work/fp32.pte" ] && { echo "== wgx info --calls fp32.pte"; timeout 60 "$wgx" info --calls \
    "$work/fp32.pte"; } >> "$out/wgx.log" 2>&1
note "wgx: medians of up to $wgx_repeats fresh processes, each timed after one warm-up round of the prompt and a decode step (wgx generate --warmup 1), as PyTorch's rates are warm medians."
# The compile step after them is worth less than these: the third share is what is left.
if [ "$programs" = quant ]; then
    wgx_run q8da4w 3 --precision 8da4w --mode "q8da4w.pte" --profile-runs "$profile_runs"
    wgx_run q4w 2 --precision 4w --mode "q4w.pte" --profile-runs "$profile_runs"
    # An earlier build beside this one, for an optimisation's before and after in one run.
    if [ -x "${WGX_BEFORE:-}" ]; then
        # With BEFORE_ENV too, the earlier binary runs under it.
        [ -n "${BEFORE_ENV:-}" ] && note "before: $WGX_BEFORE with $BEFORE_ENV"
        (if [ -n "${BEFORE_ENV:-}" ]; then export "${BEFORE_ENV?}"; fi
            WGX_BIN=$WGX_BEFORE wgx_run q8da4w 2 --precision 8da4w --mode "q8da4w.pte, before" \
                --profile-runs "$profile_runs"
            WGX_BIN=$WGX_BEFORE wgx_run q4w 1 --precision 4w --mode "q4w.pte, before")
    elif [ -n "${BEFORE_ENV:-}" ]; then
        # The same binary with one decision undone (e.g. WGX_Q4_GEMV=0).
        note "before: the same wgx with $BEFORE_ENV"
        (export "${BEFORE_ENV?}"
            wgx_run q8da4w 2 --precision 8da4w --mode "q8da4w.pte, $BEFORE_ENV" \
                --profile-runs "$profile_runs"
            wgx_run q4w 1 --precision 4w --mode "q4w.pte, $BEFORE_ENV" --profile-runs "$profile_runs")
    fi
else
    wgx_run fp32 4 --precision fp32 --mode "fp32.pte" --profile-runs "$profile_runs"
    wgx_run fp32 3 --precision fp16 --mode "fp32.pte --f16"
    wgx_run force16 2 --precision fp16 --mode "force16.pte" --profile-runs "$profile_runs"
fi

# The correctness check's engine side: `wgx score` and `wgx generate` on the same sequence.
if [ "${CHECK:-1}" = 1 ] && [ "$programs" = float ] && [ -f "$work/reference.npz" ]; then
    # The greedy tokens of the runs above, then one `wgx score` a program (a load each, about
    # 30 s at 1B), the most used first.
    check_programs=()
    [ -f "$work/fp32.pte" ] && check_programs+=(--program "fp32,fp32,$work/fp32.pte")
    [ -f "$work/force16.pte" ] && check_programs+=(--program "force16,fp16,$work/force16.pte")
    [ -f "$work/fp32.pte" ] && check_programs+=(--program "fp32 --f16,fp16,$work/fp32.pte,--f16")
    log "check compare ($(limit 240 15)s at most): ${#check_programs[@]} program arguments"
    timeout "$(limit 240 15)" "$py" python/check_llm_real.py compare "$work" --wgx "$wgx" \
        --bench-results "$results" "${check_programs[@]}" --out "$results" >> "$out/check.log" 2>&1 ||
        log "check compare: FAILED or stopped (exit $?); see check.log"
fi

if [ "${PEER:-1}" = 1 ] && [ -n "$compile" ] && "$py" -c 'import torch, sys; sys.exit(not torch.cuda.is_available())'; then
    if [ "$(left)" -gt 60 ]; then
        torch_peer 600 15 --modes compile --precisions "$compile" --copy-gib 0
    else
        log "compile: skipped, $(left)s left"
    fi
fi

# usage: watch_gpu PID SAMPLES INTERVAL: samples nvidia-smi until PID exits (at most SAMPLES
# times), then stops it. Sets peak_mib (the process's largest figure) and clock_samples (SM MHz,
# memory MHz, GPU utilization % at each sample: a GPU below its boost clock makes every kernel
# slower).
watch_gpu() {
    local pid=$1 n
    peak_mib=0 clock_samples=() mib_samples=()
    for _ in $(seq 1 "$2"); do
        sleep "$3"
        n=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits |
            awk -F', ' -v p="$pid" '$1 == p {print $2}')
        [ -n "$n" ] && [ "$n" -gt "$peak_mib" ] && peak_mib=$n
        mib_samples+=("${n:--}")
        clock_samples+=("$(nvidia-smi --query-gpu=clocks.sm,clocks.mem,utilization.gpu \
            --format=csv,noheader,nounits | tr -d ' ')")
        kill -0 "$pid" 2>/dev/null || break
    done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}
# The loaded program's GPU memory: what the file holds (wgx info: constants and memory pools
# after the passes), what the engine allocates (wgx generate --json's gpu_allocated_bytes:
# unused constants are never uploaded) and what nvidia-smi sees of a generating process (its largest figure
# over a few seconds once loaded), for each 4-bit program.
gpu_memory() {
    local pte=$work/$1.pte
    [ -f "$pte" ] && command -v nvidia-smi > /dev/null || return 0
    [ "$(left)" -gt 60 ] || { log "memory $1: skipped, $(left)s left"; return 0; }
    note "wgx info $1.pte: $("$wgx" info "$pte" 2>&1 | grep -E '^constants|^after graph passes' | tr '\n' ';')"
    local allocated
    allocated=$("$wgx" generate "$pte" --prompt-tokens "$(cat "$work/prompt.txt")" --max-new-tokens 2 \
        --json 2>/dev/null | tail -1 | "$py" -c 'import json, sys; print(json.load(sys.stdin)["gpu_allocated_bytes"])' 2>/dev/null)
    note "wgx generate $1.pte: the engine allocated ${allocated:-FAILED} bytes on the GPU (buffers it holds after generating)"
    "$wgx" generate "$pte" --prompt-tokens "$(cat "$work/prompt.txt")" --max-new-tokens 1900 \
        > /dev/null 2>&1 &
    watch_gpu $! 40 0.5
    note "nvidia-smi while wgx generate ran $1.pte: $peak_mib MiB used by the process at its peak (MiB every 0.5 s: ${mib_samples[*]})"
    note "nvidia-smi clocks while wgx generate ran $1.pte (SM MHz,memory MHz,GPU utilization % every 0.5 s): ${clock_samples[*]}"
    log "memory $1: $peak_mib MiB (nvidia-smi)"
}
# The same figure for a process that loaded only a tiny program: what the Vulkan device and
# the process cost before any model (the figures above less this are the model's).
gpu_baseline() {
    command -v nvidia-smi > /dev/null || return 0
    "$wgx" bench tests/fixtures/linear/vulkan.pte --iters 100000 > /dev/null 2>&1 &
    watch_gpu $! 20 0.25
    note "nvidia-smi while wgx bench ran tests/fixtures/linear (a tiny program): $peak_mib MiB used by the process"
    log "memory baseline: $peak_mib MiB (nvidia-smi)"
}
# Prefill of a longer prompt (LONG_PROMPT tokens, default 512: the prompt's ids repeated), fed in
# the program's chunks (up to max_seq_length - 1 = 127 tokens each): wgx generate's prefill rate
# after one warm-up round; `long_prefill PROGRAM [NAME=VALUE]` runs wgx under that setting. With
# PREFILL_PROFILE=1, the per-op profile of one such prefill into bench.log too.
long_prefill() {
    local pte=$work/$1.pte n=${LONG_PROMPT:-512} setting=${2:-} ids line rate
    [ -f "$pte" ] || return 0
    [ "$(left)" -gt 40 ] || { log "prefill $n $1 $setting: skipped, $(left)s left"; return 0; }
    ids=$("$py" -c "import sys; p = open(sys.argv[1]).read().strip().split(','); n = int(sys.argv[2]);
print(','.join((p * (n // len(p) + 1))[:n]))" "$work/prompt.txt" "$n")
    line=$(env $setting timeout 60 "$wgx" generate "$pte" --prompt-tokens "$ids" --max-new-tokens 2 \
        --warmup 1 --json 2>/dev/null | tail -1)
    rate=$(printf '%s' "$line" | "$py" -c 'import json, sys; print(round(json.load(sys.stdin)["prefill_tokens_per_s"]))' 2>/dev/null)
    note "wgx generate $1.pte with a $n-token prompt (chunks of up to 127)${setting:+, $setting}: prefill ${rate:-FAILED} tok/s"
    log "prefill $n $1 $setting: ${rate:-FAILED} tok/s"
    if [ "${PREFILL_PROFILE:-0}" = 1 ] && [ "$(left)" -gt 40 ]; then
        log "prefill profile $1 $setting"
        env $setting timeout 40 "$wgx" generate "$pte" --prompt-tokens "$ids" --max-new-tokens 2 \
            --profile --top 8 2>&1 | tail -30
    fi
}
if [ "$programs" = quant ]; then
    for setting in "" ${BEFORE_ENV:+"$BEFORE_ENV"}; do
        long_prefill q8da4w "$setting"
        long_prefill q4w "$setting"
    done
    gpu_memory q8da4w
    gpu_memory q4w
    gpu_baseline
fi

log "report"
"$py" python/llm_bench_report.py "$results" --out "$out/report.md" || log "report FAILED"
# What comes back is at most 16 MiB a file: keep the ends of the logs.
for f in "$out"/*.log; do
    if [ "$(stat -c %s "$f")" -gt 15000000 ]; then
        tail -c 15000000 "$f" > "$f.tail" && mv "$f.tail" "$f"
    fi
done
log "done"
# Lets tee write the last lines into bench.log before the call returns.
exec >&- 2>&-
wait "$tee_pid"
