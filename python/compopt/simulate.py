"""compopt.simulate() and compopt.sweep(): the simulator as a library.

Both return a pandas DataFrame read from the very CSV text that ``compopt profile`` writes as
``profile.csv`` and ``compopt sweep`` writes as ``sweep.csv`` for the same inputs: the C++
code of the two commands computes the rows (experiments/scenario/scenario_rows.h), and
validates every input first, so a bad key or value raises ``compopt.InvalidArgument`` naming
it. The columns are those of docs/whatif.md, "The CSV columns". Each simulation runs in a
forked process (experiments/scenario/forked_simulation.h).
"""
import io
import os
import warnings

from . import _compopt


def _frame(text):
    import pandas
    return pandas.read_csv(io.StringIO(text))


def _source(value):
    """A path-like as its text; preset names, dicts and anything else as given (C++ checks)."""
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def _flag(value, name):
    """A bool option as given; anything else (e.g. "yes") raises naming the value."""
    if not isinstance(value, bool):
        raise _compopt.InvalidArgument("%s=%r: expected True or False" % (name, value))
    return value


def _require_simulator():
    if not _compopt.have_simulator:
        raise RuntimeError("this build of compopt has no simulator (SimGrid): rebuild with it "
                           "to use compopt.simulate and compopt.sweep")


def simulate(workload, cluster, optimizer="adam", gpus=0, *, training=None, sensitivity=False,
             tune_baseline=False, **options):
    """One step of `workload` on `cluster` with `optimizer` on `gpus` GPUs (0: the cluster's).

    workload, cluster: a preset name (``compopt list workloads`` / ``clusters``), a dict with
    the keys of the ``[workload]`` / ``[cluster]`` table (docs/whatif.md), or the path of a
    TOML file holding that table. training: the ``[training]`` table as a dict. options: the
    flags of ``compopt profile`` with underscores: gpus_per_node, inter_node_gbps, topology,
    gpu, platform, batch_per_gpu, grad_accum, overlap ("auto", "on", "off"), buckets,
    implementation ("ddp", "deepspeed-2020", "deepspeed-2021", "zero-1", "zero-2", "zero-3",
    "pytorch-2022"; docs/implementations.md).

    Returns profile.csv as a DataFrame: one row per optimizer stage, with the implementation,
    the buckets used, the algorithm charged, the compute utilisation and its source
    (compute_utilization_source). With tune_baseline=True the rows also carry the columns of
    ``compopt profile --tune-baseline``: the optimizer's baseline as NCCL's default runs it and
    tuned (tuned_baseline_step_time_s, tuned_baseline_algorithm, tuned_baseline_buckets_used,
    speedup_vs_nccl_default, speedup_vs_tuned_baseline, nccl_default_slower; docs/whatif.md,
    "Reading --tune-baseline"). With sensitivity=True,
    the analysis of ``compopt profile --sensitivity`` instead (sensitivity.csv: one row per
    uncertain input with the speedup over the optimizer's baseline at the low and the high end
    of its range; docs/whatif.md, "What the answer depends on"); an optimizer that is its own
    baseline raises compopt.InvalidArgument, and so does sensitivity=True with tune_baseline=True.
    """
    _require_simulator()
    text = _compopt.simulate_profile(_source(workload), _source(cluster), optimizer, gpus,
                                     options, training, _flag(sensitivity, "sensitivity"),
                                     _flag(tune_baseline, "tune_baseline"))
    return _frame(text)


def sweep(config, *, jobs=0, sensitivity=False, tune_baseline=False):
    """The grid of a ``compopt sweep`` config: a dict of its tables or the path of its TOML.

    jobs: simulations at once (0: all cores). Scenarios that do not fit in the GPU's memory
    raise a UserWarning listing them, as the command prints them. Returns sweep.csv as a
    DataFrame: one row per scenario and optimizer stage, with end_to_end_speedup, the
    implementation, buckets_used, algorithm, compute_utilization and its source. With
    tune_baseline=True (or ``tune_baseline = true`` in the config's [sweep] table), the columns
    of ``compopt sweep --tune-baseline`` too (see simulate). With sensitivity=True, the analyses
    of ``compopt sweep --sensitivity`` instead (sensitivity.csv), one per scenario of an
    optimizer whose baseline the sweep holds.
    """
    _require_simulator()
    text, warning = _compopt.sweep(_source(config), jobs, _flag(sensitivity, "sensitivity"),
                                   _flag(tune_baseline, "tune_baseline"))
    if warning:
        warnings.warn(warning.rstrip("\n"), stacklevel=2)
    return _frame(text)
