"""``kiln.optim``: optimizers whose updates are tensor ops, so ``@kiln.jit`` traces them with the step.

Each optimizer holds its parameters (tensors with ``requires_grad``) and its state (moments, the step count)
as realized tensors, and ``step()`` ``assign``s new values to them under ``no_grad``. Called eagerly the
updates are lazy like any other op; called inside a jitted training step they become outputs of the one
compiled program and are written back on every replay. Hyperparameters are Python numbers, compiled in as
constants (changing one retraces).
"""

from __future__ import annotations

from collections.abc import Iterable

from kiln.jit.autograd import no_grad
from kiln.jit.tensor import Tensor


class Optimizer:
    """The parameters, ``zero_grad`` and the loop over parameters that have a gradient."""

    def __init__(self, params: Iterable[Tensor], lr: float):
        self.params = list(params)
        if not self.params:
            raise ValueError("the optimizer got an empty parameter list")
        for p in self.params:
            if not isinstance(p, Tensor) or not p._requires_grad:
                raise ValueError("optimizer parameters must be tensors with requires_grad=True")
        self.lr = float(lr)

    def zero_grad(self) -> None:
        """Forget the gradients (``.grad = None``), so the next ``backward`` starts from zero."""
        for p in self.params:
            p.grad = None

    def step(self) -> None:
        """Update every parameter that has a gradient."""
        with no_grad():
            for i, p in enumerate(self.params):
                if p.grad is not None:
                    self._update(i, p, p.grad)

    def _update(self, i: int, p: Tensor, g: Tensor) -> None:
        raise NotImplementedError

    @staticmethod
    def _zeros(p: Tensor) -> Tensor:
        return p.zeros_like().realize()


class SGD(Optimizer):
    """``v = momentum * v + (g + weight_decay * p)``; ``p -= lr * v`` (PyTorch's SGD; ``nesterov`` uses
    ``g + momentum * v`` as the step)."""

    def __init__(
        self, params: Iterable[Tensor], lr: float, momentum: float = 0.0, weight_decay: float = 0.0,
        nesterov: bool = False,
    ):
        super().__init__(params, lr)
        self.momentum, self.weight_decay, self.nesterov = float(momentum), float(weight_decay), nesterov
        self.velocity = [self._zeros(p) for p in self.params] if momentum else []

    def _update(self, i: int, p: Tensor, g: Tensor) -> None:
        if self.weight_decay:
            g = g + self.weight_decay * p
        if self.momentum:
            v = self.velocity[i].assign(self.momentum * self.velocity[i] + g)
            g = g + self.momentum * v if self.nesterov else v
        p.assign(p - self.lr * g)


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``weight_decay`` adds ``weight_decay * p`` to the gradient
    (L2, as PyTorch's Adam). The step count is a tensor, so a jitted step stays one program."""

    decoupled = False

    def __init__(
        self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0.0,
    ):
        super().__init__(params, lr)
        (self.beta1, self.beta2), self.eps, self.weight_decay = map(float, betas), float(eps), float(weight_decay)
        self.m = [self._zeros(p) for p in self.params]
        self.v = [self._zeros(p) for p in self.params]
        self.t = Tensor(0.0, device=self.params[0].device).realize()

    def step(self) -> None:
        with no_grad():
            self.t.assign(self.t + 1)
        super().step()

    def _update(self, i: int, p: Tensor, g: Tensor) -> None:
        if self.weight_decay and not self.decoupled:
            g = g + self.weight_decay * p
        m = self.m[i].assign(self.beta1 * self.m[i] + (1 - self.beta1) * g)
        v = self.v[i].assign(self.beta2 * self.v[i] + (1 - self.beta2) * g * g)
        t = self.t.cast(p.dtype)
        m_hat = m / (1 - Tensor(self.beta1, dtype=p.dtype, device=p.device) ** t)
        v_hat = v / (1 - Tensor(self.beta2, dtype=p.dtype, device=p.device) ** t)
        update = m_hat / (v_hat.sqrt() + self.eps)
        if self.weight_decay and self.decoupled:
            update = update + self.weight_decay * p
        p.assign(p - self.lr * update)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p -= lr * weight_decay * p`` beside the
    Adam step instead of through the moments."""

    decoupled = True

    def __init__(
        self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0.01,
    ):
        super().__init__(params, lr, betas, eps, weight_decay)
