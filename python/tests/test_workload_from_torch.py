"""compopt.workload_from_torch(): FLOPs and parameters of small models counted by hand, the
transformer and CNN rules the simulator uses for shapes, ResNet-18 against its published
multiply-add count, and the result accepted by compopt.simulate()."""
import pandas as pd
import pytest

import compopt

torch = pytest.importorskip("torch")
nn = torch.nn


def test_a_tiny_mlp_by_hand():
    model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
    w = compopt.workload_from_torch(model, torch.zeros(3, 10), name="mlp")
    # weights 10x20 + 20x5, one position each, 2 FLOPs per multiply-add
    assert w["forward_gflops_per_sample"] * 1e9 == pytest.approx(2 * (10 * 20 + 20 * 5))
    assert (w["name"], w["parameters"], w["tensors"], w["layers"]) == ("mlp", 325, 4, 2)
    # outputs of Linear (20), ReLU (20), Linear (5): 45 fp32 values per sample
    assert w["activation_bytes_per_sample"] == 45 * 4
    assert w["default_batch_per_gpu"] == 3


def _conv_net():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(4, 8, 3, stride=2, padding=1, groups=2), nn.Flatten(),
                         nn.Linear(8 * 4 * 4, 10))


def test_a_tiny_conv_net_by_hand():
    w = compopt.workload_from_torch(_conv_net(), torch.zeros(2, 1, 8, 8))
    conv1 = 2 * (4 * 1 * 3 * 3) * (8 * 8)  # 36 weights at 64 output positions
    conv2 = 2 * (8 * 2 * 3 * 3) * (4 * 4)  # groups=2: 144 weights at 16 positions
    linear = 2 * (128 * 10)
    assert w["forward_gflops_per_sample"] * 1e9 == pytest.approx(conv1 + conv2 + linear)
    assert w["parameters"] == 36 + 4 + 144 + 8 + 1280 + 10
    assert w["name"] == "torch-sequential"


def test_a_conv_net_simulates_as_its_cnn_layers_description():
    # The simulator's [[workload.cnn_layers]] rule is the same 2 x weights x positions: the
    # same net described both ways gives the same compute times.
    net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
                        nn.Flatten(), nn.Linear(32 * 8 * 8, 10))
    counted = compopt.workload_from_torch(net, torch.zeros(4, 3, 8, 8), name="net")
    described = {"name": "net", "default_batch_per_gpu": 4, "cnn_layers": [
        {"kind": "conv", "in": 3, "out": 16, "kernel": 3, "output": 8},
        {"kind": "conv", "in": 16, "out": 32, "kernel": 3, "output": 8},
        {"kind": "linear", "in": 32 * 8 * 8, "out": 10}]}
    columns = ["forward_s", "backward_compute_s", "step_s", "comm_s", "step_time_s"]
    a = compopt.simulate(counted, "ethernet-a100-8", "adam", 16)[columns]
    b = compopt.simulate(described, "ethernet-a100-8", "adam", 16)[columns]
    pd.testing.assert_frame_equal(a, b)


def test_a_transformer_stack_matches_the_simulators_transformer_rule():
    layers, hidden, sequence = 2, 64, 16
    block = nn.TransformerEncoderLayer(hidden, nhead=4, dim_feedforward=4 * hidden,
                                       batch_first=True)
    model = nn.TransformerEncoder(block, num_layers=layers)
    w = compopt.workload_from_torch(model, torch.zeros(2, sequence, hidden))
    # docs/whatif.md: forward FLOPs = 24 layers h^2 s + 4 layers s^2 h (no LM head)
    rule = 24 * layers * hidden ** 2 * sequence + 4 * layers * sequence ** 2 * hidden
    assert w["forward_gflops_per_sample"] * 1e9 == pytest.approx(rule)
    assert w["layers"] == 3 * layers  # attention and two Linear per block


