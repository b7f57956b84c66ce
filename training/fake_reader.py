"""Writes the tiny ONNX model the Rust tests use in place of the real cell reader.

It has the real reader's interface -- input `image` (N x 1 x 48 x 192, ink = (255 - grey) / 255),
output `log_probs` (N x T x C, log-softmax over the blank and the charset) -- but a rule
anyone can check instead of learned weights: the cell is cut into 8 frames of 24 columns, and a
frame's mean ink decides its class (little ink: blank, about half: 'a', full: 'b').

    python3 training/fake_reader.py tests/data/fake-reader
writes fake-reader.onnx and fake-reader.json (needs `pip install onnx`).
"""

import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HEIGHT, WIDTH, FRAMES = 48, 192, 8
CHARSET = "ab"


def main(stem: str) -> None:
    # logits = ink * slope + offset, per class (blank, a, b).
    slope = numpy_helper.from_array(np.array([[-30.0, 0.0, 36.0]], dtype=np.float32), "slope")
    offset = numpy_helper.from_array(np.array([12.0, 6.0, -18.0], dtype=np.float32), "offset")
    shape = numpy_helper.from_array(np.array([0, FRAMES, 1], dtype=np.int64), "frames_shape")
    nodes = [
        helper.make_node(
            "AveragePool",
            ["image"],
            ["pooled"],
            kernel_shape=[HEIGHT, WIDTH // FRAMES],
            strides=[HEIGHT, WIDTH // FRAMES],
        ),
        helper.make_node("Reshape", ["pooled", "frames_shape"], ["ink"]),
        helper.make_node("MatMul", ["ink", "slope"], ["scaled"]),
        helper.make_node("Add", ["scaled", "offset"], ["logits"]),
        helper.make_node("LogSoftmax", ["logits"], ["log_probs"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "fake-reader",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 1, HEIGHT, WIDTH])],
        [helper.make_tensor_value_info("log_probs", TensorProto.FLOAT, ["batch", FRAMES, len(CHARSET) + 1])],
        [slope, offset, shape],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, f"{stem}.onnx")
    card = {
        "name": "fake-reader",
        "version": "test",
        "input": {"name": "image", "height": HEIGHT, "width": WIDTH, "ink": "(255 - grey) / 255"},
        "output": {"name": "log_probs", "blank": 0},
        "charset": CHARSET,
    }
    with open(f"{stem}.json", "w", encoding="utf-8") as f:
        json.dump(card, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/fake-reader")
