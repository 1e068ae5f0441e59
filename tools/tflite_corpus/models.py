"""The models of corpus-tflite/: TF2 tf.functions with control flow v2 (tf.cond, tf.while_loop, tf.switch_case).

Each generator returns a Model: the tf.function (with an input_signature), and data sets. A data set is
(label, {argument name: numpy array}); the label says which branch of each IF it takes (or the WHILE's trip
count), computed here in Python from the input values. Random weights come from numpy with fixed seeds.
"""
import dataclasses

import numpy as np
import tensorflow as tf


@dataclasses.dataclass
class Model:
    name: str
    fn: object          # tf.function with input_signature
    datasets: list      # [(label, {arg: np.ndarray})]
    notes: str = ""
    keep: tuple = ()    # objects whose variables the function captures (Keras models)
    report_shapes: bool = False   # gen.py notes the IF / WHILE output shapes (converter and interpreter)


def rng(seed):
    return np.random.default_rng(seed)


def w(seed, *shape, scale=0.5):
    return tf.constant((rng(seed).standard_normal(shape) * scale).astype(np.float32))


def f32(*vals, shape=None):
    a = np.array(vals, dtype=np.float32)
    return a.reshape(shape) if shape is not None else a


B = lambda v: np.array(v, dtype=np.bool_)          # scalar bool, shape []
I = lambda v: np.array(v, dtype=np.int32)          # scalar int32, shape []
S = tf.TensorSpec


def cond_bool_input():
    @tf.function(input_signature=[S([], tf.bool), S([1, 4], tf.float32)])
    def f(c, x):
        return tf.cond(c, lambda: x * 2.0, lambda: x - 1.0)
    x = f32(1, -2, 3, 0.5, shape=(1, 4))
    return Model("cond_bool_input", f, [("then", {"c": B(True), "x": x}), ("else", {"c": B(False), "x": x})],
                 "tf.cond on a bool scalar input: then x*2, else x-1")


def cond_computed():
    @tf.function(input_signature=[S([1, 4], tf.float32)])
    def f(x):
        return tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.nn.relu(x) + 1.0, lambda: tf.tanh(x) * 3.0)
    return Model("cond_computed", f, [("then", {"x": f32(1, 2, -0.5, 0.25, shape=(1, 4))}),
                                      ("else", {"x": f32(-1, -2, 0.5, 0.25, shape=(1, 4))})],
                 "condition reduce_sum(x) > 0 computed in the main graph")


def cond_nested():
    @tf.function(input_signature=[S([], tf.bool), S([], tf.bool), S([1, 4], tf.float32)])
    def f(c1, c2, x):
        def outer_then():
            return tf.cond(c2, lambda: x + 1.0, lambda: x * 3.0)
        return tf.cond(c1, outer_then, lambda: x - 2.0)
    x = f32(0.5, -1, 2, 4, shape=(1, 4))
    return Model("cond_nested", f, [
        ("outer=then,inner=then", {"c1": B(True), "c2": B(True), "x": x}),
        ("outer=then,inner=else", {"c1": B(True), "c2": B(False), "x": x}),
        ("outer=else", {"c1": B(False), "c2": B(True), "x": x})],
        "a tf.cond inside the then branch of another")


def cond_two_outputs():
    @tf.function(input_signature=[S([], tf.bool), S([1, 4], tf.float32)])
    def f(c, x):
        return tf.cond(c, lambda: (x + 1.0, tf.reduce_sum(x)), lambda: (x * 2.0, tf.reduce_mean(x)))
    x = f32(1, 2, 3, 4, shape=(1, 4))
    return Model("cond_two_outputs", f, [("then", {"c": B(True), "x": x}), ("else", {"c": B(False), "x": x})],
                 "branches return 2 outputs ([1,4] and a scalar)")


def cond_unused_inputs():
    @tf.function(input_signature=[S([], tf.bool), S([1, 4], tf.float32), S([1, 4], tf.float32)])
    def f(c, x, y):
        return tf.cond(c, lambda: x * 2.0, lambda: y - 1.0)
    x, y = f32(1, 2, 3, 4, shape=(1, 4)), f32(-1, -2, -3, -4, shape=(1, 4))
    return Model("cond_unused_inputs", f, [("then", {"c": B(True), "x": x, "y": y}),
                                           ("else", {"c": B(False), "x": x, "y": y})],
                 "then uses x only, else y only (are unused branch inputs kept?)")


