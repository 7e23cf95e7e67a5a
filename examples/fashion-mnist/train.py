#!/usr/bin/python3
"""Trains a small CNN on part of Fashion-MNIST and reports validation accuracy.

One gpusweep trial: hyperparameters come as command-line flags (the sweep.yaml
command fills them in from the trial's params); after every epoch the script
reports {"epoch", "train_loss", "val_loss", "val_acc", "params_k"} (params_k: the
model's trainable parameters in thousands, an objective of
examples/fashion-mnist-pareto) through gpusweep.report,
which at a rung waits for the scheduler's verdict: a pruned trial stops there
without training another epoch. A SIGTERM (timeout, Ctrl-C) makes it abandon
the current epoch and exit at once (well within kill_grace). With --checkpoint
it saves model, optimizer and random-generator state after every epoch and resumes
from that file when it exists, so a budgeted scheduler (successive_halving:
--epochs {{budget}}) continues a promoted trial instead of retraining it, and
a trial interrupted mid-run (Ctrl-C, gpusweep killed) continues from its last
epoch when `gpusweep run` runs it again (gpusweep.attempt() > 1). Under
population-based training (scheduler: {type: pbt}; gpusweep sets
$GPUSWEEP_CHECKPOINT_DIR) the state lives in that directory instead, saved with
gpusweep.save_checkpoint after every epoch and restored from the parent's copy
(the member's previous segment, or the donor's after an exploit); the restored
optimizer then takes this trial's --lr and --momentum, which explore may have
changed. --optimizer sgd (with --momentum) gives PBT a momentum to mutate too.
Run standalone, it prints those lines to stdout instead:

    OMP_NUM_THREADS=1 /usr/bin/python3 train.py --lr 0.002 --epochs 4

Data (examples/common/fashion_mnist.py): the IDX files in
/usr/share/datasets/fashion-mnist (gzip, decoded with
numpy; no torchvision). Only the TRAINING set is used: a fixed permutation of
its 60000 images (independent of --seed, so every trial sees the same split)
gives --val-size held-out validation images and --train-size disjoint training
images. The test set stays untouched for a final evaluation outside the sweep.

Device: cuda when torch.cuda.is_available() (gpusweep sets
CUDA_VISIBLE_DEVICES to the trial's GPUs, "" on CPU), else cpu with
OMP_NUM_THREADS threads. Deterministic given --seed on cpu; on cuda with
deterministic algorithms requested (cuDNN may still differ across GPU models).
"""

import argparse
import os
import pathlib
import sys
import time

# Standalone runs: find python/gpusweep.py in this repository (gpusweep itself
# puts its folder on PYTHONPATH), and the examples' shared data code.
_REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(_REPO / "examples" / "common"))
try:
    import gpusweep
except ImportError:
    sys.path.insert(0, str(_REPO / "python"))
    import gpusweep

import numpy as np

# Must be set before CUDA initialises for deterministic cuBLAS.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from fashion_mnist import (DATA_DIR, TRAIN_COUNT, configure_torch, evaluate,  # noqa: E402
                           load_split, train_epoch)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lr", type=float, default=2e-3, help="learning rate")
    p.add_argument("--optimizer", choices=("adam", "sgd"), default="adam")
    p.add_argument("--momentum", type=float, default=0.9,
                   help="SGD momentum (--optimizer sgd), in [0, 1)")
    p.add_argument("--channels", type=int, default=16,
                   help="channels of the first conv layer (the second has twice as many)")
    p.add_argument("--dropout", type=float, default=0.25,
                   help="dropout before the classifier, in [0, 1)")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--train-size", type=int, default=8000,
                   help="training images taken from the training set")
    p.add_argument("--val-size", type=int, default=2000,
                   help="held-out validation images, disjoint from --train-size")
    p.add_argument("--seed", type=int, default=0,
                   help="initialisation and shuffling seed")
    p.add_argument("--data-dir", type=pathlib.Path, default=DATA_DIR)
    p.add_argument("--checkpoint", type=pathlib.Path, default=None,
                   help="save state here after each epoch; resume from it if present")
    args = p.parse_args(argv)
    if args.train_size < 1 or args.val_size < 1 or \
            args.train_size + args.val_size > TRAIN_COUNT:
        p.error("need 1 <= --train-size, --val-size and their sum <= %d" % TRAIN_COUNT)
    if not 0 <= args.dropout < 1:
        p.error("--dropout must be in [0, 1)")
    if not 0 <= args.momentum < 1:
        p.error("--momentum must be in [0, 1)")
    if args.lr <= 0 or args.batch_size < 1 or args.epochs < 1 or args.channels < 1:
        p.error("--lr, --batch-size, --epochs and --channels must be positive")
    return args


class SmallCnn(nn.Module):
    """conv3x3(c)-BN-ReLU-pool, conv3x3(2c)-BN-ReLU-pool, dropout, linear(10)."""

    def __init__(self, channels, dropout):
        super().__init__()
        self.conv1 = nn.Conv2d(1, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, 2 * channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(2 * channels)
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(2 * channels * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)  # 28 -> 14
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)  # 14 -> 7
        return self.fc(self.dropout(torch.flatten(x, 1)))


