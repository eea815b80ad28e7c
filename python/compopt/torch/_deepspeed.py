"""compopt.torch.from_deepspeed: an optimizer from the optimizer block of a DeepSpeed config.

The mapping of types and keys is the C++ one (core/optim/deepspeed_config.h) that
``compopt train`` reads ``optimizer.deepspeed`` with; docs/optimizers.md has its table.
"""
import json
import os

from .. import _compopt
from ._named import Adam, Lamb, OneBitAdam, OneBitLamb

_CLASSES = {"adam": Adam, "lamb": Lamb, "onebit-adam": OneBitAdam, "onebit-lamb": OneBitLamb}


def deepspeed_keys(config):
    """The mapping of `config` (a dict, or the path of a JSON file): {optimizer: registry name,
    keys: registry keys, ignored: DeepSpeed keys accepted without effect}."""
    if isinstance(config, dict):
        return _compopt.deepspeed_optimizer(json.dumps(config))
    if isinstance(config, (str, os.PathLike)):
        return _compopt.deepspeed_optimizer_file(os.fspath(config))
    raise TypeError(f"DeepSpeed config {type(config).__name__}: expected a dict or a file path")


def from_deepspeed(config, params, world=None):
    """The compopt.torch optimizer a DeepSpeed config's optimizer block describes."""
    mapped = deepspeed_keys(config)
    return _CLASSES[mapped["optimizer"]](params, world=world, **mapped["keys"])
