"""Real pretrained networks rebuilt as torch.nn.Module from the files registry packages ship.

Each module python/real_models/<name>.py provides:

    build() -> torch.nn.Module      the eager network with its real weights, fp32, eval mode,
                                    taking one float32 NCHW [1, 3, H, W] input (see its card)
    export(out_dir: pathlib.Path)   writes model.pte (VulkanPartitioner), card.json and
                                    ATTRIBUTION.md into out_dir

REGISTRY maps a model name to its module name; python/demo_reference.py and the export
commands look models up here. tflite_common.py (what the TFLite-sourced models share) and
validate_tfjs.py (NanoDet and the tfjs selfie graph against TensorFlow.js) are helpers, not
models. This package builds on python/importers, never the other way round.
"""

REGISTRY: dict[str, str] = {
    "nanodet": "real_models.nanodet",
    "efficientnet_lite0": "real_models.efficientnet_lite0",
    "selfie": "real_models.selfie",
    "yolo26n": "real_models.yolo26n",
    "pydnet": "real_models.pydnet",
}
