"""Trains the cell reader: a small CNN + BiLSTM read with CTC, on labelled cell crops made by
`scoresheet-synth --cells`, and exports it as one ONNX file with its card for
`scoresheet::recognize::Reader`.

    G=../shared/data/games/masters.pgn.gz
    scoresheet-synth --games $G --cells --count 160000 --lang all --seed 11 --part training \
        --out /tmp/cells-train-all
    scoresheet-synth --games $G --cells --count 100000 --lang en --seed 12 --part training \
        --out /tmp/cells-train-en
    scoresheet-synth --games $G --cells --count 6000 --lang all --seed 2 --part validation \
        --out /tmp/cells-val
    python3 training/train.py --train /tmp/cells-train-all /tmp/cells-train-en \
        --val /tmp/cells-val --run training/runs/reader --steps 8000 --save-every 500
    python3 training/train.py --run training/runs/reader --export models/reader

A later run can start from an exported reader instead of random weights (fresh cells, a lower
learning rate), which is how the shipped model was refined (models/README.md):

    python3 training/train.py --train ... --val /tmp/cells-val --run training/runs/reader2 \
        --init-onnx models/reader.onnx --lr 1e-3 --steps 5500 --save-every 500

A narrower reader (the same layers, fewer channels: `--channels`, `--hidden`) can learn from
an exported one: `--teacher` adds to the CTC loss the divergence of its posteriors from the
teacher's on the same augmented cells, and `--prune` starts it from the teacher's own weights,
each layer keeping the channels the next draws most on:

    python3 training/train.py --train ... --val /tmp/cells-val --run /tmp/reader20 \
        --channels 16,32,64,96 --teacher models/reader.onnx --prune --lr 1e-3 --steps 3000

--part keeps validation writers apart: their glyph samples and font families are never trained
on. models/README.md records what the shipped model was trained with and how well it reads.

Checkpoints go to RUN/checkpoint.pt every --save-every steps; running the same command again
resumes from it. Needs numpy and torch (CPU is enough); --export also needs onnx.
"""

import argparse
import csv
import json
import math
import os
import time

import numpy as np
import torch
from torch import nn

HEIGHT, WIDTH = 48, 192
# Characters every model knows, whatever the training labels hold.
BASE_CHARSET = "abcdefgh012345678x:-+#=()./"


