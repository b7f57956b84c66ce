"""Makes the int8 variant of an exported reader: its convolutions (80% of the reader's time)
quantized per output channel, with activation ranges calibrated on training cells.

    cargo run --release --bin scoresheet-synth -- --games ../shared/data/games/masters.pgn.gz \
        --part training --lang all --cells --count 4000 --seed 201 --out /tmp/cells-calib
    python3 training/quantize.py --model models/reader.onnx --cells /tmp/cells-calib \
        --out models/reader-int8

writes models/reader-int8.onnx and, beside it, a copy of the reader's card naming it. The
weights keep 7 bits of the 8 (onnxruntime's `reduce_range`): on x86 CPUs without VNNI
(AVX2 only, as AMD Zen 3) onnxruntime multiplies u8 activations by s8 weights in pairs summed
into saturating 16-bit lanes, and full-range weights overflow them, which cost the reader a
point of exact cells there (models/README.md); 7-bit weights cannot overflow them. The
LSTM and the output layer stay float: quantizing them saves little time and costs accuracy.
Needs numpy and onnxruntime (`pip install onnxruntime==1.31.1`). models/README.md gives the
variant's speed and accuracy beside the float reader's.
"""

import argparse
import json
import os
import tempfile

import numpy as np
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process


class TrainingCells(CalibrationDataReader):
    """Batches of training cells as the reader's input: ink = (255 - grey) / 255."""

    def __init__(self, folder, input_name, batches, batch_size=64):
        shard = sorted(n for n in os.listdir(folder) if n.startswith("cells-") and n.endswith(".npy"))[0]
        self.cells = np.load(os.path.join(folder, shard), mmap_mode="r")
        self.input_name = input_name
        self.batch_size = batch_size
        self.batches = min(batches, len(self.cells) // batch_size)
        self.next_batch = 0

    def get_next(self):
        if self.next_batch >= self.batches:
            return None
        start = self.next_batch * self.batch_size
        self.next_batch += 1
        grey = self.cells[start : start + self.batch_size].astype(np.float32)
        return {self.input_name: ((255.0 - grey) / 255.0)[:, None]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="an exported reader (.onnx, its .json beside it)")
    parser.add_argument("--cells", required=True, help="a `scoresheet-synth --cells --part training` folder")
    parser.add_argument("--out", required=True, metavar="STEM", help="write STEM.onnx and STEM.json")
    parser.add_argument("--batches", type=int, default=8, help="calibration batches of 64 cells")
    parser.add_argument(
        "--full-range",
        action="store_true",
        help="8-bit weights (the default keeps them to 7 bits: x86 CPUs without VNNI multiply "
        "u8 x s8 pairs into saturating 16-bit sums, which full-range weights overflow)",
    )
    args = parser.parse_args()

    with open(os.path.splitext(args.model)[0] + ".json", encoding="utf-8") as f:
        card = json.load(f)
    with tempfile.TemporaryDirectory() as scratch:
        prepared = os.path.join(scratch, "prepared.onnx")
        quant_pre_process(args.model, prepared)
        quantize_static(
            prepared,
            args.out + ".onnx",
            TrainingCells(args.cells, card["input"]["name"], args.batches),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            op_types_to_quantize=["Conv"],
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            reduce_range=not args.full_range,
        )
    card["name"] = os.path.basename(args.out)
    card["version"] += ", convolutions int8" + ("" if args.full_range else " (7-bit weights)")
    with open(args.out + ".json", "w", encoding="utf-8") as f:
        json.dump(card, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(f"wrote {args.out}.onnx ({os.path.getsize(args.out + '.onnx')} bytes) and {args.out}.json")


if __name__ == "__main__":
    main()
