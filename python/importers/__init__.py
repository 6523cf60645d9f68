"""Importers that rebuild networks shipped in other formats as torch.nn.Module.

tfjs_graph  TensorFlow.js graph models (model.json + weight shards), validated against
            TensorFlow.js itself (tfjs_run.js under node; tfjs_reference.py runs it and
            compares) by test_tfjs_graph.py (synthetic graphs) and
            python/real_models/validate_tfjs.py (the real models on photos).
tflite_model  TFLite flatbuffers (tflite_reader reads, tflite_steps are the torch pieces),
            validated against the TFLite interpreter with tflite_validate.py.

Nothing here imports python/real_models (which builds on these importers).
"""
