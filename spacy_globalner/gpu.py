"""A clear error for `--gpu-id N` in this package's own commands where no GPU
can be used.

`spacy.require_gpu(N)` ends in a traceback from Thinc ("Cannot use GPU, CuPy is
not installed" or "GPU is not accessible") when the machine has no usable GPU.
`require_gpu` checks first and raises catalogue error E441 (what is missing and
what to do); the `spacy globalner` commands that take --gpu-id call it. spaCy's
own commands (`spacy train --gpu-id 0`) are left as spaCy wrote them.
"""
import warnings

from thinc.util import gpu_is_available, has_cupy

from .errors import Errors, Warnings


def gpu_problem(gpu_id: int) -> str:
    """Why GPU `gpu_id` cannot be used, or "" when it can (or gpu_id < 0)."""
    if gpu_id < 0:
        return ""
    if not has_cupy:
        return "CuPy is not installed"
    if not gpu_is_available():
        return "CuPy finds no CUDA device"
    return ""


def torch_gpu_problem(gpu_id: int) -> str:
    """Why torch cannot use GPU `gpu_id`, or "" when it can. Only a warning:
    a pipeline without torch components runs on CuPy alone."""
    import torch

    if not torch.cuda.is_available():
        return f"torch {torch.__version__} has no CUDA support or sees no CUDA device"
    if gpu_id >= torch.cuda.device_count():
        return f"only {torch.cuda.device_count()} CUDA device(s) are visible to torch"
    return ""


def require_gpu(gpu_id: int) -> None:
    """Run what follows on GPU `gpu_id` (spacy.require_gpu), or on the CPU for
    gpu_id < 0. Raises E441 (ValueError) where CuPy cannot use the GPU, and
    warns W007 where CuPy can but torch cannot.

    gpu_id (int): The GPU's index, as given to --gpu-id; -1 means the CPU.
    """
    if gpu_id < 0:
        return
    problem = gpu_problem(gpu_id)
    if problem:
        raise ValueError(Errors.E441.format(gpu_id=gpu_id, problem=problem))
    torch_problem = torch_gpu_problem(gpu_id)
    if torch_problem:
        warnings.warn(Warnings.W007.format(gpu_id=gpu_id, problem=torch_problem))
    import spacy

    spacy.require_gpu(gpu_id)

