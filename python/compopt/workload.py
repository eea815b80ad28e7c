"""compopt.workload_from_torch(): a PyTorch model as a workload the simulator takes.

One forward pass of ``sample`` through the model, with forward hooks on the layers that hold
the FLOPs, gives the ``[workload]`` table of docs/whatif.md as a dict:

- parameters, tensors: the parameters that require a gradient (each counted once);
- forward_gflops_per_sample: 2 FLOPs per multiply-add, per sample of the batch:
  Linear and Conv1d/2d/3d: 2 x weight elements x output positions (the rule of the
  simulator's ``[[workload.cnn_layers]]``); MultiheadAttention: its four projections plus
  2 x L x S x E for the scores and 2 x L x S x E for their weighted sum (L query and S key
  positions, E the embedding); biases, norms, activations, pooling and softmax are not
  counted, nor is anything computed by functions (``torch.matmul`` in a hand-written
  attention) rather than by these modules;
- backward: left out, so the simulator takes twice the forward, the usual rule (each
  matrix product's backward computes the input's and the weight's gradient, each as costly
  as the forward product; Kaplan et al. 2020, "Scaling Laws for Neural Language Models",
  section 2.1);
- layers: the counted module calls (each pays the GPU's per-layer overhead);
- activation_bytes_per_sample: the outputs of every leaf module and counted layer, in the
  dtype the sample ran in (an estimate of what autograd keeps for the backward pass);
- default_batch_per_gpu: the sample's batch.

Any key of the table given as a keyword overrides the counted one (``layers=24``,
``compute_precision="bf16"``); the simulator validates them all (compopt.InvalidArgument).
torch is imported only when this runs.

``measure_on="cpu"`` or ``"cuda"`` (``"cuda:N"``) also times the model on that device and adds
the measured compute of docs/whatif.md ("Measured compute"): ``measured_forward_ms``,
``measured_backward_ms`` (the median of ``iterations`` timed forward and backward passes of
the sample, after ``warmup`` untimed ones; the backward pass is that of the sum of the
outputs) and ``measured_batch_per_gpu`` (the sample's batch). On a GPU each pass is timed
with CUDA events around it; on the CPU with the wall clock. A copy of the model runs, so the
model's parameters, gradients and buffers are left as they were. The optimizer step is not
timed: the simulator keeps its model of it (``measured_step_ms`` may be given as a keyword).
"""

import contextlib
import copy
import statistics
import time


def _outputs(output):
    """The tensors of a module's output (a tensor or a tuple of them)."""
    items = output if isinstance(output, (tuple, list)) else (output,)
    return [t for t in items if hasattr(t, "numel") and hasattr(t, "element_size")]


def _weight_flops(module, inputs, output):
    """Linear and convolutions: 2 x weight elements x output positions (weight dim 0: the
    output features or channels)."""
    return 2 * module.weight.numel() * (output.numel() // module.weight.shape[0])


def _attention_flops(module, inputs, output):
    """MultiheadAttention: q, k, v and output projections, scores and their weighted sum."""
    query = inputs[0]
    key = inputs[1] if len(inputs) > 1 else query
    embed = module.embed_dim
    query_tokens = query.numel() // embed
    key_tokens = key.numel() // module.kdim
    key_positions = key.shape[1 if module.batch_first and key.dim() == 3 else 0]
    projections = 2 * embed * (2 * embed * query_tokens + (module.kdim + module.vdim) * key_tokens)
    return projections + 4 * query_tokens * key_positions * embed


def _counter_of(module):
    """The FLOP count of `module`'s kind (subclasses included), or None."""
    import torch.nn as nn
    kinds = ((nn.Linear, _weight_flops), (nn.Conv1d, _weight_flops), (nn.Conv2d, _weight_flops),
             (nn.Conv3d, _weight_flops), (nn.MultiheadAttention, _attention_flops))
    return next((count for kind, count in kinds if isinstance(module, kind)), None)


def _batch_of(sample, batch_size):
    if batch_size is not None:
        return batch_size
    first = sample[0] if isinstance(sample, (tuple, list)) else sample
    if not hasattr(first, "shape") or len(first.shape) == 0:
        raise ValueError("workload_from_torch: sample must be a tensor or a tuple of tensors "
                         "with the batch in dimension 0 (or pass batch_size=), got "
                         f"{type(first).__name__}")
    return int(first.shape[0])


def _hook(totals, count):
    def hook(module, inputs, output):
        tensors = _outputs(output)
        if count is not None:
            totals["flops"] += count(module, inputs, tensors[0])
            totals["layers"] += 1
        totals["activations"] += sum(t.numel() * t.element_size() for t in tensors)
    return hook


def _run(model, sample):
    """(FLOPs, counted calls, activation bytes) of one forward pass of the batch."""
    import torch
    totals = {"flops": 0, "layers": 0, "activations": 0}
    handles = []
    for module in model.modules():
        count, leaf = _counter_of(module), next(module.children(), None) is None
        if count is not None or leaf:
            handles.append(module.register_forward_hook(_hook(totals, count)))
    buffers = [b.detach().clone() for b in model.buffers()]  # BatchNorm's statistics move
    try:
        with torch.enable_grad():
            model(*sample) if isinstance(sample, (tuple, list)) else model(sample)
    finally:
        for h in handles:
            h.remove()
        with torch.no_grad():
            for b, saved in zip(model.buffers(), buffers):
                b.copy_(saved)
    return totals


def _device_of(measure_on):
    """The torch.device to time on; ValueError unless it is the CPU or an available GPU."""
    import torch
    try:
        device = torch.device(measure_on)
    except (RuntimeError, TypeError) as e:
        raise ValueError(f"workload_from_torch: measure_on={measure_on!r}, expected 'cpu' or "
                         f"'cuda' / 'cuda:N' ({e})") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"workload_from_torch: measure_on={measure_on!r}, expected 'cpu' or "
                         "'cuda' / 'cuda:N'")
    if device.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if (device.index or 0) >= count:
            raise ValueError(f"workload_from_torch: measure_on={measure_on!r}, but this machine "
                             f"has {count} CUDA device(s)")
    return device


