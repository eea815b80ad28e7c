"""compopt.torch.from_deepspeed: an optimizer from the optimizer block of a DeepSpeed config.

The mapping of types and keys is the C++ one (core/optim/deepspeed_config.h) that
``compopt train`` reads ``optimizer.deepspeed`` with; docs/optimizers.md has its table.
"""
import json
import math
import os

from .. import InvalidArgument, _compopt
from ._named import AdamW, Lamb, OneBitAdam, OneBitLamb, ZeroOneAdam

# DeepSpeed's Adam decouples weight decay (adam_w_mode), so it is AdamW here.
_CLASSES = {"adam": AdamW, "lamb": Lamb, "onebit-adam": OneBitAdam, "onebit-lamb": OneBitLamb,
            "zero-one-adam": ZeroOneAdam}


def _non_finite(value, path="config"):
    """(path, value) of the first NaN or infinite number in a nested dict/list, else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path, value
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, (list, tuple)) else ())
    for key, item in items:
        found = _non_finite(item, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]")
        if found:
            return found
    return None


def deepspeed_keys(config):
    """The mapping of `config` (a dict, or the path of a JSON file): {optimizer: registry name,
    keys: registry keys, ignored: DeepSpeed keys accepted without effect}."""
    if isinstance(config, dict):
        bad = _non_finite(config)
        if bad:
            raise InvalidArgument(f"DeepSpeed {bad[0]} = {bad[1]!r}, expected a finite number "
                                  "(JSON has no NaN or infinity)")
        return _compopt.deepspeed_optimizer(json.dumps(config))
    if isinstance(config, (str, os.PathLike)):
        return _compopt.deepspeed_optimizer_file(os.fspath(config))
    raise TypeError(f"DeepSpeed config {type(config).__name__}: expected a dict or a file path")


def from_deepspeed(config, params, world=None):
    """The compopt.torch optimizer a DeepSpeed config's optimizer block describes; keys the
    block leaves out take the registry's defaults (weight decay 0, as DeepSpeed's)."""
    mapped = deepspeed_keys(config)
    keys = dict(mapped["keys"])
    keys.setdefault("weight_decay", 0.0)
    return _CLASSES[mapped["optimizer"]](params, world=world, **keys)
