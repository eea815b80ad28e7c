"""compopt.torch.Optimizer: any optimizer of compopt's registry as a torch.optim.Optimizer.

The C++ optimizer (the same code the CLI and the simulator run) steps all parameters at once
over the flat buffers of FlatParameters, on this process's World; it does its own
communication (the gradient allreduce in warmup, the compressed momentum after the freeze).
One param group only. ``param_groups[0]['lr']`` is the rate of the next step when the
optimizer's ``schedule`` is constant: a change (by hand or a torch LR scheduler) rebuilds the
C++ optimizer with the new rate and its state, so it takes effect bit for bit; with a compopt
``schedule`` key the rate is the schedule's and changing it is refused. Parameters on a CUDA
device are stepped by the GPU optimizer (``compopt._cuda``, builds with CUDA only), which has no
state export: state_dict() and rate changes are refused there. docs/python.md.
"""
import math
from itertools import chain

import torch
import torch.optim.optimizer as _torch_optimizer

from .. import InvalidArgument, _compopt, _cuda
from .._world import init
from ._flat import FlatParameters

_COMPOPT = "compopt"  # the state_dict entry holding the C++ state
# torch >= 2.0's optimizer step hooks for every optimizer (absent in torch 1.13).
_GLOBAL_PRE_HOOKS = getattr(_torch_optimizer, "_global_optimizer_pre_hooks", {})
_GLOBAL_POST_HOOKS = getattr(_torch_optimizer, "_global_optimizer_post_hooks", {})


def _key_text(key, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (int, str)):
        return str(value)
    raise TypeError(f"hyper-parameter '{key}' = {value!r}: expected a number, bool or str")


def _learning_rate(spec, keys):
    if "lr" not in keys:
        return spec["default_lr"]
    try:
        lr = float(keys["lr"])
    except ValueError:
        raise InvalidArgument(f"{spec['name']}: key 'lr' = '{keys['lr']}', expected a number "
                              ">= 0") from None
    if not math.isfinite(lr):
        raise InvalidArgument(f"{spec['name']}: key 'lr' = {lr}, expected a finite number >= 0 "
                              "(NaN and infinity are refused)")
    return lr