def checkpoint_path(args):
    """Where state is restored from and saved to: under PBT the copy gpusweep made
    into $GPUSWEEP_CHECKPOINT_DIR (None when there is none: a first segment);
    otherwise --checkpoint (None without it)."""
    if os.environ.get("GPUSWEEP_CHECKPOINT_DIR"):
        restored = gpusweep.restore_checkpoint()
        return restored / "state.pt" if restored else None
    return args.checkpoint


def make_optimizer(args, model):
    if args.optimizer == "sgd":
        return torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    return torch.optim.Adam(model.parameters(), lr=args.lr)


def load_checkpoint(path, model, optimizer, generator, args):
    """Restores state saved by save_checkpoint; returns (epochs done, their last report).

    The optimizer's state (moments, momentum buffers) is restored, its
    hyperparameters are this run's: a PBT receiver continues its donor's
    training with the params explore gave it."""
    if path is None or not path.exists():
        return 0, None
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    for group in optimizer.param_groups:
        group["lr"] = args.lr
        if "momentum" in group:
            group["momentum"] = args.momentum
    generator.set_state(state["generator"])
    # Dropout draws from torch's global generators: without their state a resumed
    # trial would not continue exactly where the interrupted one stopped.
    if "torch_rng" in state:
        torch.set_rng_state(state["torch_rng"])
    if state.get("cuda_rng") and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda_rng"])
    return int(state["epoch"]), state.get("report")


def save_checkpoint(args, model, optimizer, generator, epoch, report):
    """Writes the state after `epoch` atomically (a kill never leaves half a file):
    under PBT through gpusweep.save_checkpoint (its marker says the checkpoint is
    this trial's, at this epoch), else to --checkpoint when given."""
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "generator": generator.get_state(), "torch_rng": torch.get_rng_state(),
             "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
             "epoch": epoch, "report": report}
    if os.environ.get("GPUSWEEP_CHECKPOINT_DIR"):
        gpusweep.save_checkpoint(write=lambda d: torch.save(state, d / "state.pt"),
                                 resource=epoch)
        return
    if args.checkpoint is None:
        return
    temp = args.checkpoint.with_name(args.checkpoint.name + ".tmp")
    torch.save(state, temp)
    os.replace(temp, args.checkpoint)


def main(argv=None):
    args = parse_args(argv)
    gpusweep.handle_stop()  # SIGTERM (pruned, timeout, Ctrl-C) sets a flag: exit cleanly
    device = configure_torch(args.seed)
    started = time.monotonic()
    (x_train, y_train), (x_val, y_val) = load_split(
        args.data_dir, args.train_size, args.val_size)
    if device.type == "cuda":  # small enough to live on the GPU
        x_train, y_train = x_train.to(device), y_train.to(device)
        x_val, y_val = x_val.to(device), y_val.to(device)
    print("device=%s threads=%d train=%d val=%d data %.1fs"
          % (device, torch.get_num_threads(), len(x_train), len(x_val),
             time.monotonic() - started), file=sys.stderr, flush=True)

    model = SmallCnn(args.channels, args.dropout).to(device)
    parameters = sum(p.numel() for p in model.parameters() if p.requires_grad)
    optimizer = make_optimizer(args, model)
    generator = torch.Generator().manual_seed(args.seed)
    restore_from = checkpoint_path(args)
    done, last_report = load_checkpoint(restore_from, model, optimizer, generator, args)
    if done:
        print("resumed from %s after epoch %d (attempt %d)"
              % (restore_from, done, gpusweep.attempt()), file=sys.stderr, flush=True)
    if done >= args.epochs and last_report:
        # Run again at a budget the checkpoint already covers (the earlier run was cut
        # short after saving): each run must report its result, so report it again.
        gpusweep.report(last_report)
        return 0
    for epoch in range(done + 1, args.epochs + 1):
        train_loss = train_epoch(model, optimizer, x_train, y_train, args.batch_size,
                                 generator, device, gpusweep.stop_requested)
        if train_loss is None:
            print("stop requested during epoch %d" % epoch, file=sys.stderr, flush=True)
            break
        val_loss, val_acc = evaluate(model, x_val, y_val, device)
        if not (np.isfinite(train_loss) and np.isfinite(val_loss)):
            print("training diverged (train_loss %r, val_loss %r)"
                  % (train_loss, val_loss), file=sys.stderr)
            return 1
        report = {"epoch": epoch, "train_loss": round(train_loss, 5),
                  "val_loss": round(val_loss, 5), "val_acc": round(val_acc, 5),
                  "params_k": round(parameters / 1000, 3)}
        # Saved before the report: a trial that is stopped at the report (or
        # killed while it waits for the verdict) has this epoch's state to go on from.
        save_checkpoint(args, model, optimizer, generator, epoch, report)
        should_stop = gpusweep.report(report)  # at a rung: waits for the verdict
        print("epoch %d done at %.1fs" % (epoch, time.monotonic() - started),
              file=sys.stderr, flush=True)
        if should_stop:
            print("stopped after epoch %d (pruned, or asked to stop)" % epoch,
                  file=sys.stderr, flush=True)
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
