"""Fashion-MNIST for the PyTorch examples: IDX reading, the fixed train/validation
split, the test set, one training epoch and an evaluation pass.

Shared by examples/fashion-mnist/train.py (a hyperparameter sweep) and
examples/nas-fashion-mnist/train.py (architecture search), so both see the same
data, the same split and the same normalisation.

Data: Debian's dataset-fashion-mnist (scripts/install-deps.sh --examples) puts the
four gzip'd IDX files in /usr/share/datasets/fashion-mnist; they are decoded with
numpy (no torchvision). The validation split is a fixed permutation of the 60000
training images (SPLIT_SEED, independent of any trial's seed): its first
`val_size` images are the validation set and the next `train_size` the training
images, so every trial of every example sees the same held-out part. The
10,000-image test set is read only by load_test().

numpy and torch only; the gpusweep helper is not imported here (the caller passes
its stop flag to train_epoch).
"""

import gzip
import os
import pathlib

import numpy as np
import torch
import torch.nn.functional as F

DATA_DIR = pathlib.Path("/usr/share/datasets/fashion-mnist")
TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
TRAIN_COUNT = 60000
CLASSES = 10
SPLIT_SEED = 20240601  # fixed: the train/val split is the same for all trials
PIXEL_MEAN, PIXEL_STD = 0.2860, 0.3530  # Fashion-MNIST training set statistics


def read_idx(path):
    """Decodes a gzip'd IDX file (big-endian header: magic, then one u32 per dim).

    Returns a read-only uint8 numpy array of the file's shape, e.g. (60000, 28, 28).
    Raises OSError when the file cannot be read, ValueError when it is not an
    unsigned-byte IDX file.
    """
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3] if len(data) > 3 else 0
    if data[:2] != b"\0\0" or len(data) < 4 or data[2] != 0x08:  # 0x08: unsigned bytes
        raise ValueError("%s: not an unsigned-byte IDX file" % path)
    shape = tuple(int(d) for d in np.frombuffer(data, ">u4", count=ndim, offset=4))
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape)


def _tensors(images, labels, idx):
    """Normalised float32 (n, 1, 28, 28) images and int64 (n,) labels of rows idx.

    Only the selected rows are converted to float, so a small split costs little
    more than decompressing the file.
    """
    x = (images[idx].astype(np.float32) / 255.0 - PIXEL_MEAN) / PIXEL_STD
    return (torch.from_numpy(x).unsqueeze(1),
            torch.from_numpy(labels[idx].astype(np.int64)))


def load_split(data_dir, train_size, val_size):
    """Returns ((x_train, y_train), (x_val, y_val)) from the training set.

    x: float32 (n, 1, 28, 28), normalised; y: int64 (n,). val_size may be 0 (an
    empty validation pair); train_size + val_size must not exceed TRAIN_COUNT.
    """
    if train_size < 0 or val_size < 0 or train_size + val_size > TRAIN_COUNT:
        raise ValueError("need 0 <= train_size, val_size and train_size + val_size <= %d "
                         "(got %d and %d)" % (TRAIN_COUNT, train_size, val_size))
    images = read_idx(pathlib.Path(data_dir) / TRAIN_IMAGES)
    labels = read_idx(pathlib.Path(data_dir) / TRAIN_LABELS)
    order = np.random.default_rng(SPLIT_SEED).permutation(len(labels))
    val_idx, train_idx = order[:val_size], order[val_size:val_size + train_size]
    return _tensors(images, labels, train_idx), _tensors(images, labels, val_idx)


def load_test(data_dir):
    """Returns (x_test, y_test): the official 10,000-image test set, normalised like
    the training images."""
    images = read_idx(pathlib.Path(data_dir) / TEST_IMAGES)
    labels = read_idx(pathlib.Path(data_dir) / TEST_LABELS)
    return _tensors(images, labels, np.arange(len(labels)))


def configure_torch(seed):
    """Seeds torch, honours OMP_NUM_THREADS, picks the device (cuda when visible)."""
    threads = os.environ.get("OMP_NUM_THREADS")
    if threads and threads.isdigit() and int(threads) > 0:
        torch.set_num_threads(int(threads))
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    # Deterministic kernels where they exist; on cuda an op without one warns
    # instead of failing the trial.
    torch.use_deterministic_algorithms(True, warn_only=device.type == "cuda")
    torch.backends.cudnn.benchmark = False
    return device


def train_epoch(model, optimizer, x, y, batch_size, generator, device, stop_requested,
                after_step=None, augment=None):
    """One pass over (x, y) in a seeded random order.

    stop_requested: a callable checked before each batch (gpusweep.stop_requested);
    after_step: called after each optimizer step (a per-batch LR schedule);
    augment: maps a batch of images (on `device`) to an augmented batch.
    Returns the mean training loss, or None when stop_requested() said to stop
    (the epoch is abandoned).
    """
    model.train()
    order = torch.randperm(len(x), generator=generator)
    total = 0.0
    for start in range(0, len(x), batch_size):
        if stop_requested():
            return None
        idx = order[start:start + batch_size]
        xb, yb = x[idx].to(device), y[idx].to(device)
        if augment is not None:
            xb = augment(xb)
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        if after_step is not None:
            after_step()
        total += loss.item() * len(idx)
    return total / len(x)


@torch.no_grad()
def evaluate(model, x, y, device, batch_size=1000):
    """Returns (mean cross-entropy, accuracy in [0, 1]) of model on (x, y)."""
    model.eval()
    loss_sum, correct = 0.0, 0
    for start in range(0, len(x), batch_size):
        xb = x[start:start + batch_size].to(device)
        yb = y[start:start + batch_size].to(device)
        logits = model(xb)
        loss_sum += F.cross_entropy(logits, yb, reduction="sum").item()
        correct += (logits.argmax(1) == yb).sum().item()
    return loss_sum / len(x), correct / len(x)