class Optimizer(torch.optim.Optimizer):
    """compopt optimizer `name` (registry name or alias) over `params` (one group).

    world: a compopt.World (None: compopt.init()). hyper: the registry's keys
    (docs/optimizers.md), e.g. lr=1e-3, beta2=0.99, freeze_step=100; None values are left out.
    """

    def __init__(self, name, params, world=None, **hyper):
        spec = _compopt.optimizer_spec(name)
        keys = {k: _key_text(k, v) for k, v in hyper.items() if v is not None}
        lr = _learning_rate(spec, keys)
        super().__init__(params, {"lr": lr})
        if len(self.param_groups) != 1:
            raise ValueError(f"{spec['name']}: got {len(self.param_groups)} param groups, "
                             "expected one (compopt steps all parameters as one flat vector)")
        group = self.param_groups[0]
        extra = sorted(set(group) - {"params", "lr"})
        if extra or group["lr"] != lr:
            raise ValueError(f"{spec['name']}: param group sets {extra or ['lr']}, expected "
                             "hyper-parameters as constructor arguments")
        self._name = spec["name"]
        self._keys = keys
        self._lr = lr
        self._flat = FlatParameters(group["params"])
        self._world = world if world is not None else init()
        self._cpp = self._build(keys)
        self._step_counters = None  # (before, after) of the latest step, see metrics()

    def _build(self, keys):
        if self._flat.device.type == "cuda":
            return _cuda.device_optimizer(self._name, keys, self._flat.layout,
                                          self._flat.device.index)
        return _compopt.Optimizer(self._name, keys, self._flat.layout, self._flat.shapes)

    def _require_cpu(self, what):
        if self._flat.device.type != "cpu":
            raise ValueError(f"{self._name}: {what} of an optimizer on CUDA tensors is not "
                             "supported (the GPU optimizer has no state export); expected CPU "
                             "parameters")

    def add_param_group(self, param_group):
        """Refused once built: the C++ optimizer's layout is fixed (torch's constructor adds
        the one group through here)."""
        if hasattr(self, "_flat"):
            raise ValueError(f"{self._name}: add_param_group after construction is refused; "
                             "expected all parameters in the constructor's one group")
        super().add_param_group(param_group)

    @property
    def name(self):
        """Canonical registry name."""
        return self._name

    @property
    def world(self):
        return self._world

    @property
    def stage(self):
        """Stage of the next step: full_precision, warmup, compression or local."""
        return self._cpp.stage

    @property
    def step_count(self):
        return self._cpp.step_count

    @property
    def layout(self):
        """[(tensor name, size)] of the flat buffer: param0, param1, ... in parameter order."""
        return self._flat.layout

    @property
    def flat_parameters(self):
        """The flat fp32 tensor every parameter is a view of."""
        return self._flat.params

    @property
    def flat_gradients(self):
        """The flat fp32 tensor the gradients are views of (the step reads it)."""
        return self._flat.grads

    def metrics(self):
        """After the latest step: step, lr, stage, variance_norm, variance_ratio, variance_l1,
        layer_coefficients, layer_ratios (None or [] where the optimizer has none), and what
        the step sent and spent: bytes_sent, bytes_sent_inter_node (this rank's traffic during
        the step) and compression_s (seconds encoding and decoding; 0 on GPU kernels)."""
        if self._step_counters is None:
            cost = dict.fromkeys(("bytes_sent", "bytes_sent_inter_node", "compression_s"))
        else:
            (traffic0, seconds0), (traffic1, seconds1) = self._step_counters
            cost = {"bytes_sent": traffic1["bytes"] - traffic0["bytes"],
                    "bytes_sent_inter_node": (traffic1["inter_node_bytes"]
                                              - traffic0["inter_node_bytes"]),
                    "compression_s": seconds1 - seconds0}
        return dict(self._cpp.metrics(), **cost)

    def _follow_lr(self):
        lr = self.param_groups[0]["lr"]
        if lr == self._lr:
            return
        if self._keys.get("schedule", "constant") != "constant":
            raise ValueError(
                f"{self._name}: param_groups[0]['lr'] changed from {self._lr} to {lr}, but the "
                f"rate follows schedule={self._keys['schedule']}; change it through the "
                "schedule keys, or use schedule=constant with a torch LR scheduler")
        self._require_cpu("a change of param_groups[0]['lr']")
        keys = dict(self._keys, lr=_key_text("lr", float(lr)))
        rebuilt = _compopt.Optimizer(self._name, keys, self._flat.layout, self._flat.shapes)
        rebuilt.load_state(self._cpp.save_state())
        self._cpp, self._keys, self._lr = rebuilt, keys, lr

    def step(self, closure=None):
        """One step of every rank's optimizer (collective: all ranks call it).

        No torch.no_grad() around it (2 us a step): the C++ step records no autograd graph,
        and gather_grads copies under no_grad. torch wraps every optimizer's step in a profiler
        range and its step hooks (about 10 us a step even when neither is in use); this class
        opts out of the wrapper (`step.hooked` below) and does the same only when the profiler
        runs or a hook is registered."""
        if (torch.autograd._profiler_enabled() or _GLOBAL_PRE_HOOKS or _GLOBAL_POST_HOOKS
                or getattr(self, "_optimizer_step_pre_hooks", None)
                or getattr(self, "_optimizer_step_post_hooks", None)):
            return self._observed_step(closure)
        return self._step(closure)

    step.hooked = True  # torch.optim.Optimizer then leaves step unwrapped

    def _observed_step(self, closure):
        """step() as torch's wrapper runs it: in a profiler range named as torch names it, with
        the pre-hooks (which may replace the arguments) before and the post-hooks after."""
        with torch.autograd.profiler.record_function(
                f"Optimizer.step#{type(self).__name__}.step"):
            args, kwargs = (self,), {"closure": closure}
            for hook in chain(_GLOBAL_PRE_HOOKS.values(),
                              getattr(self, "_optimizer_step_pre_hooks", {}).values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"optimizer step pre-hook {hook!r} returned "
                                           f"{result!r}, expected None or (args, kwargs)")
                    args, kwargs = result
            out = type(self)._step(*args, **kwargs)
            self._optimizer_step_code()
            for hook in chain(getattr(self, "_optimizer_step_post_hooks", {}).values(),
                              _GLOBAL_POST_HOOKS.values()):
                hook(self, args, kwargs)
            return out

    def _step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self._follow_lr()
        self._flat.gather_grads()
        before = (self._world.traffic(), _compopt.compression_seconds())
        self._step_flat()
        self._step_counters = (before, (self._world.traffic(), _compopt.compression_seconds()))
        return loss

    def _step_flat(self):
        if self._flat.params_np is None:
            _cuda.step_cuda(self._cpp, self._flat.params, self._flat.grads, self._world)
        else:
            self._cpp.step(self._flat.params_np, self._flat.grads_np, self._world)

    def zero_grad(self, set_to_none=False):
        """Zeros all gradients in one pass; they stay views of the flat buffer whatever
        set_to_none says (a None gradient would cost a copy at the next step)."""
        self._flat.zero_grads()

    def state_dict(self):
        """torch's state_dict plus entry 'compopt': the C++ state (moments, error feedback,
        frozen variance, step, ...) with the optimizer, layout, world size and rank it fits."""
        self._require_cpu("state_dict()")
        out = super().state_dict()
        out[_COMPOPT] = {"optimizer": self._name, "layout": self._cpp.layout,
                         "world_size": self._world.size, "rank": self._world.rank,
                         "state": self._cpp.save_state()}
        return out

    def load_state_dict(self, state_dict):
        """Restores a state_dict() of the same optimizer, model, world size and rank."""
        saved = state_dict.get(_COMPOPT) if isinstance(state_dict, dict) else None
        if saved is None:
            raise ValueError(f"{self._name}: load_state_dict got no '{_COMPOPT}' entry, "
                             "expected a state_dict() of a compopt.torch optimizer")
        self._require_cpu("load_state_dict()")
        self._check_fits(saved)
        rest = {k: v for k, v in state_dict.items() if k != _COMPOPT}
        lr = rest["param_groups"][0]["lr"] if rest.get("param_groups") else self._lr
        super().load_state_dict(rest)
        self._cpp.load_state(saved["state"])
        if lr != self.param_groups[0]["lr"]:
            raise ValueError(f"{self._name}: param group lr {self.param_groups[0]['lr']} after "
                             f"loading, expected the saved {lr}")
        self._follow_lr()

    def _check_fits(self, saved):
        here = {"optimizer": self._name, "layout": self._cpp.layout,
                "world_size": self._world.size, "rank": self._world.rank}
        for key, value in here.items():
            theirs = saved.get(key)
            if key == "layout" and theirs is not None:
                theirs = [tuple(t) for t in theirs]
            if theirs != value:
                raise ValueError(f"{self._name}: state_dict has {key} {theirs!r}, this optimizer "
                                 f"has {value!r}; expected the state of the same optimizer, "
                                 "model, world size and rank")
