"""Logits and probabilities: the one sigmoid and its inverse that every
decoder, component and the calibration use, so that a threshold and a span's
score (doc.spans[key].attrs["scores"]) are the same number everywhere."""
from typing import Union

import numpy

ArrayOrFloat = Union[float, numpy.ndarray]


def sigmoid(x: ArrayOrFloat) -> ArrayOrFloat:
    """1 / (1 + e^-x), through tanh: no overflow warning for large |x|."""
    return 0.5 * (1.0 + numpy.tanh(0.5 * numpy.asarray(x, dtype="float64")))


def logit(p: ArrayOrFloat) -> ArrayOrFloat:
    """The inverse of `sigmoid`: log(p / (1 - p)); -inf at 0, inf at 1."""
    p = numpy.asarray(p, dtype="float64")
    with numpy.errstate(divide="ignore"):
        return numpy.log(p) - numpy.log1p(-p)