def test_attention_with_other_key_length_by_hand():
    attention = nn.MultiheadAttention(8, 2)  # (positions, batch, embedding)
    query, key = torch.zeros(5, 3, 8), torch.zeros(7, 3, 8)
    w = compopt.workload_from_torch(attention, (query, key, key), batch_size=3)
    # q and output projections at 5 positions, k and v at 7; scores and sum 2 x 5 x 7 x 8 each
    expected = 2 * 64 * (5 + 5 + 7 + 7) + 2 * (2 * 5 * 7 * 8)
    assert w["forward_gflops_per_sample"] * 1e9 == pytest.approx(expected)


def test_resnet18_counts_the_published_multiply_adds():
    torchvision = pytest.importorskip("torchvision")
    w = compopt.workload_from_torch(torchvision.models.resnet18(), torch.zeros(1, 3, 224, 224))
    # He et al. 2016, Table 1: 1.8 x 10^9 multiply-adds; torchvision: 11,689,512 parameters
    assert w["forward_gflops_per_sample"] / 2 == pytest.approx(1.8, abs=0.05)
    assert w["parameters"] == 11689512


def test_batchnorm_statistics_are_left_as_they_were():
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
    before = [b.clone() for b in model.buffers()]
    compopt.workload_from_torch(model, torch.randn(8, 4))
    for b, saved in zip(model.buffers(), before):
        assert torch.equal(b, saved)


def test_simulate_takes_the_result_and_keys_override_the_counts():
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    w = compopt.workload_from_torch(model, torch.zeros(8, 256), name="mlp", layers=1,
                                    compute_precision="fp16")
    assert (w["layers"], w["compute_precision"]) == (1, "fp16")
    frame = compopt.simulate(w, "ethernet-v100-4", "onebit-adam", 16)
    assert list(frame["stage"]) == ["warmup", "compression"]
    assert (frame["workload"] == "mlp").all() and (frame["batch_per_gpu"] == 8).all()


@pytest.mark.parametrize("model, sample, kwargs, message", [
    (nn.Linear(2, 2), "text", {}, "sample must be a tensor or a tuple of tensors"),
    (nn.ReLU(), torch.zeros(2, 2), {}, "no Linear, Conv1d/2d/3d or MultiheadAttention ran"),
    (nn.Linear(2, 2), torch.zeros(2, 2), {"batch_size": 0}, "batch_size=0, expected an int"),
    (nn.Linear(2, 2), torch.zeros(2, 2), {"batch_size": "2"}, "batch_size='2', expected an int"),
])
def test_bad_input_raises_value_error_naming_it(model, sample, kwargs, message):
    with pytest.raises(ValueError, match=message):
        compopt.workload_from_torch(model, sample, **kwargs)


def test_a_bad_override_is_refused_by_the_simulator_by_name():
    w = compopt.workload_from_torch(nn.Linear(2, 2), torch.zeros(1, 2), layerz=3)
    with pytest.raises(compopt.InvalidArgument, match="unknown key 'workload.layerz'"):
        compopt.simulate(w, "ethernet-v100-4")


def test_measured_on_the_cpu_fills_positive_times_and_the_simulator_takes_them():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    before = [p.detach().clone() for p in model.parameters()]
    w = compopt.workload_from_torch(model, torch.randn(8, 64), name="mlp", measure_on="cpu",
                                    iterations=3, warmup=1)
    assert w["measured_forward_ms"] > 0 and w["measured_backward_ms"] > 0
    assert w["measured_batch_per_gpu"] == 8
    # the copy ran: the model's parameters and gradients are as they were
    for p, saved in zip(model.parameters(), before):
        assert torch.equal(p, saved) and p.grad is None
    # at the measured batch the step's passes are the measured ones; at twice the batch,
    # twice them (docs/whatif.md, "Measured compute": linear in the micro-batch)
    frame = compopt.simulate(w, "ethernet-a100-8", "adam", 8)
    assert (frame["compute_source"] == "measured").all()
    assert frame["forward_s"].iloc[0] == pytest.approx(w["measured_forward_ms"] / 1e3, rel=1e-5)
    assert frame["backward_compute_s"].iloc[0] == pytest.approx(
        w["measured_backward_ms"] / 1e3, rel=1e-5)
    double = compopt.simulate(w, "ethernet-a100-8", "adam", 8, batch_per_gpu=16)
    assert double["forward_s"].iloc[0] == pytest.approx(2 * w["measured_forward_ms"] / 1e3,
                                                        rel=1e-5)
    unmeasured = compopt.workload_from_torch(model, torch.randn(8, 64), name="mlp")
    assert "measured_forward_ms" not in unmeasured
    modelled = compopt.simulate(unmeasured, "ethernet-a100-8", "adam", 8)
    assert (modelled["compute_source"] == "model").all()


