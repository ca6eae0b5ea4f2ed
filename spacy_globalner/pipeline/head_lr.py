"""The head's own learning rate: a proxy of the optimizer that scales it for
the parameters of one subtree, so that a head trained from scratch can learn
faster than the pretrained encoder below it."""
from typing import Any

from thinc.api import Model, Optimizer


class HeadScaledOptimizer:
    """A thin proxy of a Thinc optimizer that scales the learning rate of the
    parameters of one subtree (the head): Thinc's optimizers take `lr_scale`
    per call, and keys are (node or shim id, name), so the head's keys are
    known from its nodes and their shims. Everything else is the optimizer's.

    optimizer (Optimizer): The optimizer of the training loop.
    head (Model): The subtree whose parameters get the scale.
    lr_scale (float): Factor on the learning rate of those parameters.
    """

    def __init__(self, optimizer: Optimizer, head: Model, lr_scale: float) -> None:
        self.optimizer = optimizer
        self.lr_scale = lr_scale
        self.head_ids = set()
        for node in head.walk():
            self.head_ids.add(node.id)
            self.head_ids.update(shim.id for shim in node.shims)

    def __call__(self, key, weights, gradient, *, lr_scale: float = 1.0):
        if key[0] in self.head_ids:
            lr_scale = lr_scale * self.lr_scale
        return self.optimizer(key, weights, gradient, lr_scale=lr_scale)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.optimizer, name)
