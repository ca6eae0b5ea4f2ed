"""Run predict_probe.py in a fresh process with fixed threads, a time limit
and an address-space limit, so one head's runaway cost is a figure, not a
crash of the benchmark."""
import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

PROBE = Path(__file__).parent / "predict_probe.py"
MEMORY_LIMIT_BYTES = int(os.environ.get("BENCH_MEMORY_LIMIT_GB", "10")) * 2**30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def probe(args: List[str], threads: int, timeout: int, gpu: bool = False) -> Dict:
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[name] = str(threads)
    env.setdefault("HF_HUB_OFFLINE", "1")
    cmd = [sys.executable, str(PROBE), *args, "--threads", str(threads)]
    try:
        done = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=timeout,
            preexec_fn=None if gpu else _limit_memory,  # CUDA reserves huge address space
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout} s"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit status {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])