@pytest.mark.parametrize("kwargs, message", [
    ({"measure_on": "tpu"}, "measure_on='tpu', expected 'cpu' or 'cuda'"),
    ({"measure_on": "meta"}, "measure_on='meta', expected 'cpu' or 'cuda'"),
    ({"measure_on": "cuda:64"}, "measure_on='cuda:64', but this machine has"),
    ({"measure_on": "cpu", "iterations": 0}, "iterations=0, expected an int >= 1"),
    ({"measure_on": "cpu", "iterations": 2.5}, "iterations=2.5, expected an int >= 1"),
    ({"measure_on": "cpu", "warmup": -1}, "warmup=-1, expected an int >= 0"),
])
def test_bad_measurement_options_are_refused_before_any_run(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compopt.workload_from_torch(nn.Linear(2, 2), torch.zeros(2, 2), **kwargs)


@pytest.mark.parametrize("key, value, message", [
    ("measured_forward_ms", 0, "measured_forward_ms = 0, expected a finite time"),
    ("measured_backward_ms", -3.0, "measured_backward_ms = -3, expected a finite time"),
    ("measured_forward_ms", float("nan"), "measured_forward_ms = nan, expected a finite time"),
    ("measured_batch_per_gpu", 0, "measured_batch_per_gpu = 0, expected an integer >= 1"),
])
def test_bad_measured_times_are_refused_by_the_simulator(key, value, message):
    w = compopt.workload_from_torch(nn.Linear(2, 2), torch.zeros(1, 2), measured_forward_ms=1.0,
                                    measured_backward_ms=2.0, measured_batch_per_gpu=1)
    w[key] = value
    with pytest.raises(compopt.InvalidArgument, match=message):
        compopt.simulate(w, "ethernet-v100-4")


class _FakeEvent:
    """A CUDA event of a fake device whose clock the test sets: record() reads it."""

    def __init__(self, log, clock, enable_timing):
        assert enable_timing
        self._log, self._clock, self.at = log, clock, None

    def record(self):
        self.at = self._clock[0]
        self._log.append("record")

    def synchronize(self):
        self._log.append("synchronize")

    def elapsed_time(self, end):
        assert self.at is not None and end.at is not None, "elapsed_time of an unrecorded event"
        return end.at - self.at


def test_the_cuda_clock_times_the_queued_work_between_two_events(monkeypatch):
    # No GPU here: the CUDA branch of the clock runs against fake events, which checks what it
    # asks of torch.cuda (an event before and after, the end synchronized before it is read).
    from compopt import workload as workload_module
    log, clock = [], [0.0]
    fake_cuda = type("FakeCuda", (), {"Event": staticmethod(
        lambda enable_timing: _FakeEvent(log, clock, enable_timing))})
    timer = workload_module._Clock(torch.device("cuda"))
    monkeypatch.setattr(timer, "_torch", type("FakeTorch", (), {"cuda": fake_cuda}))
    clock[0] = 5.0
    timer.start()
    clock[0] = 12.5  # the queued work ends 7.5 ms later
    assert timer.stop_ms() == 7.5
    assert log == ["record", "record", "synchronize"]
