"""Prediction time and peak memory against document length, for every head.

python scripts/length_scaling.py MODELS_DIR DEV_SPACY OUTPUT_JSON [--heads all]
    [--lengths 100,1000,5000,20000] [--threads 1] [--gpu-id -1]

One fresh process per head and length, predicting one doc of that many
tokens (dev sentences one after another). memory_exponent is the slope of
log(memory growth) against log(length) between the two longest lengths
measured: about 1 for linear growth, 2 for quadratic.
"""
import argparse
import json
import math
from pathlib import Path

from benchmark_corpora import parse_heads
from probe_runner import probe


def exponent(points, key):
    usable = [(p["n_tokens"], p[key]) for p in points if "error" not in p and p.get(key, 0) > 0]
    if len(usable) < 2:
        return None
    (l1, v1), (l2, v2) = usable[-2], usable[-1]
    return round(math.log(v2 / v1) / math.log(l2 / l1), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models_dir", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--heads", default="all")
    parser.add_argument("--lengths", default="100,1000,5000,20000")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--gpu-id", type=int, default=-1)
    parser.add_argument("--timeout", type=int, default=300)
    args = parser.parse_args()
    lengths = [int(n) for n in args.lengths.split(",")]
    results = json.loads(args.output.read_text()) if args.output.exists() else {}
    for head in parse_heads(args.heads):
        model = args.models_dir / head / "model-last"
        if not model.exists():
            print(f"skipping {head}: no {model}")
            continue
        points = []
        for length in lengths:
            point = probe(
                [str(model), str(args.dev), "--length", str(length), "--gpu-id", str(args.gpu_id)],
                args.threads, args.timeout, gpu=args.gpu_id >= 0,
            )
            point.setdefault("n_tokens", length)
            points.append(point)
            print(f"{head} {length}: {point.get('seconds', point.get('error'))} s, "
                  f"+{point.get('peak_rss_growth_mb')} MB")
            if "error" in point:
                break  # longer docs would fail the same way
        results[head] = {
            "points": points,
            "memory_exponent": exponent(points, "peak_rss_growth_mb"),
            "time_exponent": exponent(points, "seconds"),
        }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
