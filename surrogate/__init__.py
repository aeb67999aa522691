"""Neural surrogate (PaddlePaddle) and the data it learns from.

Dataset generation: sweep_config (the sweep YAML), sampling (design points), sample_job (one
sample, run by a worker), executors (local pool, Ray), sweep (the driver), sample_record (the
HDF5 schema), shape_features (surface points, signed distance), dataset (the reader).
Learning and serving: train_config, models (ParamNet ensemble, GeoNet), tasks, training,
metrics, export (paddle.jit.save, and onnx_export: paddle2onnx), predictor (one set of checks)
with its runtimes runtime_paddle (paddle.inference) and runtime_onnx (onnxruntime), profile
(TensorRT's shapes), errors, triton and serve (`python -m surrogate.serve triton`: a Triton model
repository).
"""

import warnings

# Paddle warns at import that ccache is missing: it matters only for compiling Paddle's C++
# extensions, which this project never does.
warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)
