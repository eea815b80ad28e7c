"""The two training tasks of the PyTorch examples: a model, its data and its loss.

A task gives the number of training examples, a minibatch for example indices, the loss of a
minibatch, and its evaluation share on this rank: (loss sum, correct predictions, count)
over this rank's slice of the held-out set, so that the mean over ranks gives the metric.
"""
import torch
from torch.nn import functional as F

import data
import models


class ImageTask:
    """Small ResNet on Fashion-MNIST; evaluation on the first `eval_examples` test images."""

    def __init__(self, args):
        self.train_x, self.train_y, test_x, test_y = data.load_fashion_mnist(args.data_dir)
        self.test_x, self.test_y = test_x[:args.eval_examples], test_y[:args.eval_examples]
        self.model = models.build_model("resnet", args.seed)
        self.n_train = len(self.train_y)

    def batch(self, indices):
        return self.train_x[indices], self.train_y[indices]

    def loss(self, x, y):
        return F.cross_entropy(self.model(x), y)

    def evaluate_share(self, rank, size):
        x, y = self.test_x[rank::size], self.test_y[rank::size]
        with torch.no_grad():
            logits = self.model(x)
            loss = F.cross_entropy(logits, y, reduction="sum").item()
            correct = (logits.argmax(dim=1) == y).sum().item()
        return loss, correct, len(y)


class TextTask:
    """Byte-level transformer LM on the python3.11-doc corpus: an example is a window of
    `context` tokens; evaluation on the first `eval_examples` validation windows."""

    def __init__(self, args):
        self.corpus = data.TextCorpus(args.text_dir)
        self.context = args.context
        self.train_starts = data.text_window_starts(self.corpus.train, args.context)
        starts = data.text_window_starts(self.corpus.validation, args.context)
        self.eval_starts = starts[:args.eval_examples]
        self.model = models.build_model("transformer", args.seed, vocab=self.corpus.vocab_size,
                                        context=args.context)
        self.n_train = len(self.train_starts)

    def batch(self, indices):
        return data.text_windows(self.corpus.train, self.train_starts[indices], self.context)

    def loss(self, x, y):
        logits = self.model(x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    def evaluate_share(self, rank, size):
        x, y = data.text_windows(self.corpus.validation, self.eval_starts[rank::size],
                                 self.context)
        with torch.no_grad():
            logits = self.model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                   reduction="sum").item()
            correct = (logits.argmax(dim=-1) == y).sum().item()
        return loss, correct, y.numel()


TASKS = {"resnet": ImageTask, "transformer": TextTask}
