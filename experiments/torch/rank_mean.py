"""The mean over ranks of a few numbers (train loss, evaluation sums), computed by compopt's
C++ code: one step of the C++ `sgd` optimizer (lr 1) from x = 0 on the gradient -values
leaves x = the ring average of every rank's values."""
import torch

import compopt


class RankMean:
    def __init__(self, k, world):
        self.optimizer = compopt.Optimizer("sgd", {"lr": "1"}, [("values", k)])
        self.world = world
        self.k = k

    def __call__(self, values):
        x = torch.zeros(self.k, dtype=torch.float32)
        g = -torch.tensor(values, dtype=torch.float32)
        self.optimizer.step(x.numpy(), g.numpy(), self.world)
        return x.tolist()
