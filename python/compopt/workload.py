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
"""


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


def workload_from_torch(model, sample, name=None, *, batch_size=None, **keys):
    """The [workload] dict of `model` run on `sample` (a tensor or a tuple of arguments).

    name: the workload's name (default ``torch-<class name>``); batch_size: the samples in
    `sample` (default its first tensor's dimension 0); keys: [workload] keys that override the
    counted ones. Pass the result to compopt.simulate or into a sweep config's "workload".
    """
    batch = _batch_of(sample, batch_size)
    if not isinstance(batch, int) or batch <= 0:
        raise ValueError(f"workload_from_torch: batch_size={batch!r}, expected an int >= 1")
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
    workload.update(keys)
    return workload
