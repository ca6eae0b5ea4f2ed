"""A clear error for `--gpu-id N` where no GPU can be used.

spaCy's commands call `setup_gpu(use_gpu)`, which ends in a traceback from
Thinc ("Cannot use GPU, CuPy is not installed" or "GPU is not accessible")
when the machine has no usable GPU. This module is loaded through the
`spacy_cli` entry point when the `spacy` command starts, and puts a check
before spaCy's own `setup_gpu` in the commands that take --gpu-id: it prints
catalogue error E441 (what is missing and what to do) and exits 1.
"""
import importlib

from thinc.util import gpu_is_available, has_cupy
from wasabi import msg

from .errors import Errors, Warnings

# spaCy commands that bound setup_gpu by name at import.
_COMMANDS = ("_util", "train", "evaluate", "apply", "pretrain", "benchmark_speed",
             "find_threshold", "init_pipeline", "debug_model")


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


def _checked(setup_gpu):
    def setup_gpu_checked(use_gpu: int, *args, **kwargs):
        problem = gpu_problem(use_gpu)
        if problem:
            msg.fail(Errors.E441.format(gpu_id=use_gpu, problem=problem), exits=1)
        torch_problem = torch_gpu_problem(use_gpu) if use_gpu >= 0 else ""
        if torch_problem:
            msg.warn(Warnings.W007.format(gpu_id=use_gpu, problem=torch_problem))
        return setup_gpu(use_gpu, *args, **kwargs)

    setup_gpu_checked.__wrapped__ = setup_gpu
    return setup_gpu_checked


def install_gpu_check() -> None:
    """Put the check before spaCy's setup_gpu in each command (idempotent)."""
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"spacy.cli.{name}")
        except ImportError:
            continue
        setup_gpu = getattr(module, "setup_gpu", None)
        if setup_gpu is not None and not hasattr(setup_gpu, "__wrapped__"):
            module.setup_gpu = _checked(setup_gpu)


install_gpu_check()
