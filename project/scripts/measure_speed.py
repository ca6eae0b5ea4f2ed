"""Prediction throughput and peak memory of every head, with and without it.

python scripts/measure_speed.py MODELS_DIR DEV_SPACY OUTPUT_JSON [--heads all]
    [--docs 500] [--threads 1] [--gpu-id -1]

For each head, one fresh process over a batch of sentence-length dev docs that
alternates whole-pipeline and encoder-only runs (best of --repeats each), so
both see the same machine load; head_overhead is (full - encoder) / encoder
prediction time: what the head adds. Peak memory is that of the process.
"""
import argparse
import json
from pathlib import Path

from benchmark_corpora import parse_heads
from probe_runner import probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models_dir", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--heads", default="all")
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--gpu-id", type=int, default=-1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--timeout", type=int, default=600)
    args = parser.parse_args()
    results = json.loads(args.output.read_text()) if args.output.exists() else {}
    for head in parse_heads(args.heads):
        model = args.models_dir / head / "model-last"
        if not model.exists():
            print(f"skipping {head}: no {model}")
            continue
        full = probe(
            [str(model), str(args.dev), "--mode", "both", "--docs", str(args.docs),
             "--repeats", str(args.repeats), "--gpu-id", str(args.gpu_id)],
            args.threads, args.timeout, gpu=args.gpu_id >= 0,
        )
        entry = {"full": full, "encoder": {}}
        if "encoder_seconds" in full:
            entry["encoder"] = {
                "seconds": full["encoder_seconds"],
                "seconds_all": full["encoder_seconds_all"],
                "words_per_second": full["encoder_words_per_second"],
            }
        if "seconds" in entry["full"] and "seconds" in entry["encoder"]:
            encoder = entry["encoder"]["seconds"]
            entry["head_overhead"] = round((entry["full"]["seconds"] - encoder) / encoder, 4)
        results[head] = entry
        print(f"{head}: {entry.get('full', {}).get('words_per_second')} words/s, "
              f"head adds {entry.get('head_overhead')}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
