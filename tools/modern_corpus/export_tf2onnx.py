"""tf2onnx exports of TensorFlow/Keras control flow, for tools/modern_corpus/generate.py.

Runs in tools/modern_corpus/.venv-tf (tensorflow-cpu and tf2onnx, pinned in generate.sh: tf2onnx pins an old
protobuf, hence an environment of its own). Writes STAGE/<stem>.onnx and STAGE/<stem>.json (source and exporter),
nothing else; the judging is generate.py's, with the newest onnx and ONNX Runtime. Random weights (seeded), nothing
downloaded (keras.applications with weights=None).

Usage: .venv-tf/bin/python export_tf2onnx.py STAGE
"""

import os
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf2onnx  # noqa: E402

from staging import stage_export  # noqa: E402

STAGE = sys.argv[1]
os.makedirs(STAGE, exist_ok=True)
EXPORTER = {"tensorflow": tf.__version__, "tf2onnx": tf2onnx.__version__,
            "exporter": "tf2onnx.convert.from_keras / from_function"}
OPSETS = (13, 17, 18)


def seed():
    tf.keras.utils.set_random_seed(0)  # Python, NumPy and TF: the same weights on every run


# ---------------------------------------------------------------------------------------------------- the models


class GatedBlock(tf.keras.Model):
    """A conv stem (no activation: its mean has either sign), then a residual Dense block with LayerNormalization or a plain scale, chosen by the data."""

    def __init__(self):
        super().__init__()
        self.stem = tf.keras.layers.Conv2D(8, 3, padding="same")
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.norm = tf.keras.layers.LayerNormalization()
        self.dense = tf.keras.layers.Dense(8, activation="gelu")
        self.head = tf.keras.layers.Dense(4)

    def call(self, x):
        y = self.pool(self.stem(x))
        y = tf.cond(tf.reduce_mean(y) > 0, lambda: y + self.dense(self.norm(y)), lambda: y * 0.5)
        return self.head(y)


def decode_loop(h0):
    """A greedy decoding loop with a data-dependent trip count: step the state until it fades (max <= 0.2) or 16
    steps, damping a state that saturates (a tf.cond inside the loop body), and collect each step's argmax token in
    a TensorArray (tf2onnx writes the loop as an ONNX Loop, the token list as its scan output or a sequence)."""
    w = tf.constant(np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32) * 0.7)

    def body(i, h, tokens):
        h = tf.tanh(tf.matmul(h, w))
        h = tf.cond(tf.reduce_max(h) > 0.9, lambda: h * 0.8, lambda: h)
        return i + 1, h, tokens.write(i, tf.argmax(h, axis=-1, output_type=tf.int32)[0])

    def keep_going(i, h, tokens):
        return tf.logical_and(i < 16, tf.reduce_max(h) > 0.2)

    tokens = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    i, h, tokens = tf.while_loop(keep_going, body, (tf.constant(0), h0, tokens))
    return h, i, tokens.stack()


def differing_shapes(x):
    """A tf.cond whose branches give different shapes: relu(x) [N, 6], or the mean of its first two columns [N, 1];
    both broadcast against a [6] scale downstream."""
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.nn.relu(x), lambda: tf.reduce_mean(x[:, :2], axis=1, keepdims=True))
    return y, y * tf.range(1.0, 7.0)


def differing_ranks(x):
    """A tf.cond whose branches give different ranks: x flattened [6], or x [2, 3]; reshaped to [2, 3] downstream."""
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reshape(x, [-1]), lambda: x)
    return tf.reshape(y, [2, -1]), tf.shape(y)


def nested_cond(x):
    """A tf.cond inside a tf.cond branch: the inner If reads the outer graph's input from two levels up."""
    return tf.cond(tf.reduce_sum(x) > 0,
                   lambda: tf.cond(tf.reduce_max(x) > 2.0, lambda: x * 2.0, lambda: x + 1.0),
                   lambda: -x)