def cond_mixed_types():
    @tf.function(input_signature=[S([1, 4], tf.float32), S([1, 4], tf.int32)])
    def f(x, k):
        c = tf.less(tf.reduce_max(x), 2.0)
        return tf.cond(c, lambda: (tf.cast(k, tf.float32) * x, k + 1),
                       lambda: (tf.nn.sigmoid(x), k * tf.cast(x, tf.int32)))
    k = np.array([[1, 2, 3, 4]], dtype=np.int32)
    return Model("cond_mixed_types", f, [("then", {"x": f32(0.5, 1, 1.5, -1, shape=(1, 4)), "k": k}),
                                         ("else", {"x": f32(3, 1, 1.5, -1, shape=(1, 4)), "k": k})],
                 "LESS condition; branches give a float32 and an int32 output, CAST inside")


def while_counter():
    @tf.function(input_signature=[S([], tf.int32), S([1, 4], tf.float32)])
    def f(n, x):
        _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * 1.5 + 1.0), [tf.constant(0), x])
        return y
    x = f32(1, -1, 0.5, 2, shape=(1, 4))
    return Model("while_counter", f, [(f"trips={t}", {"n": I(t), "x": x}) for t in (0, 1, 4)],
                 "counter loop i < n (n an input)")


def while_tensor_state():
    @tf.function(input_signature=[S([1, 4], tf.float32)])
    def f(x):
        i, y = tf.while_loop(lambda i, y: tf.reduce_sum(tf.abs(y)) < 100.0,
                             lambda i, y: (i + 1, y * 2.0 + 1.0), [tf.constant(0), x],
                             maximum_iterations=20)
        return i, y
    ds = []
    for x in (f32(60, 50, 0, 0, shape=(1, 4)), f32(10, 10, 10, 10, shape=(1, 4)), f32(0.5, 0.5, 0.5, 0.5, shape=(1, 4))):
        y, t = x.copy(), 0
        while np.abs(y).sum() < 100 and t < 20:
            y, t = y * 2 + 1, t + 1
        ds.append((f"trips={t}", {"x": x}))
    return Model("while_tensor_state", f, ds,
                 "loop while sum(|y|) < 100, maximum_iterations=20; returns the trip count and the state")


def switch_case3():
    @tf.function(input_signature=[S([], tf.int32), S([1, 4], tf.float32)])
    def f(idx, x):
        return tf.switch_case(idx, [lambda: tf.nn.relu(x), lambda: tf.tanh(x), lambda: tf.nn.sigmoid(x) * 2.0])
    x = f32(-1, 0.5, 2, -3, shape=(1, 4))
    return Model("switch_case3", f, [(f"case={k}", {"idx": I(k), "x": x}) for k in (0, 1, 2)],
                 "tf.switch_case with 3 branches (idx 0, 1, 2)")


def switch_case3_as_conds():
    @tf.function(input_signature=[S([], tf.int32), S([1, 4], tf.float32)])
    def f(idx, x):
        return tf.cond(tf.equal(idx, 0), lambda: tf.nn.relu(x),
                       lambda: tf.cond(tf.equal(idx, 1), lambda: tf.tanh(x), lambda: tf.nn.sigmoid(x) * 2.0))
    x = f32(-1, 0.5, 2, -3, shape=(1, 4))
    return Model("switch_case3_as_conds", f, [("case=0(outer=then)", {"idx": I(0), "x": x}),
                                              ("case=1(outer=else,inner=then)", {"idx": I(1), "x": x}),
                                              ("case=2(outer=else,inner=else)", {"idx": I(2), "x": x})],
                 "switch_case3 written by hand as nested tf.cond (EQUAL conditions), since tf.switch_case does not convert")


class GateLayer(tf.keras.layers.Layer):
    """A custom Keras layer with a tf.cond: softmax of its input when its mean is > 0, else 0.5 * input."""
    def call(self, h):
        return tf.cond(tf.reduce_mean(h) > 0.0, lambda: tf.nn.softmax(h), lambda: h * 0.5)


class GatedNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(6, kernel_initializer=tf.keras.initializers.RandomNormal(seed=1),
                                        bias_initializer="zeros")
        self.gate = GateLayer()
        self.d2 = tf.keras.layers.Dense(3, kernel_initializer=tf.keras.initializers.RandomNormal(seed=2))

    def call(self, x):
        return self.d2(self.gate(self.d1(x)))


