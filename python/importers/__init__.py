"""Importers that rebuild networks shipped in other formats as torch.nn.Module.

tfjs_graph  TensorFlow.js graph models (model.json + weight shards), validated against
            TensorFlow.js itself with tfjs_run.js (node) and validate_tfjs.py.
tflite_model  TFLite flatbuffers (tflite_reader reads, tflite_steps are the torch pieces),
            validated against the TFLite interpreter with tflite_validate.py.
"""
