"""compopt.torch: compopt's C++ optimizers as torch.optim.Optimizer subclasses.

    import compopt.torch
    opt = compopt.torch.OneBitAdam(model.parameters(), lr=1e-3, freeze_step=100)

Parameters become views of one flat fp32 buffer that the C++ optimizer steps on this
process's World (compopt.init()); docs/python.md, section "PyTorch optimizers".
"""
from ._deepspeed import deepspeed_keys, from_deepspeed
from ._named import (SGD, Adam, AdamW, Birder, BirderHierarchical, DiLoCo, Lamb, MomentumSGD,
                     OneBitAdam, OneBitLamb, StreamingDiLoCo)
from ._optimizer import Optimizer

__all__ = ["Adam", "AdamW", "Birder", "BirderHierarchical", "DiLoCo", "Lamb", "MomentumSGD",
           "OneBitAdam", "OneBitLamb", "Optimizer", "SGD", "StreamingDiLoCo", "deepspeed_keys",
           "from_deepspeed"]
