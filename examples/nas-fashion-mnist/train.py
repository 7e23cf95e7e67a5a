#!/usr/bin/python3
"""Trains the network a gpusweep NAS evaluation describes on Fashion-MNIST.

One gpusweep NAS trial (docs/nas.md): params.json carries `architecture` (the
stack of blocks, see network.py), `nas_stage` (round, winner, confirm or
retrain), `nas_block`, `nas_round`, `data_size` and `epochs`. The script builds
the network, trains it with AdamW and a one-cycle learning-rate schedule, and
reports after each epoch through gpusweep.report:

  round / winner / confirm: trains on `data_size` images of the training set
    (a fixed split: the first --val-size images of a fixed permutation are held
    out, the training images come after them) and reports
    {"epoch", "train_loss", "val_loss", "val_acc"} on the held-out part; the
    objective is the last val_acc.
  retrain: trains on all 60000 training images (no part is held out; a
    `data_size` other than 0 takes fewer, e.g. for smoke tests), then tests
    once on the official 10,000-image test set and reports
    {"epoch", "train_loss", "test_acc"} plus the objective metric
    ($GPUSWEEP_METRIC, e.g. val_acc) with the same value, since gpusweep needs
    the objective from every trial.

Outside gpusweep every param can be given as a flag, and the report lines go to
stdout:

    OMP_NUM_THREADS=2 /usr/bin/python3 train.py --architecture @arch.json \\
        --stage confirm --data-size 5000 --epochs 2

A malformed architecture (or data size) exits with status 2 and a message naming
the offending key; a diverged training (non-finite loss) exits with 1. SIGTERM
(timeout, Ctrl-C) abandons the epoch and exits at once. With --checkpoint the
state is saved after every epoch and a rerun of the trial (gpusweep.attempt() >
1, after a killed gpusweep) continues from it.

Device: cuda when visible (gpusweep sets CUDA_VISIBLE_DEVICES), else the CPU
with OMP_NUM_THREADS threads. Deterministic given --seed on the CPU.
"""

import argparse
import json
import os
import pathlib
import sys
import time

_HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE.parent / "common"))
try:
    import gpusweep
except ImportError:  # standalone: the helper in this repository
    sys.path.insert(0, str(_HERE.parents[1] / "python"))
    import gpusweep

import math  # noqa: E402

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before CUDA starts
import torch  # noqa: E402

from fashion_mnist import (DATA_DIR, TRAIN_COUNT, configure_torch, evaluate,  # noqa: E402
                           load_split, load_test, train_epoch)
from network import ArchitectureError, build_network  # noqa: E402

STAGES = ("round", "winner", "confirm", "retrain")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--architecture", default=None,
                   help="architecture JSON, or @FILE holding it (default: params.json's)")
    p.add_argument("--stage", choices=STAGES, default=None,
                   help="NAS stage (default: params.json's nas_stage, else round)")
    p.add_argument("--data-size", type=int, default=None,
                   help="training images (default: params.json's data_size)")
    p.add_argument("--epochs", type=int, default=None,
                   help="epochs (default: params.json's epochs, else 1)")
    p.add_argument("--val-size", type=int, default=2000,
                   help="held-out validation images for val_acc (stages other than retrain)")
    p.add_argument("--retrain-threads", type=int, default=None,
                   help="CPU threads in stage retrain (default: OMP_NUM_THREADS); the "
                        "retrain runs alone, so it may use the cores the search shared")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--retrain-batch-size", type=int, default=None,
                   help="batch size in stage retrain (default: --batch-size); short search "
                        "runs need small batches for enough steps, the retrain does not")
    p.add_argument("--lr", type=float, default=3e-3, help="peak AdamW learning rate")
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--augment", choices=("none", "shift-flip"), default="none",
                   help="shift-flip: random shifts of up to 2 pixels and horizontal flips")
    p.add_argument("--seed", type=int, default=0, help="initialisation and shuffling seed")
    p.add_argument("--data-dir", type=pathlib.Path, default=DATA_DIR)
    p.add_argument("--checkpoint", type=pathlib.Path, default=None,
                   help="save state here after each epoch; resume from it if present")
    return p.parse_args(argv)


class UsageError(Exception):
    """A param is missing or out of range; main() prints it and exits 2."""


def resolve_settings(args, params):
    """Merges flags over params.json; returns (architecture, stage, train size, epochs)."""
    architecture = args.architecture
    if architecture is not None and architecture.startswith("@"):
        architecture = pathlib.Path(architecture[1:]).read_text()
    if architecture is None:
        architecture = params.get("architecture")
    if architecture is None:
        raise UsageError("no architecture: give --architecture or run under a gpusweep "
                         "NAS experiment (params.json key `architecture`)")
    stage = args.stage or params.get("nas_stage", "round")
    if stage not in STAGES:
        raise UsageError("nas_stage %r is not one of %s" % (stage, ", ".join(STAGES)))
    epochs = args.epochs if args.epochs is not None else params.get("epochs", 1)
    if not isinstance(epochs, int) or epochs < 1:
        raise UsageError("epochs must be a positive integer, got %r" % (epochs,))
    if stage == "retrain" and args.retrain_batch_size:
        args.batch_size = args.retrain_batch_size
    if args.batch_size < 1 or args.lr <= 0:
        raise UsageError("--batch-size and --lr must be positive")
    if not 1 <= args.val_size < TRAIN_COUNT:
        raise UsageError("--val-size must be in 1..%d" % (TRAIN_COUNT - 1))
    size = args.data_size if args.data_size is not None else params.get("data_size")
    if stage == "retrain" and size in (None, 0):
        size = TRAIN_COUNT  # all the training data: nothing is held out in retrain
    if not isinstance(size, int) or size < 1:
        raise UsageError("data_size must be a positive integer, got %r" % (size,))
    available = TRAIN_COUNT - (0 if stage == "retrain" else args.val_size)
    if size > available:
        print("data_size %d is more than the %d training images available; using %d"
              % (size, available, available), file=sys.stderr)
        size = available
    return architecture, stage, size, epochs


