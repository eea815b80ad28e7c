"""compopt.torch optimizers refuse bad input with errors that name the problem."""
import pytest
import torch

import compopt
import compopt.torch as ct


def _param(dtype=torch.float32):
    return torch.nn.Parameter(torch.ones(3, dtype=dtype))


def test_refuses_non_float32_parameters():
    with pytest.raises(TypeError, match="parameter 0: dtype torch.float64, expected torch.float32"):
        ct.SGD([_param(torch.float64)])


def test_refuses_several_param_groups():
    with pytest.raises(ValueError, match="got 2 param groups, expected one"):
        ct.Adam([{"params": [_param()]}, {"params": [_param()]}])


def test_refuses_param_groups_added_later():
    opt = ct.SGD([_param()])
    with pytest.raises(ValueError, match="add_param_group after construction is refused"):
        opt.add_param_group({"params": [_param()]})


def test_refuses_per_group_hyper_parameters():
    with pytest.raises(ValueError, match=r"param group sets \['momentum'\]"):
        ct.SGD([{"params": [_param()], "momentum": 0.9}])


def test_unknown_names_and_keys_raise_invalid_argument():
    with pytest.raises(compopt.InvalidArgument, match="unknown optimizer 'adamx'"):
        ct.Optimizer("adamx", [_param()])
    with pytest.raises(compopt.InvalidArgument, match="beta7"):
        ct.Adam([_param()], beta7=0.5)
    with pytest.raises(compopt.InvalidArgument, match="freeze_step"):
        ct.OneBitLamb([_param()])
    with pytest.raises(compopt.InvalidArgument, match="key 'lr' = 'fast', expected a number"):
        ct.SGD([_param()], lr="fast")
    with pytest.raises(compopt.InvalidArgument, match="lr"):
        ct.SGD([_param()], lr=-1.0)


def test_refuses_bad_betas_and_values():
    with pytest.raises(ValueError, match=r"betas = \(0.9,\): expected a pair"):
        ct.Adam([_param()], betas=(0.9,))
    with pytest.raises(TypeError, match=r"hyper-parameter 'beta' = \[0.9\]"):
        ct.MomentumSGD([_param()], momentum=[0.9])


def test_refuses_lr_changes_against_a_compopt_schedule():
    p = _param()
    opt = ct.SGD([p], lr=0.1, schedule="cosine", total_steps=10)
    opt.param_groups[0]["lr"] = 0.2
    p.grad = torch.ones(3)
    with pytest.raises(ValueError, match="follows schedule=cosine"):
        opt.step()


def test_refuses_a_parameter_moved_off_the_flat_buffer():
    p = _param()
    opt = ct.SGD([p], lr=0.1)
    p.data = torch.zeros(3)
    with pytest.raises(ValueError, match="no longer lies in the optimizer's flat buffer"):
        opt.step()


@pytest.mark.parametrize("make, message", [
    (lambda: ct.SGD([_param()], lr=0.1, momentum=0.9, dampening=0.1), "dampening = 0.1"),
    (lambda: ct.SGD([_param()], lr=0.1, nesterov=True), "nesterov = True needs momentum > 0"),
    (lambda: ct.Adam([_param()], weight_decay=-1.0), r"weight_decay = -1.0: expected a finite"),
    (lambda: ct.SGD([_param()], weight_decay=float("nan")), r"weight_decay = nan: expected"),
], ids=["dampening", "nesterov-without-momentum", "negative-l2", "nan-l2"])
def test_torch_named_arguments_are_checked(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("make, message", [
    (lambda: ct.Adam([_param()], lr=float("nan")), r"key 'lr' = nan, expected a finite number"),
    (lambda: ct.OneBitAdam([_param()], lr=float("inf"), freeze_step=2),
     r"key 'lr' = inf, expected a finite number"),
    (lambda: ct.from_deepspeed({"optimizer": {"type": "Adam", "params": {"lr": float("nan")}}},
                               [_param()]),
     r"DeepSpeed config.optimizer.params.lr = nan, expected a finite number"),
], ids=["nan", "inf", "deepspeed-nan"])
def test_non_finite_learning_rates_are_named(make, message):
    with pytest.raises(compopt.InvalidArgument, match=message):
        make()


def test_refuses_one_moved_parameter_of_many_within_a_round_of_pointer_checks():
    # 40 parameters, 32 data pointers rechecked per step: the last one's turn is the 2nd step.
    params = [_param() for _ in range(40)]
    opt = ct.SGD(params, lr=0.1)
    params[39].data = torch.zeros(3)
    with pytest.raises(ValueError, match="parameter 39: its .data no longer lies"):
        for _ in range(2):
            opt.step()


def test_refuses_a_whole_model_moved_at_the_next_step():
    params = [_param() for _ in range(40)]
    opt = ct.SGD(params, lr=0.1)
    opt.step()
    for p in params:
        p.data = p.data.clone()
    with pytest.raises(ValueError, match="no longer lies in the optimizer's flat buffer"):
        opt.step()