def keras_cond_layer():
    net = GatedNet()
    net(np.zeros((1, 4), np.float32))
    # Bias of d1 so that the sign of the mean is set by the input; chosen data sets below are checked in gen.py
    net.d1.bias.assign(np.zeros(6, np.float32))

    @tf.function(input_signature=[S([1, 4], tf.float32)])
    def f(x):
        return net(x)
    k = net.d1.kernel.numpy()
    s = k.sum(axis=1)        # mean of d1(x) = x . s / 6
    xp = (np.sign(s) * 1.0).reshape(1, 4).astype(np.float32)
    return Model("keras_cond_layer", f, [("then", {"x": xp}), ("else", {"x": -xp})],
                 "Keras subclassed model: Dense -> custom layer with tf.cond (softmax / *0.5) -> Dense", keep=(net,))


def while_with_cond():
    @tf.function(input_signature=[S([], tf.int32), S([1, 4], tf.float32)])
    def f(n, x):
        def body(i, y):
            y = tf.cond(tf.equal(tf.math.floormod(i, 2), 0), lambda: y + 1.0, lambda: y * 2.0)
            return i + 1, y
        _, y = tf.while_loop(lambda i, y: i < n, body, [tf.constant(0), x])
        return y
    x = f32(1, 2, -1, 0, shape=(1, 4))
    lab = lambda t: f"trips={t}(" + ",".join("then" if i % 2 == 0 else "else" for i in range(t)) + ")"
    return Model("while_with_cond", f, [(lab(t), {"n": I(t), "x": x}) for t in (0, 1, 3)],
                 "a tf.cond (i % 2 == 0) in the while body")


def while_nested():
    @tf.function(input_signature=[S([], tf.int32), S([], tf.int32), S([1, 4], tf.float32)])
    def f(n, m, x):
        def outer_body(i, y):
            _, y = tf.while_loop(lambda j, z: j < m, lambda j, z: (j + 1, z + 0.5), [tf.constant(0), y])
            return i + 1, y * 1.1
        _, y = tf.while_loop(lambda i, y: i < n, outer_body, [tf.constant(0), x])
        return y
    x = f32(1, 2, 3, 4, shape=(1, 4))
    return Model("while_nested", f, [(f"outer={a},inner={b}", {"n": I(a), "m": I(b), "x": x})
                                     for a, b in ((0, 2), (2, 0), (2, 3))],
                 "a while loop inside a while body")


def cond_conv_dense():
    k1, b1 = w(10, 3, 3, 3, 4), w(11, 4)
    wd = w(12, 8 * 8 * 4, 5, scale=0.05)
    wm = w(13, 3, 5)

    @tf.function(input_signature=[S([], tf.bool), S([1, 8, 8, 3], tf.float32)])
    def f(c, x):
        def then():
            h = tf.nn.relu(tf.nn.conv2d(x, k1, 1, "SAME") + b1)
            return tf.matmul(tf.reshape(h, [1, -1]), wd)
        def els():
            return tf.tanh(tf.matmul(tf.reduce_mean(x, axis=[1, 2]), wm))
        return tf.cond(c, then, els)
    x = (rng(14).standard_normal((1, 8, 8, 3))).astype(np.float32)
    return Model("cond_conv_dense", f, [("then", {"c": B(True), "x": x}), ("else", {"c": B(False), "x": x})],
                 "TF source: then conv2d+bias+relu+reshape+matmul, else reduce_mean+matmul+tanh, weights captured by the branches "
                 "(the converter passes them from the main graph as IF inputs)")


def cond_concat_softmax():
    @tf.function(input_signature=[S([1, 4], tf.float32), S([1, 4], tf.float32)])
    def f(x, y):
        return tf.cond(tf.reduce_sum(x - y) > 0.0,
                       lambda: tf.nn.softmax(tf.concat([x, y], axis=1)),
                       lambda: tf.reshape(tf.transpose(tf.reshape(tf.concat([y, x], 1), [2, 4])), [1, 8]))
    return Model("cond_concat_softmax", f, [
        ("then", {"x": f32(3, 2, 1, 0, shape=(1, 4)), "y": f32(0, 0, 0, 0, shape=(1, 4))}),
        ("else", {"x": f32(0, 0, 0, 0, shape=(1, 4)), "y": f32(3, 2, 1, 0, shape=(1, 4))})],
        "TF source: then concat+softmax, else concat+reshape+transpose+reshape; condition on sum(x-y)")


