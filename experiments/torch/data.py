"""Data of the PyTorch examples, read from Debian packages, sharded per rank.

- Fashion-MNIST (package ``dataset-fashion-mnist``): the four IDX .gz files in
  /usr/share/datasets/fashion-mnist, read as ``compopt train`` reads them
  (core/tasks/fashion_mnist_data.cc); pixels standardized with the training set's mean and
  deviation.
- Text (package ``python3.11-doc``, PSF license): every reStructuredText source
  /usr/share/doc/python3.11/html/_sources/**/*.rst.txt, in sorted path order, concatenated.
  Tokens are the UTF-8 bytes; the vocabulary is the set of bytes that occur. The first 90%
  is the training text, the last 10% the validation text.

Sharding follows docs/training.md: a seeded global permutation cut into equal shards, each
rank reshuffles its shard every epoch with its own stream (seed, rank, epoch).
"""
import glob
import gzip
import os

import numpy as np
import torch

FMNIST_DIR = "/usr/share/datasets/fashion-mnist"
TEXT_DIR = "/usr/share/doc/python3.11/html/_sources"
TRAIN_FRACTION = 0.9


def _read_idx(path, dims):
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file (install the package dataset-fashion-mnist)")
    with gzip.open(path, "rb") as f:
        raw = f.read()
    header = np.frombuffer(raw, dtype=">u4", count=1 + dims)
    if header[0] != 0x800 + dims:
        raise ValueError(f"{path}: not an IDX file with {dims} dimensions")
    return np.frombuffer(raw, dtype=np.uint8, offset=4 * (1 + dims)).reshape(
        [int(n) for n in header[1:]])


def load_fashion_mnist(data_dir=FMNIST_DIR):
    """(train_x [N,1,28,28] float32, train_y int64, test_x, test_y) as torch tensors."""
    parts = {}
    for prefix in ("train", "t10k"):
        images = _read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte.gz"), 3)
        labels = _read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte.gz"), 1)
        parts[prefix] = (torch.from_numpy(images.astype(np.float32)).unsqueeze(1) / 255.0,
                         torch.from_numpy(labels.astype(np.int64)))
    mean, std = parts["train"][0].mean(), parts["train"][0].std()
    return tuple(t for prefix in ("train", "t10k")
                 for t in ((parts[prefix][0] - mean) / std, parts[prefix][1]))


class TextCorpus:
    """The byte-level corpus: train / validation token tensors and the vocabulary."""

    def __init__(self, text_dir=TEXT_DIR):
        paths = sorted(glob.glob(os.path.join(text_dir, "**", "*.rst.txt"), recursive=True))
        if not paths:
            raise ValueError(f"{text_dir}: no *.rst.txt files (install the package "
                             "python3.11-doc)")
        raw = b"".join(open(p, "rb").read() for p in paths)
        data = np.frombuffer(raw, dtype=np.uint8)
        self.vocabulary = np.unique(data)
        lookup = np.zeros(256, dtype=np.int64)
        lookup[self.vocabulary] = np.arange(len(self.vocabulary))
        tokens = torch.from_numpy(lookup[data])
        cut = int(len(tokens) * TRAIN_FRACTION)
        self.files = len(paths)
        self.train, self.validation = tokens[:cut], tokens[cut:]

    @property
    def vocab_size(self):
        return len(self.vocabulary)


def _generator(*seeds):
    g = torch.Generator()
    g.manual_seed(int(np.random.SeedSequence(list(seeds)).generate_state(1)[0]))
    return g


class ShardedBatches:
    """Minibatches of this rank's shard of n examples: `batches_per_epoch` full batches per
    epoch (the remainder is dropped, so every rank runs the same steps)."""

    def __init__(self, n, rank, size, batch, seed):
        per_rank = n // size
        order = torch.randperm(n, generator=_generator(seed, 0xD1A))
        self.shard = order[rank * per_rank:(rank + 1) * per_rank]
        self.rank, self.batch, self.seed = rank, batch, seed
        self.batches_per_epoch = per_rank // batch
        if self.batches_per_epoch == 0:
            raise ValueError(f"batch {batch} is larger than a rank's shard of {per_rank} "
                             f"examples ({n} examples over {size} ranks)")

    def indices(self, step):
        """Example indices of 0-based step `step`."""
        epoch, i = divmod(step, self.batches_per_epoch)
        perm = torch.randperm(len(self.shard), generator=_generator(self.seed, self.rank, epoch))
        return self.shard[perm[i * self.batch:(i + 1) * self.batch]]


def text_windows(tokens, starts, context):
    """(inputs, targets) [len(starts), context]: targets are the inputs shifted by one."""
    offsets = torch.arange(context + 1)
    windows = tokens[starts.unsqueeze(1) + offsets]
    return windows[:, :-1], windows[:, 1:]


def text_window_starts(tokens, context, stride=None):
    """Start positions of the non-overlapping windows of a token stream (the examples)."""
    return torch.arange(0, len(tokens) - context - 1, stride or context)
