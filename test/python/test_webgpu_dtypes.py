"""webgpu and the dtypes WGSL lacks: Python ints (i64) run in i32 with range-checked inputs, f64 only by
opting in, and a successful run prints nothing on stderr even without XDG_RUNTIME_DIR."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from kiln import Tensor
from kiln.support.errors import CompileError, InputError
from tensor_cases import require

D = "webgpu"


@pytest.fixture(autouse=True)
def _webgpu() -> None:
    require(D)


def test_python_int_programs_run_and_keep_their_dtype() -> None:
    got = (Tensor([1, 2, 3], device=D) * 2).numpy()
    assert got.dtype == np.int64 and got.tolist() == [2, 4, 6]
    assert Tensor.arange(5, device=D).numpy().tolist() == [0, 1, 2, 3, 4]
    assert Tensor([[1.0, 5.0, 2.0], [9.0, 0.0, 1.0]], device=D).argmax(axis=1).numpy().tolist() == [1, 0]


def test_an_input_that_does_not_fit_i32_is_an_error() -> None:
    with pytest.raises(InputError, match="holds 1099511627776, which does not fit int32"):
        (Tensor(np.array([2**40]), device=D) + 1).numpy()


def test_f64_needs_an_opt_in() -> None:
    with pytest.raises(CompileError, match="WGSL has no f64"):
        (Tensor(np.array([1.0]), device=D) + 1).numpy()
    with pytest.warns(UserWarning, match="converted to f32"):
        t = Tensor(np.array([1.5, 2.5])).to(D, allow_downcast=True)
    assert t.dtype == "f32" and (t * 2).numpy().tolist() == [3.0, 5.0]


def test_no_xdg_noise() -> None:
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    code = "from kiln import Tensor; print(Tensor([1.0, 2.0], device='webgpu').exp().numpy())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stderr == "", done.stderr