def cond_gather_slice():
    @tf.function(input_signature=[S([1, 6], tf.float32), S([3], tf.int32)])
    def f(x, idx):
        return tf.cond(tf.greater(idx[0], 2), lambda: tf.gather(x, idx, axis=1), lambda: x[:, 1:4] * 10.0)
    x = f32(0, 1, 2, 3, 4, 5, shape=(1, 6))
    return Model("cond_gather_slice", f, [("then", {"x": x, "idx": np.array([5, 0, 3], np.int32)}),
                                          ("else", {"x": x, "idx": np.array([1, 2, 3], np.int32)})],
                 "TF source: condition idx[0] > 2; then gather, else x[:, 1:4] * 10")


def cond_dynamic_batch():
    wt = w(20, 4, 3)

    @tf.function(input_signature=[S([None, 4], tf.float32)])
    def f(x):
        return tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.matmul(x, wt) + 1.0, lambda: tf.matmul(-x, wt) * 2.0)
    a = (np.abs(rng(21).standard_normal((2, 4)))).astype(np.float32)
    b = -(np.abs(rng(22).standard_normal((3, 4)))).astype(np.float32)
    return Model("cond_dynamic_batch", f, [("then(batch=2)", {"x": a}), ("else(batch=3)", {"x": b}),
                                           ("then(batch=1)", {"x": a[:1]})],
                 "input [-1,4] (dynamic batch); the interpreter is resized to each data set's batch")


def while_dynamic_batch():
    wt = w(30, 4, 4)

    @tf.function(input_signature=[S([None, 4], tf.float32), S([], tf.int32)])
    def f(x, n):
        _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, tf.tanh(tf.matmul(y, wt))), [tf.constant(0), x])
        return y
    x = rng(31).standard_normal((3, 4)).astype(np.float32)
    return Model("while_dynamic_batch", f, [("trips=0(batch=3)", {"x": x, "n": I(0)}),
                                            ("trips=3(batch=3)", {"x": x, "n": I(3)}),
                                            ("trips=2(batch=1)", {"x": x[:1], "n": I(2)})],
                 "while loop over a [-1,4] state (dynamic batch) with FULLY_CONNECTED+TANH in the body")


def cond_sub_logistic():
    @tf.function(input_signature=[S([], tf.float32), S([2, 3], tf.float32)])
    def f(t, x):
        return tf.cond(tf.less(t, 0.5), lambda: tf.nn.sigmoid(x - t), lambda: tf.reduce_sum(x, axis=1, keepdims=True) - x)
    x = f32(1, 2, 3, -1, -2, -3, shape=(2, 3))
    return Model("cond_sub_logistic", f, [("then", {"t": np.array(0.0, np.float32), "x": x}),
                                          ("else", {"t": np.array(1.0, np.float32), "x": x})],
                 "TF source: float scalar t < 0.5; then sigmoid(x - t), else reduce_sum(x, 1) - x")


def cond_branch_shapes_differ():
    @tf.function(input_signature=[S([], tf.bool), S([1, 4], tf.float32)])
    def f(c, x):
        return tf.cond(c, lambda: x[:, :2] * 2.0, lambda: x + 1.0)
    x = f32(1, -2, 3, 0.5, shape=(1, 4))
    return Model("cond_branch_shapes_differ", f, [("then(out=[1,2])", {"c": B(True), "x": x}),
                                                  ("else(out=[1,4])", {"c": B(False), "x": x})],
                 "TF source: then x[:, :2] * 2 ([1,2]), else x + 1 ([1,4]): the branches' static shapes differ",
                 report_shapes=True)


def while_growing_state():
    @tf.function(input_signature=[S([], tf.int32), S([1, 4], tf.float32)])
    def f(n, x):
        _, s = tf.while_loop(lambda i, s: i < n,
                             lambda i, s: (i + 1, tf.concat([s, x * tf.cast(i + 2, tf.float32)], 0)),
                             [tf.constant(0), x], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 4])])
        return s
    x = f32(1, -2, 3, 0.5, shape=(1, 4))
    return Model("while_growing_state", f, [(f"trips={t}(out=[{t + 1},4])", {"n": I(t), "x": x}) for t in (0, 1, 3)],
                 "TF source: loop value s grows each trip, s = concat([s, x * (i + 2)], 0), "
                 "shape_invariants [None, 4] (s starts as x [1,4])", report_shapes=True)


ALL = [cond_bool_input, cond_computed, cond_nested, cond_two_outputs, cond_unused_inputs, cond_mixed_types,
       while_counter, while_tensor_state, switch_case3, switch_case3_as_conds, keras_cond_layer, while_with_cond, while_nested,
       cond_conv_dense, cond_concat_softmax, cond_gather_slice, cond_dynamic_batch, while_dynamic_batch,
       cond_sub_logistic, cond_branch_shapes_differ, while_growing_state]
