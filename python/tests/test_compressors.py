"""Compressors and the compressed allreduce on one rank, against values derived by hand from
docs/compressors.md and docs/algorithms.md (multi-rank runs: test_collectives_launched.py)."""
import numpy as np
import pytest
import torch

import compopt


def _sign_reference(y):
    """docs/compressors.md, sign: s = ||y||_2 / sqrt(k) (accumulated in double), s * sgn(y)
    with sgn(0) = +1."""
    s = np.float32(np.sqrt(np.sum(y.astype(np.float64) ** 2) / y.size))
    return np.where(y >= 0, s, -s).astype(np.float32)


def test_names_follow_the_registry():
    assert compopt.compressor_names() == ["identity", "fp16", "sign", "binary", "nbit", "topk"]
    assert compopt.Compressor("nbit", 4).name == "nbit:4"
    assert compopt.Compressor("nbit").name == "nbit:8"


@pytest.mark.parametrize("spec, wire", [
    ("identity", 36), ("fp16", 18), ("sign", 6), ("binary", 2), ("nbit:3", 8)])
def test_wire_bytes_of_nine_values(spec, wire):  # the examples of docs/compressors.md
    assert compopt.Compressor(spec).wire_bytes(9) == wire


def test_sign_encode_decode_by_hand():
    x = np.array([3.0, -4.0, 0.0, -0.0, 1.0], np.float32)
    scale, payload = compopt.Compressor("sign").encode(x)
    assert scale == pytest.approx(np.sqrt(26 / 5), rel=1e-7)
    assert payload.dtype == np.uint8 and payload.tolist() == [0b11101]  # LSB first, 0 -> 1
    out = compopt.Compressor("sign").decode(scale, payload, size=5)
    np.testing.assert_array_equal(out, _sign_reference(x))


def test_fp16_round_trip_is_numpy_half():
    x = np.array([0.1, 1 / 3, 65504.0, 1e-8], np.float32)
    out, scale = compopt.Compressor("fp16").round_trip(x)
    assert scale == 1.0
    np.testing.assert_array_equal(out, x.astype(np.float16).astype(np.float32))


def test_torch_round_trip_writes_a_tensor():
    x = torch.tensor([0.5, -2.0, 1.5])
    out, _ = compopt.Compressor("identity").round_trip(x)
    assert isinstance(out, torch.Tensor) and torch.equal(out, x)


def test_stochastic_encodes_follow_the_key():
    binary, x = compopt.Compressor("binary"), np.linspace(-0.9, 0.9, 64, dtype=np.float32)
    assert binary.is_stochastic and not binary.has_scale
    same = [binary.encode(x, seed=3, step=1)[1] for _ in range(2)]
    np.testing.assert_array_equal(same[0], same[1])
    assert not np.array_equal(same[0], binary.encode(x, seed=4, step=1)[1])


def test_flat_compressed_allreduce_on_one_rank_by_hand():
    """n = 1: worker y = pad(x) + e_w is sent as sign(y); the server re-encodes it unchanged
    (every |value| is the scale), so x := sign(y)[:d] and e_w := y - sign(y)."""
    rng = np.random.default_rng(0)
    allreduce = compopt.CompressedAllreduce(13, "sign")
    error = np.zeros(16, np.float32)  # padded to a multiple of 8
    for step in range(3):
        x = rng.standard_normal(13).astype(np.float32)
        y = np.concatenate([x, np.zeros(3, np.float32)]) + error
        sent = _sign_reference(y)
        np.testing.assert_allclose(allreduce(x), sent[:13], rtol=1e-6)
        error = y - sent
        np.testing.assert_allclose(allreduce.worker_error, error, rtol=1e-6, atol=1e-7)
        assert allreduce.step == step + 1
    np.testing.assert_array_equal(allreduce.server_error, np.zeros(16, np.float32))


@pytest.mark.parametrize("hierarchical", [False, True])
def test_state_dict_resumes_bit_for_bit(hierarchical):
    rng = np.random.default_rng(1)
    inputs = rng.standard_normal((4, 21)).astype(np.float32)
    first = compopt.CompressedAllreduce(21, "nbit:4", hierarchical=hierarchical, seed=9)
    for x in inputs[:3]:
        first(x.copy())
    resumed = compopt.CompressedAllreduce(21, compopt.Compressor("nbit", 4),
                                          hierarchical=hierarchical, seed=9)
    resumed.load_state_dict(first.state_dict())
    assert resumed.hierarchical == hierarchical and resumed.step == 3
    np.testing.assert_array_equal(first(inputs[3].copy()), resumed(inputs[3].copy()))
    np.testing.assert_array_equal(first.worker_error, resumed.worker_error)


def test_reset_restarts_the_sequence():
    allreduce, x = compopt.CompressedAllreduce(8, "binary", seed=2), np.full(8, 0.3, np.float32)
    first = allreduce(x.copy())
    allreduce(x.copy())
    allreduce.reset()
    assert allreduce.step == 0 and not allreduce.worker_error.any()
    np.testing.assert_array_equal(allreduce(x.copy()), first)


@pytest.mark.parametrize("call, error, message", [
    (lambda: compopt.Compressor("zip"), compopt.InvalidArgument,
     'invalid compressor spec "zip"; expected one of identity | fp16'),
    (lambda: compopt.Compressor("nbit", 17), compopt.InvalidArgument,
     "bit width 17 is outside 2..16"),
    (lambda: compopt.Compressor("sign", 2), compopt.InvalidArgument, "sign takes no parameter"),
    (lambda: compopt.Compressor("sign").decode(1.0, np.zeros(2, np.uint8), size=17),
     compopt.InvalidArgument, "sign decode: payload of 2 bytes for 17 elements, expected 3"),
    (lambda: compopt.Compressor("sign").decode(1.0, np.zeros(2, np.uint8)), TypeError,
     "decode: give out"),
    (lambda: compopt.Compressor("sign").encode(np.ones(3, np.int32)), compopt.InvalidArgument,
     "x: dtype with format 'i', expected float32"),
    (lambda: compopt.CompressedAllreduce(8, "topk"), compopt.InvalidArgument,
     "compressor: topk:0.01 is not chunkable"),
    (lambda: compopt.CompressedAllreduce(-1), compopt.InvalidArgument,
     "size: -1, expected an integer >= 0"),
    (lambda: compopt.CompressedAllreduce(8)(np.ones(9, np.float32)), compopt.InvalidArgument,
     r"x: 9 elements, expected 8 \(the size this CompressedAllreduce was built for\)"),
    (lambda: compopt.CompressedAllreduce(8).load_state_dict(
        {"worker_error": np.ones(3, np.float32), "server_error": np.ones(8, np.float32),
         "step": 1}), compopt.InvalidArgument, "worker_error: 3 elements, expected 8"),
])
def test_bad_input_raises_naming_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()
