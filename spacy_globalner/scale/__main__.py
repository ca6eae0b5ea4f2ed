"""python -m spacy_globalner.scale annotate MODEL INPUT OUTPUT [options]"""
import argparse
import sys
from typing import List, Optional

from wasabi import msg


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spacy_globalner.scale")
    commands = parser.add_subparsers(dest="command", required=True)
    cmd = commands.add_parser(
        "annotate",
        help="Annotate a corpus (.jsonl with a 'text' field, or one document per "
        "line) and write spans and scores as JSON lines (or Parquet with --ray).",
    )
    cmd.add_argument("model", help="Pipeline package name or path, as for spacy.load")
    cmd.add_argument("input", help="Corpus: .jsonl with 'text' (and 'id'), or plain text")
    cmd.add_argument("output", help="Output .jsonl file, or a Parquet folder with --ray")
    cmd.add_argument("--batch-size", type=int, default=64)
    cmd.add_argument("--n-process", type=int, default=1, help="Processes for nlp.pipe")
    cmd.add_argument("--spans-key", action="append", dest="spans_keys",
                     help="doc.spans key to write (repeatable; default: all)")
    cmd.add_argument("--gpu-id", type=int, default=-1, help="GPU for nlp.pipe (-1: CPU)")
    cmd.add_argument("--ray", action="store_true", help="Run on Ray Data")
    cmd.add_argument("--address", default=None, help="Ray cluster address (default: local)")
    cmd.add_argument("--workers", type=int, default=2, help="Pipelines on Ray")
    cmd.add_argument("--format", choices=["jsonl", "parquet"], default=None,
                     help="Output format on Ray (default: from the output's suffix)")
    args = parser.parse_args(argv)
    if args.ray:
        from .ray_annotate import ray_annotate

        count = ray_annotate(
            args.model, args.input, args.output, address=args.address,
            num_workers=args.workers, batch_size=args.batch_size,
            output_format=args.format, spans_keys=args.spans_keys,
        )
    else:
        import spacy

        from .records import annotate, read_texts, write_jsonl

        if args.gpu_id >= 0:
            spacy.require_gpu(args.gpu_id)
        nlp = spacy.load(args.model)
        records = annotate(
            nlp, read_texts(args.input), batch_size=args.batch_size,
            n_process=args.n_process, spans_keys=args.spans_keys,
        )
        count = write_jsonl(args.output, records)
    msg.good(f"Annotated {count} document(s) -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