def load_cells(folder):
    """(images N x 48 x 192 uint8, texts) from a `scoresheet-synth --cells` folder."""
    with open(os.path.join(folder, "labels.tsv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    shards = {}
    images = np.empty((len(rows), HEIGHT, WIDTH), dtype=np.uint8)
    for i, row in enumerate(rows):
        name = row["file"]
        if name not in shards:
            shards[name] = np.load(os.path.join(folder, name), mmap_mode="r")
        images[i] = shards[name][int(row["row"])]
    return images, [row["text"] for row in rows]


# The shipped reader's widths: the four convolution blocks' channels and the LSTM's units a
# direction. A student (`--channels`, `--hidden`) is a narrower reader of the same layers.
SHIPPED_SHAPE = {"channels": [32, 64, 96, 128], "hidden": 96}


class Reader(nn.Module):
    """1 x 48 x 192 ink -> 48 frames x classes log-probabilities."""

    def __init__(self, classes, channels=SHIPPED_SHAPE["channels"], hidden=SHIPPED_SHAPE["hidden"]):
        super().__init__()

        def block(cin, cout, pool):
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(pool),
            )

        self.shape = {"channels": [int(c) for c in channels], "hidden": int(hidden)}
        c1, c2, c3, c4 = channels
        self.features = nn.Sequential(
            block(1, c1, (2, 2)),  # 24 x 96
            block(c1, c2, (2, 2)),  # 12 x 48
            block(c2, c3, (2, 1)),  # 6 x 48
            block(c3, c4, (2, 1)),  # 3 x 48
        )
        self.squeeze = nn.Conv2d(c4, c4, (3, 1))  # 1 x 48
        self.rnn = nn.LSTM(c4, hidden, bidirectional=True, batch_first=True)
        self.out = nn.Linear(2 * hidden, classes)

    def forward(self, image):
        x = self.squeeze(self.features(image))  # N x C4 x 1 x 48
        x = x.squeeze(2).transpose(1, 2)  # N x 48 x C4
        x, _ = self.rnn(x)
        return torch.log_softmax(self.out(x), dim=-1)  # N x 48 x C


def shape_of(state):
    """The widths a checkpoint records; checkpoints from before narrower readers existed are
    the shipped shape."""
    return state.get("shape", SHIPPED_SHAPE)


def onnx_shape(onnx_path):
    """The widths of an exported reader, read off its convolutions and its LSTM."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(onnx_path).graph
    dims = {i.name: numpy_helper.to_array(i).shape for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    lstm = next(n for n in graph.node if n.op_type == "LSTM")
    return {"channels": [dims[n.input[1]][0] for n in convs[:4]], "hidden": dims[lstm.input[2]][2]}


def to_ink(images):
    return torch.from_numpy((255.0 - images.astype(np.float32)) / 255.0).unsqueeze(1)


def elastic_field(n, rng, pixels):
    """N x 48 x 192 x 2 grid offsets (grid_sample's -1..1 units) of a smooth random warp: each
    cell's letters bent, leaned and stretched on their own by up to about `pixels` crop pixels,
    as one writer's letters differ from the glyph samples they were composed of. The field
    is drawn on a coarse 4 x 9 lattice (control points about 24 pixels apart, a letter's
    width) and interpolated, so strokes bend without tearing."""
    coarse = torch.from_numpy(rng.normal(0.0, 0.5, (n, 2, 4, 9)).astype(np.float32)).clamp(-1.0, 1.0)
    scale = torch.tensor([2.0 * pixels / WIDTH, 2.0 * pixels / HEIGHT]).view(1, 2, 1, 1)
    field = nn.functional.interpolate(coarse * scale, size=(HEIGHT, WIDTH), mode="bicubic", align_corners=True)
    return field.permute(0, 2, 3, 1)


def augment(batch, rng, bilevel_share=0.0, elastic_share=0.0, elastic_pixels=3.0, fine_share=0.0,
            sharp_share=0.0):
    """What the generator leaves out, per cell: a stretch, shear and shift of the crop (cells
    found on real sheets sit a little off), for `elastic_share` of the cells a smooth warp of
    the letters' shapes (`elastic_field`), thicker or thinner strokes, blur, contrast,
    brightness and noise; for `fine_share` of the cells a fine, faint pen (strokes thinned by
    a 2 x 2 minimum and lightened to 45-90%: the real scans' ballpoint strokes are about one
    crop pixel wide and their darkest ink 0.6, where generated cells' are two pixels and 0.8);
    for `sharp_share` of the cells an unsharp mask (the real scans' stroke edges are sharper
    than the generated cells'); and, for `bilevel_share` of the cells, a bilevel scan
    (archives keep many sheets as black-and-white TIFFs): the ink cut at a threshold between
    its faint and its dark strokes, half of those softened again as the crop's resizing
    softens them."""
    n = batch.shape[0]
    f32 = lambda a: torch.from_numpy(np.asarray(a, dtype=np.float32))
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = f32(rng.uniform(0.85, 1.18, n))
    theta[:, 1, 1] = f32(rng.uniform(0.88, 1.12, n))
    theta[:, 0, 1] = f32(rng.uniform(-0.12, 0.12, n))
    theta[:, 0, 2] = f32(rng.uniform(-0.04, 0.04, n))
    theta[:, 1, 2] = f32(rng.uniform(-0.1, 0.1, n))
    grid = nn.functional.affine_grid(theta, list(batch.shape), align_corners=False)
    if elastic_share > 0.0:
        warped = f32(rng.random((n, 1, 1, 1)) < elastic_share)
        grid = grid + warped * elastic_field(n, rng, elastic_pixels)
    batch = nn.functional.grid_sample(batch, grid, padding_mode="border", align_corners=False)
    pick = lambda p: f32(rng.random((n, 1, 1, 1)) < p)
    thick = nn.functional.max_pool2d(batch, 3, 1, 1)
    thin = -nn.functional.max_pool2d(-batch, 3, 1, 1)
    blur = nn.functional.avg_pool2d(batch, 3, 1, 1, count_include_pad=False)
    # The fine and sharp pens draw from `rng` only when asked for, so that a run without them
    # sees the cells it saw before they existed.
    fine = pick(fine_share) if fine_share > 0.0 else torch.zeros(n, 1, 1, 1)
    dilate, erode, soften = pick(0.25) * (1 - fine), pick(0.12) * (1 - fine), pick(0.2)
    if fine_share > 0.0:
        thinned = -nn.functional.max_pool2d(nn.functional.pad(-batch, (0, 1, 0, 1), value=-1.0), 2, 1)
        faint = f32(rng.uniform(0.45, 0.9, (n, 1, 1, 1)))
        batch = batch + fine * (thinned * faint - batch)
    batch = batch + dilate * (thick - batch) + erode * (1 - dilate) * (thin - batch)
    batch = batch + soften * (blur - batch)
    if sharp_share > 0.0:
        sharp = pick(sharp_share) * (1 - soften)
        amount = f32(rng.uniform(0.5, 1.5, (n, 1, 1, 1)))
        edges = batch - nn.functional.avg_pool2d(batch, 3, 1, 1, count_include_pad=False)
        batch = (batch + sharp * amount * edges).clamp(0.0, 1.0)
    gain = f32(rng.uniform(0.75, 1.3, (n, 1, 1, 1)))
    bias = f32(rng.uniform(-0.04, 0.08, (n, 1, 1, 1)))
    noise = f32(rng.uniform(0.0, 0.05, (n, 1, 1, 1))) * torch.randn_like(batch)
    batch = (batch * gain + bias + noise).clamp(0.0, 1.0)
    if bilevel_share <= 0.0:
        return batch
    # Bilevel: each cell cut at a fraction of its own darkest ink, as a scanner's threshold
    # keeps the pen and drops the paper.
    darkest = batch.amax(dim=(1, 2, 3), keepdim=True).clamp(min=1e-3)
    cut = darkest * f32(rng.uniform(0.3, 0.6, (n, 1, 1, 1)))
    bilevel = (batch > cut).float()
    bilevel = bilevel + pick(0.5) * (nn.functional.avg_pool2d(bilevel, 3, 1, 1, count_include_pad=False) - bilevel)
    scanned = pick(bilevel_share)
    return batch + scanned * (bilevel - batch)


def greedy(log_probs, charset):
    texts = []
    for row in log_probs.argmax(-1).tolist():
        text, previous = [], 0
        for c in row:
            if c != 0 and c != previous:
                text.append(charset[c - 1])
            previous = c
        texts.append("".join(text))
    return texts


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


def evaluate(model, images, texts, charset, limit=4000):
    model.eval()
    exact, errors, chars = 0, 0, 0
    with torch.no_grad():
        for start in range(0, min(len(texts), limit), 256):
            batch = to_ink(images[start : start + 256])
            read = greedy(model(batch), charset)
            for got, want in zip(read, texts[start : start + 256]):
                exact += got == want
                errors += edit_distance(got, want)
                chars += max(len(want), 1)
    model.train()
    n = min(len(texts), limit)
    return {"exact": exact / max(n, 1), "cer": errors / max(chars, 1), "cells": n}


def rng_sample(n, k):
    return np.sort(np.random.default_rng(0).choice(n, min(n, k), replace=False))


def export(run, stem):
    state = torch.load(os.path.join(run, "checkpoint.pt"), map_location="cpu")
    charset = state["charset"]
    model = Reader(len(charset) + 1, **shape_of(state))
    model.load_state_dict(state["model"])
    model.eval()
    dummy = torch.zeros(1, 1, HEIGHT, WIDTH)
    torch.onnx.export(
        model,
        dummy,
        f"{stem}.onnx",
        input_names=["image"],
        output_names=["log_probs"],
        dynamic_axes={"image": {0: "batch"}, "log_probs": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    card = {
        "name": os.path.basename(stem),
        "version": (f"average of {', '.join(state['averaged'])}" if "averaged" in state
                    else f"step {state['step']}"),
        "input": {"name": "image", "height": HEIGHT, "width": WIDTH, "ink": "(255 - grey) / 255"},
        "output": {"name": "log_probs", "blank": 0},
        "charset": charset,
        "shape": model.shape,
        "metrics": state.get("metrics", {}),
    }
    if "teacher" in state:
        card["teacher"] = state["teacher"]
    with open(f"{stem}.json", "w", encoding="utf-8") as f:
        json.dump(card, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"exported {stem}.onnx ({os.path.getsize(stem + '.onnx')} bytes) at step {state['step']}")


def average(runs, out, val):
    """Writes OUT/checkpoint.pt with the mean of the runs' weights (a "model soup": fine-tunes
    of one reader average into one that reads better than either), measured on `val`."""
    states = [torch.load(os.path.join(r, "checkpoint.pt"), map_location="cpu") for r in runs]
    charset = states[0]["charset"]
    if any(s["charset"] != charset for s in states):
        raise SystemExit("the runs read different charsets: their weights cannot be averaged")
    if any(shape_of(s) != shape_of(states[0]) for s in states):
        raise SystemExit("the runs have different widths: their weights cannot be averaged")
    weights = {
        k: sum(s["model"][k] for s in states) / len(states) if v.is_floating_point() else v
        for k, v in states[-1]["model"].items()
    }
    model = Reader(len(charset) + 1, **shape_of(states[0]))
    model.load_state_dict(weights)
    metrics = evaluate(model, *load_cells(val), charset) if val else {}
    os.makedirs(out, exist_ok=True)
    torch.save(
        {"model": weights, "charset": charset, "metrics": metrics, "shape": model.shape,
         "step": states[-1]["step"], "averaged": [os.path.basename(os.path.normpath(r)) for r in runs]},
        os.path.join(out, "checkpoint.pt"),
    )
    print(f"averaged {', '.join(runs)} into {out}: {metrics}")


def warm_start(model, onnx_path, images, onnx_charset, charset):
    """Loads the weights of an exported reader (`--export` output) into `model`.

    `charset` may hold characters the exported reader's `onnx_charset` lacks (`--add-chars`):
    their output rows start at zero weight and the lowest bias of the known characters, so the
    reader starts out reading exactly as before and learns the new characters from the cells.

    The export folded each BatchNorm into the convolution before it, so each convolution gets
    the folded weight and its BatchNorm is set to add the folded bias back: its scale and
    shift are measured on `images` so that training-mode BatchNorm (batch statistics) starts
    out computing what the exported model computes. ONNX orders LSTM gates i, o, f, c where
    torch orders them i, f, c, o."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(onnx_path).graph
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}

    def conv_inputs(name):
        node = next(n for n in graph.node if n.op_type == "Conv" and n.output[0] == name)
        return weights[node.input[1]], weights[node.input[2]]

    convs = [n.output[0] for n in graph.node if n.op_type == "Conv"]
    x = to_ink(images)
    with torch.no_grad():
        for block, name in zip(model.features, convs):
            conv, norm = block[0], block[1]
            weight, bias = conv_inputs(name)
            conv.weight.copy_(weight)
            y = conv(x)
            mean, var = y.mean((0, 2, 3)), y.var((0, 2, 3), unbiased=False)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_((var + norm.eps).sqrt())
            norm.bias.copy_(mean + bias)
            x = block[3](torch.relu(y + bias.view(1, -1, 1, 1)))
        model.squeeze.weight.copy_(weights["squeeze.weight"])
        model.squeeze.bias.copy_(weights["squeeze.bias"])
        lstm = next(n for n in graph.node if n.op_type == "LSTM")
        w, r, b = (weights[lstm.input[i]] for i in (1, 2, 3))
        hidden = r.shape[2]
        order = torch.cat([torch.arange(k * hidden, (k + 1) * hidden) for k in (0, 2, 3, 1)])
        for direction, suffix in ((0, "_l0"), (1, "_l0_reverse")):
            getattr(model.rnn, "weight_ih" + suffix).copy_(w[direction][order])
            getattr(model.rnn, "weight_hh" + suffix).copy_(r[direction][order])
            getattr(model.rnn, "bias_ih" + suffix).copy_(b[direction][: 4 * hidden][order])
            getattr(model.rnn, "bias_hh" + suffix).copy_(b[direction][4 * hidden :][order])
        matmul = next(n for n in graph.node if n.op_type == "MatMul")
        out_weight, out_bias = weights[matmul.input[1]].t(), weights["out.bias"]
        old_class = {c: i + 1 for i, c in enumerate(onnx_charset)}
        rows = [0] + [old_class.get(c, -1) for c in charset]
        for new_row, old_row in enumerate(rows):
            if old_row >= 0:
                model.out.weight[new_row].copy_(out_weight[old_row])
                model.out.bias[new_row] = out_bias[old_row]
            else:
                model.out.weight[new_row].zero_()
                model.out.bias[new_row] = out_bias[1:].min()


def pruned(teacher, shape, images):
    """A reader of the narrower `shape` cut out of `teacher` (same charset and layers): each
    layer keeps the channels the next layer draws most on, a channel's worth being its mean
    activation on `images` times the size of the next layer's weights on it. Its BatchNorms
    keep the teacher's statistics for the kept channels, so it starts out reading much as the
    teacher does and distillation has only to win back what the cut channels carried."""
    student = Reader(teacher.out.out_features, shape["channels"], shape["hidden"])
    if shape["hidden"] != teacher.shape["hidden"]:
        raise SystemExit("a pruned reader keeps its teacher's LSTM units (--hidden)")
    teacher.eval()
    with torch.no_grad():
        x, means = to_ink(images), []
        for block in teacher.features:
            x = block(x)
            means.append(x.abs().mean((0, 2, 3)))
        means.append(teacher.squeeze(x).abs().mean((0, 2, 3)))
        convs = [b[0] for b in teacher.features] + [teacher.squeeze]
        users = [c.weight for c in convs[1:]] + [teacher.rnn.weight_ih_l0.view(-1, convs[-1].out_channels, 1, 1)]
        widths = shape["channels"] + [shape["channels"][-1]]
        kept = []
        for mean, user, width in zip(means, users, widths):
            worth = mean * user.abs().sum((0, 2, 3))
            kept.append(worth.argsort(descending=True)[:width].sort().values)
        previous = torch.arange(1)
        for to_block, from_block, keep in zip(student.features, teacher.features, kept):
            to_block[0].weight.copy_(from_block[0].weight[keep][:, previous])
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(to_block[1], name).copy_(getattr(from_block[1], name)[keep])
            previous = keep
        student.squeeze.weight.copy_(teacher.squeeze.weight[kept[4]][:, previous])
        student.squeeze.bias.copy_(teacher.squeeze.bias[kept[4]])
        for name, value in teacher.rnn.named_parameters():
            getattr(student.rnn, name).copy_(value[:, kept[4]] if name.startswith("weight_ih") else value)
        student.out.load_state_dict(teacher.out.state_dict())
    return student


def card_charset(onnx_path):
    """The charset of an exported reader, from the card beside it."""
    with open(os.path.splitext(onnx_path)[0] + ".json", encoding="utf-8") as f:
        return json.load(f)["charset"]


def distillation_loss(student, teacher, batch, temperature):
    """Frame by frame, the Kullback-Leibler divergence of the student's posteriors from the
    teacher's on the same cells (both N x T x C log-probabilities; the same 48 frames, since a
    student has the teacher's layers), softened by `temperature` and scaled by its square so
    the gradient keeps its size. The teacher's whole distribution, not only its best path,
    carries what it learnt: which letters it finds alike, and how sure it is, which is what
    the decoder's CTC scores of every legal move read."""
    with torch.no_grad():
        target = torch.log_softmax(teacher(batch) / temperature, dim=-1)
    soft = torch.log_softmax(student / temperature, dim=-1)
    kl = (target.exp() * (target - soft)).sum(-1)  # N x T
    return kl.mean() * temperature * temperature


def save_checkpoint(path, model, optimiser, step, charset, metrics, teacher=None):
    """Writes a run's checkpoint whole or not at all (a stopped run resumes from the last)."""
    state = {"model": model.state_dict(), "optimiser": optimiser.state_dict(), "step": step,
             "charset": charset, "metrics": metrics, "shape": model.shape}
    if teacher:
        state["teacher"] = teacher
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def train(args):
    os.makedirs(args.run, exist_ok=True)
    torch.set_num_threads(args.threads)
    parts = [load_cells(folder) for folder in args.train]
    images = np.concatenate([p[0] for p in parts])
    texts = [t for p in parts for t in p[1]]
    val_images, val_texts = load_cells(args.val)
    checkpoint_path = os.path.join(args.run, "checkpoint.pt")
    state = torch.load(checkpoint_path, map_location="cpu") if os.path.exists(checkpoint_path) else None
    onnx_charset = card_charset(args.init_onnx) if args.init_onnx else None
    if state:
        charset = state["charset"]
    elif args.init_onnx:
        charset = "".join(sorted(set(onnx_charset) | set(args.add_chars)))
    elif args.teacher:
        charset = card_charset(args.teacher)
    else:
        charset = "".join(sorted(set(BASE_CHARSET) | {c for t in texts for c in t}))
    index = {c: i + 1 for i, c in enumerate(charset)}
    keep = [i for i, t in enumerate(texts) if all(c in index for c in t)]
    # The cells that set a warm-started reader's BatchNorms and rank a pruned one's channels.
    sample = images[rng_sample(len(images), 512)]
    if state:
        model = Reader(len(charset) + 1, **shape_of(state))
    elif args.init_onnx:
        model = Reader(len(charset) + 1, **onnx_shape(args.init_onnx))
    else:
        model = Reader(len(charset) + 1, args.channels or SHIPPED_SHAPE["channels"],
                       args.hidden or SHIPPED_SHAPE["hidden"])
    teacher = None
    if args.teacher:
        # The teacher reads each augmented batch as it would read a cell at use (BatchNorm on
        # its running statistics, which `warm_start` sets to reproduce the export exactly).
        teacher = Reader(len(charset) + 1, **onnx_shape(args.teacher))
        warm_start(teacher, args.teacher, sample, card_charset(args.teacher), charset)
        print(f"teacher {args.teacher}: {evaluate(teacher, val_images, val_texts, charset)}")
        teacher.eval()
        if args.prune and not state:
            model = pruned(teacher, model.shape, sample)
            print(f"cut out of the teacher: {evaluate(model, val_images, val_texts, charset)}")
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    step = 0
    if state and "averaged" in state:
        raise SystemExit(f"{args.run} holds an average of runs, not a run to resume: "
                         "export it and start a new run from it with --init-onnx")
    if state:
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        step = state["step"]
        print(f"resumed at step {step}")
    elif args.init_onnx:
        warm_start(model, args.init_onnx, sample, onnx_charset, charset)
        print(f"started from the weights of {args.init_onnx}: {evaluate(model, val_images, val_texts, charset)}")
    if args.steps == 0 and not state:
        # The warm-started reader as a run, to average with its fine-tunes (`--average`).
        save_checkpoint(checkpoint_path, model, optimiser, 0, charset, {})
        print(f"saved the starting weights in {checkpoint_path}")
        return
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    rng = np.random.default_rng(step + 1)
    started, metrics = time.time(), {}
    while step < args.steps:
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        for group in optimiser.param_groups:
            group["lr"] = lr
        chosen = rng.choice(keep, args.batch)
        batch = augment(to_ink(images[chosen]), rng, args.bilevel, args.elastic, args.elastic_pixels,
                        args.fine, args.sharp)
        targets = [torch.tensor([index[c] for c in texts[i]], dtype=torch.long) for i in chosen]
        lengths = torch.tensor([len(t) for t in targets], dtype=torch.long)
        flat = torch.cat(targets) if lengths.sum() > 0 else torch.zeros(0, dtype=torch.long)
        student = model(batch)  # N x T x C
        log_probs = student.transpose(0, 1)  # T x N x C
        frames = torch.full((args.batch,), log_probs.shape[0], dtype=torch.long)
        loss = ctc(log_probs, flat, frames, lengths)
        if teacher is not None:
            loss = (1.0 - args.distill) * loss + args.distill * distillation_loss(
                student, teacher, batch, args.temperature)
        optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimiser.step()
        step += 1
        if step % 100 == 0:
            print(f"step {step} loss {loss.item():.3f} lr {lr:.2e} {time.time() - started:.0f}s", flush=True)
        if step % args.save_every == 0 or step == args.steps:
            metrics = evaluate(model, val_images, val_texts, charset)
            print(f"step {step} validation {metrics}", flush=True)
            save_checkpoint(checkpoint_path, model, optimiser, step, charset, metrics,
                            teacher=os.path.basename(args.teacher) if args.teacher else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", nargs="+", help="scoresheet-synth --cells folders to train on")
    parser.add_argument("--val", help="a scoresheet-synth --cells folder of other writers")
    parser.add_argument("--run", required=True, help="folder for the checkpoint")
    parser.add_argument("--steps", type=int, default=40000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--save-every", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--bilevel", type=float, default=0.0,
                        help="share of training cells cut to black and white, as a bilevel scan is")
    parser.add_argument("--elastic", type=float, default=0.0,
                        help="share of training cells whose letters are bent by a smooth random warp")
    parser.add_argument("--elastic-pixels", type=float, default=3.0,
                        help="the warp's largest displacement, in crop pixels")
    parser.add_argument("--fine", type=float, default=0.0,
                        help="share of training cells drawn as with a fine, faint pen (thinned, lightened)")
    parser.add_argument("--sharp", type=float, default=0.0,
                        help="share of training cells sharpened by an unsharp mask")
    parser.add_argument("--init-onnx", metavar="ONNX", help="start from an exported reader's weights (and charset)")
    parser.add_argument("--add-chars", default="", metavar="CHARS",
                        help="with --init-onnx: characters to add to the exported reader's charset")
    parser.add_argument("--channels", type=lambda v: [int(c) for c in v.split(",")], metavar="C1,C2,C3,C4",
                        help="a new reader's convolution widths (default 32,64,96,128, the shipped reader's)")
    parser.add_argument("--hidden", type=int, help="a new reader's LSTM units a direction (default 96)")
    parser.add_argument("--teacher", metavar="ONNX",
                        help="distil this exported reader: the loss adds the divergence from its posteriors")
    parser.add_argument("--prune", action="store_true",
                        help="with --teacher: start the narrower reader from the teacher's weights, "
                        "keeping the channels each next layer draws most on")
    parser.add_argument("--distill", type=float, default=0.7,
                        help="with --teacher: the distillation loss's share (the CTC loss has the rest)")
    parser.add_argument("--temperature", type=float, default=2.0,
                        help="with --teacher: the softmax temperature both posteriors are compared at")
    parser.add_argument("--export", metavar="STEM", help="write STEM.onnx and STEM.json from the checkpoint")
    parser.add_argument("--average", nargs="+", metavar="RUN",
                        help="write --run's checkpoint as the mean of these runs' weights (measured on --val)")
    args = parser.parse_args()
    if args.average:
        average(args.average, args.run, args.val)
    elif args.export:
        export(args.run, args.export)
    else:
        if not (args.train and args.val):
            parser.error("--train and --val are needed to train")
        if args.prune and not args.teacher:
            parser.error("--prune cuts the new reader out of its --teacher")
        train(args)


if __name__ == "__main__":
    main()