def growing_decode(h0):
    """A decoding loop whose token sequence grows by one column a step (tf.concat under a shape invariant [1, None]):
    a loop-carried value of a different shape on every iteration."""
    w = tf.constant(np.random.default_rng(1).standard_normal((8, 8)).astype(np.float32))

    def body(i, h, seq):
        h = tf.tanh(tf.matmul(h, w))
        return i + 1, h, tf.concat([seq, tf.argmax(h, axis=-1, output_type=tf.int32)[:, None]], axis=1)

    def keep_going(i, h, seq):
        return tf.logical_and(i < 12, tf.reduce_max(h) > 0.3)

    invariants = (tf.TensorShape([]), tf.TensorShape([1, 8]), tf.TensorShape([1, None]))
    _, _, seq = tf.while_loop(keep_going, body, (tf.constant(0), h0, tf.zeros((1, 0), tf.int32)),
                              shape_invariants=invariants)
    return seq


def map_fn_cond(x):
    """tf.map_fn over the rows, each row through a tf.cond: a Loop whose body holds an If, its result a scan output."""
    return tf.map_fn(lambda r: tf.cond(tf.reduce_sum(r) > 0, lambda: r * 2.0, lambda: -r), x)


def boolean_mask_cond(x):
    """A tf.cond whose then branch keeps the positive elements (tf.boolean_mask: NonZero, a data-dependent length) and
    whose else branch flattens x."""
    return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.boolean_mask(x, x > 0), lambda: tf.reshape(x, [-1]))


def lstm_masked():
    """A Keras functional model: Embedding with mask_zero, LSTM, Dense (tf2onnx writes the masked LSTM as a Loop)."""
    ids = tf.keras.Input((None,), dtype="int32", name="ids")
    h = tf.keras.layers.LSTM(8)(tf.keras.layers.Embedding(128, 8, mask_zero=True)(ids))
    return tf.keras.Model(ids, tf.keras.layers.Dense(3)(h))


def switch_case(x):
    """tf.switch_case on an index computed from the data: three branches of different arithmetic."""
    k = tf.cast(tf.math.floormod(tf.reduce_sum(tf.cast(x > 0, tf.int32)), 3), tf.int32)
    return tf.switch_case(k, [lambda: x * 2.0, lambda: tf.nn.sigmoid(x), lambda: tf.reduce_max(x, axis=0) + x])


def tta_mobilenet():
    """keras.applications MobileNetV3Small (random weights, width 0.35, minimalistic, no top) with test-time augmentation:
    the image flipped left-right or not, chosen by the data."""
    net = tf.keras.applications.MobileNetV3Small(input_shape=(32, 32, 3), alpha=0.35, minimalistic=True,
                                                  include_top=False, weights=None, include_preprocessing=False,
                                                  pooling="avg")

    @tf.function(input_signature=[tf.TensorSpec((1, 32, 32, 3), tf.float32, name="image")])
    def f(image):
        flipped = tf.cond(tf.reduce_mean(image) > 0, lambda: tf.image.flip_left_right(image), lambda: image)
        return tf.identity(net(flipped, training=False), name="features")

    return f


# ---------------------------------------------------------------------------------------------------- the driver


def save(stem, source, opset, export):
    meta = {"stem": stem, "source": source, "exporter": dict(EXPORTER, opset=opset)}

    def run(path):
        seed()
        export(path, opset)

    stage_export(STAGE, stem, meta, run)

def export_gated(path, opset):
    model = GatedBlock()
    spec = (tf.TensorSpec((None, 8, 8, 3), tf.float32, name="x"),)
    model(tf.zeros((1, 8, 8, 3)))  # builds the layers
    tf2onnx.convert.from_keras(model, input_signature=spec, opset=opset, output_path=path)


def export_fn(fn, spec):
    def export(path, opset):
        tf2onnx.convert.from_function(tf.function(fn), input_signature=spec, opset=opset, output_path=path)

    return export


def export_lstm(path, opset):
    tf2onnx.convert.from_keras(lstm_masked(), opset=opset, output_path=path)


def export_tta(path, opset):
    f = tta_mobilenet()
    tf2onnx.convert.from_function(f, input_signature=f.input_signature, opset=opset, output_path=path)


