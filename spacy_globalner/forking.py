"""Make processes forked from a process that ran torch usable.

torch's CPU kernels (and MKL's sgemm inside them) run on GNU OpenMP (libgomp)
threads. libgomp keeps its thread pool across parallel regions; `fork` copies
the pool's bookkeeping into the child but not its threads, so the child's
first parallel region with more than one thread waits forever in
`gomp_team_barrier_wait_end` for threads that do not exist. That is what made
`nlp.pipe(texts, n_process=2)` (spaCy forks its workers on Linux) hang after
the parent had predicted once, or had loaded a pipeline big enough for torch
to copy its weights in parallel.

A region with one thread never touches the pool, so a forked child switches
torch (OpenMP and MKL) to one intra-op thread. The workers of `n_process=N`
are the parallelism there. Processes started with `spawn` or `forkserver`
start a fresh interpreter and are not affected.
"""
import os

import torch


def _one_thread_after_fork() -> None:
    if torch.get_num_threads() > 1:
        torch.set_num_threads(1)


_REGISTERED = False


def register_fork_handler() -> None:
    """Register the after-fork handler once per process (idempotent)."""
    global _REGISTERED
    if not _REGISTERED and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_one_thread_after_fork)
        _REGISTERED = True
