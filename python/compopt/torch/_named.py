"""The registry's optimizers under torch-style names and arguments.

Each class is compopt.torch.Optimizer with its registry name; torch-style arguments map to the
registry's keys (betas -> beta1, beta2; momentum -> beta) and every other keyword goes through
as a registry key (docs/optimizers.md). None leaves a key at the registry's default.

Where a class has torch.optim's name (SGD, Adam, AdamW) its defaults and weight decay are
torch.optim's: Adam and AdamW correct the bias, SGD takes momentum, and SGD's and Adam's
weight_decay is the L2 term torch.optim adds to the gradient (here added to .grad in place,
before the gradient is averaged), where the registry's weight decay is decoupled (AdamW's).
"""
import math

from ._optimizer import Optimizer


def _betas(betas):
    if betas is None:
        return {}
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise ValueError(f"betas = {betas!r}: expected a pair (beta1, beta2)")
    return {"beta1": float(betas[0]), "beta2": float(betas[1])}


class _CoupledWeightDecay:
    """torch.optim's L2 weight decay: grad += weight_decay * param before the step."""

    def _init_coupled(self, weight_decay):
        weight_decay = 0.0 if weight_decay is None else float(weight_decay)
        if not math.isfinite(weight_decay) or weight_decay < 0:
            raise ValueError(f"weight_decay = {weight_decay!r}: expected a finite number >= 0")
        self._coupled_weight_decay = weight_decay

    def _step_flat(self):
        if self._coupled_weight_decay:
            self._flat.grads.add_(self._flat.params, alpha=self._coupled_weight_decay)
        super()._step_flat()


class SGD(_CoupledWeightDecay, Optimizer):
    """torch.optim.SGD: plain SGD (registry 'sgd'), or with momentum > 0 torch's momentum form
    of 'momentum-sgd' (m = momentum*m + g); weight_decay is torch's L2 term."""

    def __init__(self, params, world=None, lr=None, momentum=0.0, dampening=0.0,
                 weight_decay=0.0, nesterov=False, **hyper):
        if dampening:
            raise ValueError(f"dampening = {dampening!r}: only 0 (torch.optim.SGD's default) is "
                             "supported; MomentumSGD(form='paper') is m = beta*m + (1-beta)*g")
        self._init_coupled(weight_decay)
        if momentum:
            super().__init__("momentum-sgd", params, world, lr=lr, beta=momentum,
                             nesterov=nesterov, form="pytorch", **hyper)
        elif nesterov:
            raise ValueError("nesterov = True needs momentum > 0 (as in torch.optim.SGD)")
        else:
            super().__init__("sgd", params, world, lr=lr, **hyper)


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


class Adam(_CoupledWeightDecay, _AdamLike):
    """torch.optim.Adam (registry 'adam'): bias_correction=True by default; weight_decay is
    torch's L2 term added to the gradient (AdamW for the decoupled one)."""

    _registry_name = "adam"

    def __init__(self, params, world=None, lr=None, betas=None, eps=None, weight_decay=0.0,
                 bias_correction=True, **hyper):
        self._init_coupled(weight_decay)
        super().__init__(params, world, lr=lr, betas=betas, eps=eps,
                         bias_correction=bias_correction, **hyper)


class AdamW(_AdamLike):
    """torch.optim.AdamW (registry 'adam'): bias correction and decoupled weight decay,
    x -= lr * (u + weight_decay * x), weight_decay 0.01 by default as in torch."""

    _registry_name = "adam"

    def __init__(self, params, world=None, lr=None, betas=None, eps=None, weight_decay=0.01,
                 bias_correction=True, **hyper):
        super().__init__(params, world, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         bias_correction=bias_correction, **hyper)


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


def _renamed(hyper, **pairs):
    """hyper with the reference code's argument names moved to registry keys (None: unset);
    refuses a key given under both names."""
    for key, value in pairs.items():
        if value is None:
            continue
        if hyper.get(key) is not None:
            raise ValueError(f"'{key}' given twice (once under torchft's name)")
        hyper[key] = value
    return hyper


class DiLoCo(_AdamLike):
    """DiLoCo (Douillard et al. 2023, registry 'diloco'): AdamW inner steps on each rank's own
    gradient; every sync_every steps an outer Nesterov step (outer_lr, outer_momentum) on the
    rank-averaged drift from the anchor, which every rank then restarts from. sync_every is
    torchft's name for the registry's inner_steps; the inner AdamW corrects the bias."""

    _registry_name = "diloco"

    def __init__(self, params, world=None, lr=None, betas=None, eps=None, weight_decay=None,
                 sync_every=None, outer_lr=None, outer_momentum=None, **hyper):
        super().__init__(params, world, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         outer_lr=outer_lr, outer_momentum=outer_momentum,
                         **_renamed(hyper, inner_steps=sync_every))


class StreamingDiLoCo(DiLoCo):
    """Streaming DiLoCo (Douillard et al. 2025, registry 'streaming-diloco'): DiLoCo by
    `fragments` staggered fragments with an outer_bits-bit outer gradient; a fragment's outer step
    lands fragment_sync_delay steps after it is sent and keeps fragment_update_alpha of the local
    parameters (torchft's names for overlap_steps and mixing)."""

    _registry_name = "streaming-diloco"

    def __init__(self, params, world=None, fragments=None, fragment_sync_delay=None,
                 fragment_update_alpha=None, outer_bits=None, **hyper):
        super().__init__(params, world, fragments=fragments, outer_bits=outer_bits,
                         **_renamed(hyper, overlap_steps=fragment_sync_delay,
                                    mixing=fragment_update_alpha))