for opset in OPSETS:
    save(f"tf2onnx_keras_gated_block_opset{opset}",
         {"architecture": "Keras Model subclass: Conv2D stem + tf.cond(reduce_mean > 0, LayerNormalization + Dense "
                          "residual, x * 0.5) + Dense head",
          "config": "3->8 channels, Dense 8 (gelu), head 4, input Nx8x8x3"}, opset, export_gated)
    save(f"tf2onnx_while_decode_opset{opset}",
         {"architecture": "tf.while_loop: h = tanh(h W) until max(h) <= 0.2 or 16 steps (data-dependent trip "
                          "count), a tf.cond damping h in the body, argmax tokens in a TensorArray",
          "config": "hidden 8, input 1x8"}, opset,
         export_fn(decode_loop, (tf.TensorSpec((1, 8), tf.float32, name="h0"),)))
    save(f"tf2onnx_cond_differing_shapes_opset{opset}",
         {"architecture": "tf.cond whose branches give different shapes: relu(x) [N,6] or mean(x[:, :2]) [N,1], "
                          "broadcast against a [6] scale",
          "config": "input Nx6"}, opset,
         export_fn(differing_shapes, (tf.TensorSpec((None, 6), tf.float32, name="x"),)))
    save(f"tf2onnx_cond_differing_ranks_opset{opset}",
         {"architecture": "tf.cond whose branches give different ranks: reshape(x, [-1]) [6] or x [2,3], reshaped "
                          "to [2,-1] downstream",
          "config": "input 2x3"}, opset,
         export_fn(differing_ranks, (tf.TensorSpec((2, 3), tf.float32, name="x"),)))
    save(f"tf2onnx_nested_cond_opset{opset}",
         {"architecture": "tf.cond(sum > 0, tf.cond(max > 2, x * 2, x + 1), -x)",
          "config": "input Nx4"}, opset,
         export_fn(nested_cond, (tf.TensorSpec((None, 4), tf.float32, name="x"),)))
    save(f"tf2onnx_while_growing_sequence_opset{opset}",
         {"architecture": "tf.while_loop decoding until max(h) <= 0.3 or 12 steps, the token sequence growing by "
                          "tf.concat (shape invariant [1, None])",
          "config": "hidden 8, input 1x8"}, opset,
         export_fn(growing_decode, (tf.TensorSpec((1, 8), tf.float32, name="h0"),)))
    save(f"tf2onnx_map_fn_cond_opset{opset}",
         {"architecture": "tf.map_fn over rows of tf.cond(sum(row) > 0, row * 2, -row)", "config": "input Nx4"},
         opset, export_fn(map_fn_cond, (tf.TensorSpec((None, 4), tf.float32, name="x"),)))
    save(f"tf2onnx_cond_boolean_mask_opset{opset}",
         {"architecture": "tf.cond(sum > 0, tf.boolean_mask(x, x > 0), reshape(x, [-1])): a branch of data-dependent "
                          "length", "config": "input Nx4"},
         opset, export_fn(boolean_mask_cond, (tf.TensorSpec((None, 4), tf.float32, name="x"),)))
    save(f"tf2onnx_keras_lstm_masked_opset{opset}",
         {"architecture": "Keras functional model: Embedding(mask_zero=True) + LSTM + Dense",
          "config": "vocab 128, embedding 8, LSTM 8, 3 outputs, input ids NxT"}, opset, export_lstm)
    save(f"tf2onnx_switch_case_opset{opset}",
         {"architecture": "tf.switch_case on (count of x > 0) mod 3: x * 2, sigmoid(x), max(x, axis 0) + x",
          "config": "input Nx5"}, opset,
         export_fn(switch_case, (tf.TensorSpec((None, 5), tf.float32, name="x"),)))
    save(f"tf2onnx_mobilenetv3_tta_opset{opset}",
         {"architecture": "keras.applications MobileNetV3Small (weights=None) behind tf.cond(reduce_mean > 0, "
                          "flip_left_right, identity)",
          "config": "alpha 0.35, minimalistic, no top, avg pooling, input 1x32x32x3"}, opset, export_tta)
