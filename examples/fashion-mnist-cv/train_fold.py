#!/usr/bin/python3
"""One fold of a k-fold cross-validated sweep on Fashion-MNIST (a small MLP).

gpusweep runs every configuration as k trials (cv: {folds: k} in sweep.yaml),
each in its own process with the same params; this script is one of them. It
takes a fixed pool of --pool-size images from the Fashion-MNIST training set
(the same permutation for every trial), cuts it into gpusweep.folds() equal
parts, validates on part gpusweep.fold() and trains on the others. After each
epoch it reports {"epoch", "train_loss", "val_loss", "val_acc"}; gpusweep takes
the mean val_acc over the folds as the configuration's objective.

Run by hand (no gpusweep) it uses --fold / --folds:

    OMP_NUM_THREADS=1 /usr/bin/python3 train_fold.py --fold 2 --folds 5 --lr 0.01

Data loading, seeding, the training epoch and evaluation come from
examples/common/fashion_mnist.py, shared with the other PyTorch examples.
"""

import argparse
import pathlib
import sys
import time

_REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(_REPO / "examples" / "common"))
try:
    import gpusweep
except ImportError:  # standalone: the repository's helper
    sys.path.insert(0, str(_REPO / "python"))
    import gpusweep

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

import fashion_mnist as fmnist  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lr", type=float, default=0.01, help="SGD (momentum 0.9) learning rate")
    p.add_argument("--hidden", type=int, default=64, help="units of the hidden layer")
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--pool-size", type=int, default=5000,
                   help="images of the training set the folds are cut from")
    p.add_argument("--fold", type=int, default=None, help="default: gpusweep.fold(), else 0")
    p.add_argument("--folds", type=int, default=None, help="default: gpusweep.folds(), else 5")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data-dir", type=pathlib.Path, default=fmnist.DATA_DIR)
    args = p.parse_args(argv)
    args.fold = args.fold if args.fold is not None else (gpusweep.fold() or 0)
    args.folds = args.folds if args.folds is not None else (gpusweep.folds() or 5)
    if not 0 <= args.fold < args.folds or args.folds < 2:
        p.error("need 0 <= --fold < --folds and --folds >= 2")
    if not args.folds <= args.pool_size <= fmnist.TRAIN_COUNT:
        p.error("need --folds <= --pool-size <= %d" % fmnist.TRAIN_COUNT)
    return args


def load_fold(data_dir, pool_size, fold, folds):
    """((x_train, y_train), (x_val, y_val)) as flat normalised float32 tensors:
    validation is part `fold` of the pool, training the other parts."""
    images = fmnist.read_idx(data_dir / fmnist.TRAIN_IMAGES)
    labels = fmnist.read_idx(data_dir / fmnist.TRAIN_LABELS)
    pool = np.random.default_rng(fmnist.SPLIT_SEED).permutation(len(labels))[:pool_size]
    parts = np.array_split(pool, folds)
    val_idx = parts[fold]
    train_idx = np.concatenate([part for i, part in enumerate(parts) if i != fold])

    def tensors(idx):
        x = (images[idx].astype(np.float32) / 255.0 - fmnist.PIXEL_MEAN) / fmnist.PIXEL_STD
        return (torch.from_numpy(x.reshape(len(idx), -1)),  # flat: the MLP's input
                torch.from_numpy(labels[idx].astype(np.int64)))

    return tensors(train_idx), tensors(val_idx)


def main(argv=None):
    args = parse_args(argv)
    gpusweep.handle_stop()
    device = fmnist.configure_torch(args.seed)
    started = time.monotonic()
    (x_train, y_train), (x_val, y_val) = load_fold(args.data_dir, args.pool_size,
                                                   args.fold, args.folds)
    print("fold %d of %d: device=%s train=%d val=%d data %.1fs"
          % (args.fold, args.folds, device, len(x_train), len(x_val),
             time.monotonic() - started), file=sys.stderr, flush=True)
    model = nn.Sequential(nn.Linear(28 * 28, args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=args.weight_decay)
    generator = torch.Generator().manual_seed(args.seed)
    for epoch in range(1, args.epochs + 1):
        train_loss = fmnist.train_epoch(model, optimizer, x_train, y_train, args.batch_size,
                                        generator, device, gpusweep.stop_requested)
        if train_loss is None:
            print("stop requested during epoch %d" % epoch, file=sys.stderr, flush=True)
            return 0
        val_loss, val_acc = fmnist.evaluate(model, x_val, y_val, device)
        if not (np.isfinite(train_loss) and np.isfinite(val_loss)):
            print("training diverged (train_loss %r)" % train_loss, file=sys.stderr)
            return 1
        if gpusweep.report(epoch=epoch, train_loss=round(train_loss, 5),
                           val_loss=round(val_loss, 5), val_acc=round(val_acc, 5)):
            print("stopped after epoch %d (pruned)" % epoch, file=sys.stderr, flush=True)
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