def _check_counts(iterations, warmup):
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"workload_from_torch: iterations={iterations!r}, expected an int >= 1")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"workload_from_torch: warmup={warmup!r}, expected an int >= 0")


class _Clock:
    """Milliseconds of a section: CUDA events on a GPU (the work queued between them), the
    wall clock on the CPU."""

    def __init__(self, device):
        import torch
        self._torch, self._cuda = torch, device.type == "cuda"

    def start(self):
        if self._cuda:
            self._begin = self._torch.cuda.Event(enable_timing=True)
            self._begin.record()
        else:
            self._begin = time.perf_counter()

    def stop_ms(self):
        if not self._cuda:
            return (time.perf_counter() - self._begin) * 1e3
        end = self._torch.cuda.Event(enable_timing=True)
        end.record()
        end.synchronize()
        return self._begin.elapsed_time(end)


def _measure(model, sample, device, iterations, warmup):
    """Median forward and backward milliseconds of `sample` through a copy of `model`."""
    import torch
    runner = copy.deepcopy(model).to(device)
    args = sample if isinstance(sample, (tuple, list)) else (sample,)
    args = tuple(a.to(device) if hasattr(a, "to") else a for a in args)
    clock, forward, backward = _Clock(device), [], []
    # CUDA events record on the current device's stream: make it the timed one.
    on_device = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    with on_device, torch.enable_grad():
        for i in range(warmup + iterations):
            runner.zero_grad(set_to_none=True)
            clock.start()
            outputs = _outputs(runner(*args))
            forward_ms = clock.stop_ms()
            loss = sum(t.float().sum() for t in outputs if t.requires_grad)
            if not torch.is_tensor(loss):
                raise ValueError("workload_from_torch: no output of the model requires a "
                                 "gradient: nothing to time the backward pass of")
            clock.start()
            loss.backward()
            backward_ms = clock.stop_ms()
            if i >= warmup:
                forward.append(forward_ms)
                backward.append(backward_ms)
    return statistics.median(forward), statistics.median(backward)


def workload_from_torch(model, sample, name=None, *, batch_size=None, measure_on=None,
                        iterations=5, warmup=2, **keys):
    """The [workload] dict of `model` run on `sample` (a tensor or a tuple of arguments).

    name: the workload's name (default ``torch-<class name>``); batch_size: the samples in
    `sample` (default its first tensor's dimension 0); measure_on: None, or "cpu" / "cuda" /
    "cuda:N" to time the passes there (``iterations`` timed after ``warmup`` untimed, see the
    module's notes); keys: [workload] keys that override the counted and measured ones. Pass
    the result to compopt.simulate or into a sweep config's "workload".
    """
    batch = _batch_of(sample, batch_size)
    if not isinstance(batch, int) or batch <= 0:
        raise ValueError(f"workload_from_torch: batch_size={batch!r}, expected an int >= 1")
    device = None
    if measure_on is not None:
        _check_counts(iterations, warmup)
        device = _device_of(measure_on)
    totals = _run(model, sample)
    if totals["layers"] == 0:
        raise ValueError("workload_from_torch: no Linear, Conv1d/2d/3d or MultiheadAttention "
                         f"ran in {type(model).__name__}'s forward pass: nothing to count")
    trained = [p for p in model.parameters() if p.requires_grad]
    workload = {
        "name": name or f"torch-{type(model).__name__.lower()}",
        "parameters": sum(p.numel() for p in trained),
        "tensors": len(trained),
        "layers": totals["layers"],
        "forward_gflops_per_sample": totals["flops"] / batch / 1e9,
        "activation_bytes_per_sample": totals["activations"] / batch,
        "default_batch_per_gpu": batch,
    }
    if device is not None:
        forward_ms, backward_ms = _measure(model, sample, device, iterations, warmup)
        workload.update({"measured_forward_ms": forward_ms, "measured_backward_ms": backward_ms,
                         "measured_batch_per_gpu": batch})
    workload.update(keys)
    return workload