def shift_flip(generator):
    """Returns an augment(batch) that shifts each image by up to 2 pixels (edge
    padding) and flips half of them horizontally; random draws from `generator`."""
    def augment(x):
        n, _, h, w = x.shape
        padded = torch.nn.functional.pad(x, (2, 2, 2, 2), mode="replicate")
        dy = torch.randint(0, 5, (n, 1, 1), generator=generator).to(x.device)
        dx = torch.randint(0, 5, (n, 1, 1), generator=generator).to(x.device)
        rows = dy + torch.arange(h, device=x.device).view(1, h, 1)
        cols = dx + torch.arange(w, device=x.device).view(1, 1, w)
        flip = torch.rand(n, generator=generator).to(x.device) < 0.5
        cols = torch.where(flip.view(n, 1, 1), 2 * dx + w - 1 - cols, cols)
        batch = torch.arange(n, device=x.device).view(n, 1, 1)
        return padded[batch, 0, rows, cols].unsqueeze(1)
    return augment


def save_checkpoint(path, state):
    """Writes state atomically (a kill never leaves half a file)."""
    if path is not None:
        temp = path.with_name(path.name + ".tmp")
        torch.save(state, temp)
        os.replace(temp, path)


def train(args, architecture, stage, train_size, epochs):
    """Trains and reports; returns the process exit status."""
    device = configure_torch(args.seed)
    if stage == "retrain" and args.retrain_threads and device.type == "cpu":
        torch.set_num_threads(args.retrain_threads)
    started = time.monotonic()
    model = build_network(architecture).to(device)  # ArchitectureError before data loads
    val_size = 0 if stage == "retrain" else args.val_size
    (x_train, y_train), (x_val, y_val) = load_split(args.data_dir, train_size, val_size)
    x_test, y_test = load_test(args.data_dir) if stage == "retrain" else (None, None)
    print("stage=%s device=%s threads=%d train=%d val=%d epochs=%d parameters=%d data %.1fs"
          % (stage, device, torch.get_num_threads(), len(x_train), len(x_val), epochs,
             sum(p.numel() for p in model.parameters()), time.monotonic() - started),
          file=sys.stderr, flush=True)

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr,
                                  weight_decay=args.weight_decay)
    steps = math.ceil(len(x_train) / args.batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr,
                                                   total_steps=epochs * steps)
    generator = torch.Generator().manual_seed(args.seed)
    augment = shift_flip(generator) if args.augment == "shift-flip" else None
    done = 0
    if args.checkpoint is not None and args.checkpoint.exists():
        state = torch.load(args.checkpoint, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        generator.set_state(state["generator"])
        done = int(state["epoch"])
        print("resumed from %s after epoch %d" % (args.checkpoint, done), file=sys.stderr)

    metric = os.environ.get("GPUSWEEP_METRIC") or "val_acc"
    for epoch in range(done + 1, epochs + 1):
        train_loss = train_epoch(model, optimizer, x_train, y_train, args.batch_size,
                                 generator, device, gpusweep.stop_requested,
                                 after_step=schedule.step, augment=augment)
        if train_loss is None:
            print("stop requested during epoch %d" % epoch, file=sys.stderr)
            return 1
        if not math.isfinite(train_loss):
            print("training diverged in epoch %d (train_loss %r)" % (epoch, train_loss),
                  file=sys.stderr)
            return 1
        report = {"epoch": epoch, "train_loss": round(train_loss, 5)}
        if stage != "retrain":
            val_loss, val_acc = evaluate(model, x_val, y_val, device)
            report.update(val_loss=round(val_loss, 5), val_acc=round(val_acc, 5))
        elif epoch == epochs:  # tested once, at the end
            _, test_acc = evaluate(model, x_test, y_test, device)
            report.update({"test_acc": round(test_acc, 5), metric: round(test_acc, 5)})
        gpusweep.report(report)
        save_checkpoint(args.checkpoint, {
            "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "schedule": schedule.state_dict(), "generator": generator.get_state(),
            "epoch": epoch})
        print("epoch %d done at %.1fs" % (epoch, time.monotonic() - started),
              file=sys.stderr, flush=True)
    return 0


def main(argv=None):
    args = parse_args(argv)
    gpusweep.handle_stop()  # SIGTERM (timeout, Ctrl-C) sets a flag: exit cleanly
    try:
        params = gpusweep.params()
        settings = resolve_settings(args, params)
        return train(args, *settings)
    except (UsageError, ArchitectureError, OSError, json.JSONDecodeError) as e:
        print("train.py: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
