"""A model's parameters and gradients as two flat float32 buffers stepped by a C++ optimizer
of compopt (compopt.Optimizer, which does its own communication), and the mean of a few
numbers over ranks through the same C++ code.

The parameters become views of one contiguous buffer and their gradients views of another,
so backward() writes straight into the buffer the optimizer reads (no copies). The layout
names each parameter tensor, so layer-wise optimizers (LAMB, 1-bit LAMB) see layers.
"""
import torch

import compopt


class FlatOptimizer:
    def __init__(self, model, name, hyper, world):
        params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        total = sum(p.numel() for _, p in params)
        self.flat = torch.zeros(total, dtype=torch.float32)
        self.grad = torch.zeros(total, dtype=torch.float32)
        offset = 0
        for _, p in params:
            n = p.numel()
            self.flat[offset:offset + n].copy_(p.data.reshape(-1))
            p.data = self.flat[offset:offset + n].view_as(p)
            p.grad = self.grad[offset:offset + n].view_as(p)
            offset += n
        layout = [(n, p.numel()) for n, p in params]
        self.optimizer = compopt.Optimizer(name, {k: str(v) for k, v in hyper.items()}, layout)
        self.world = world

    def zero_grad(self):
        self.grad.zero_()

    def step(self):
        self.optimizer.step(self.flat.numpy(), self.grad.numpy(), self.world)

    @property
    def stage(self):
        return self.optimizer.stage

    def metrics(self):
        return self.optimizer.metrics()


class RankMean:
    """mean over ranks of k numbers: one step of the C++ `sgd` optimizer (lr 1) from x = 0 on
    the gradient -values leaves x = the ring average of the values."""

    def __init__(self, k, world):
        self.optimizer = compopt.Optimizer("sgd", {"lr": "1"}, [("values", k)])
        self.world = world
        self.k = k

    def __call__(self, values):
        x = torch.zeros(self.k, dtype=torch.float32)
        g = -torch.tensor(values, dtype=torch.float32)
        self.optimizer.step(x.numpy(), g.numpy(), self.world)
        return x.tolist()
