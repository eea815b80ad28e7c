"""The registry's optimizers under torch-style names and arguments.

Each class is compopt.torch.Optimizer with its registry name; torch-style arguments map to the
registry's keys (betas -> beta1, beta2; momentum -> beta) and every other keyword goes through
as a registry key (docs/optimizers.md). None leaves a key at the registry's default, so the
defaults are the registry's: e.g. Adam's bias_correction is off unless asked for.
"""
from ._optimizer import Optimizer


def _betas(betas):
    if betas is None:
        return {}
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise ValueError(f"betas = {betas!r}: expected a pair (beta1, beta2)")
    return {"beta1": float(betas[0]), "beta2": float(betas[1])}


class SGD(Optimizer):
    """Plain SGD on the ring-averaged gradient (registry 'sgd')."""

    def __init__(self, params, world=None, lr=None, weight_decay=None, **hyper):
        super().__init__("sgd", params, world, lr=lr, weight_decay=weight_decay, **hyper)


class MomentumSGD(Optimizer):
    """Momentum SGD (registry 'momentum-sgd'); form='pytorch' is torch.optim.SGD's momentum."""

    def __init__(self, params, world=None, lr=None, momentum=None, nesterov=None, form=None,
                 weight_decay=None, **hyper):
        super().__init__("momentum-sgd", params, world, lr=lr, beta=momentum, nesterov=nesterov,
                         form=form, weight_decay=weight_decay, **hyper)


class _AdamLike(Optimizer):
    _registry_name = ""

    def __init__(self, params, world=None, lr=None, betas=None, eps=None, weight_decay=None,
                 **hyper):
        super().__init__(self._registry_name, params, world, lr=lr, eps=eps,
                         weight_decay=weight_decay, **_betas(betas), **hyper)


class Adam(_AdamLike):
    """Adam (registry 'adam'); bias_correction=True with weight decay decoupled (AdamW's)."""

    _registry_name = "adam"


class Lamb(_AdamLike):
    """LAMB (registry 'lamb'): c_min, c_max clip the trust coefficient."""

    _registry_name = "lamb"


class OneBitAdam(_AdamLike):
    """1-bit Adam (Tang et al. 2021): freeze_step an integer or 'auto' (then threshold)."""

    _registry_name = "onebit-adam"


class OneBitLamb(_AdamLike):
    """1-bit LAMB (Li et al. 2022): freeze_step required."""

    _registry_name = "onebit-lamb"


class Birder(Optimizer):
    """Birder (Peng et al. 2023); hierarchical=True: the hierarchical compressed allreduce."""

    def __init__(self, params, world=None, lr=None, beta=None, eps=None, weight_decay=None,
                 hierarchical=False, **hyper):
        name = "birder-hierarchical" if hierarchical else "birder"
        super().__init__(name, params, world, lr=lr, beta=beta, eps=eps,
                         weight_decay=weight_decay, **hyper)


class BirderHierarchical(Birder):
    """Birder(hierarchical=True)."""

    def __init__(self, params, world=None, **hyper):
        super().__init__(params, world, hierarchical=True, **hyper)
