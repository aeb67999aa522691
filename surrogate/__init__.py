"""Neural surrogate (PaddlePaddle): dataset schema and generation sweep, ParamNet and GeoNet,
training, export with paddle.jit.save, and the paddle.inference Predictor. Filled by the dataset
and surrogate issues."""
