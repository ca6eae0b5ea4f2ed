"""Command line: python -m spacy_globalner.corpora convert INPUT OUTPUT --format FORMAT"""
import argparse
import sys
from typing import List, Optional

from wasabi import msg

from .convert import FORMATS, ConvertStats, convert, resolve_format
from .docs import CHINESE_TOKENIZER_NOTE


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return number


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m spacy_globalner.corpora",
        description="Convert NER corpora from their upstream formats to spaCy DocBin files.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser(
        "convert",
        help="Convert one corpus file to a .spacy DocBin.",
        description="Convert one corpus file to a .spacy DocBin with every entity "
        "in doc.spans[SPANS_KEY] and the outermost layer in doc.ents.",
    )
    command.add_argument("input_path", metavar="INPUT", help="upstream corpus file")
    command.add_argument("output_path", metavar="OUTPUT", help=".spacy file to write")
    command.add_argument(
        "--format", "-f", required=True, choices=["auto", *FORMATS],
        help="the input format; auto infers it from the file name",
    )
    command.add_argument(
        "--lang", "-l", default=None,
        help="language of the docs (default: en for genia and conll, de for "
        "germeval, zh for cluener, bmes and weibo)",
    )
    command.add_argument("--spans-key", "-k", default="sc", help="key in doc.spans (default: sc)")
    command.add_argument("--limit", "-n", type=_positive_int, default=None,
                         help="convert at most N sentences")
    command.add_argument(
        "--level-keys", nargs=2, metavar=("OUTER", "INNER"), default=None,
        help="germeval: also put the outer and the inner level alone under these doc.spans keys",
    )
    return parser


def print_stats(stats: ConvertStats) -> None:
    msg.good(
        f"Wrote {stats.n_docs} docs to {stats.output_path} "
        f"(format {stats.format}, lang {stats.lang}, {stats.seconds:.1f} s)"
    )
    share = f"{stats.nested_share:.1%}"
    msg.table(
        [
            ("docs", stats.n_docs),
            ("tokens", stats.n_tokens),
            ("entities", stats.n_entities),
            ("nested entities", f"{stats.n_nested} ({share})"),
            ("same span, another label", stats.n_same_span),
            ("crossing entities", stats.n_crossing),
            ("doc.ents (outer layer)", stats.n_ents),
            ("max entity length (tokens)", stats.max_length),
        ],
    )
    msg.info(f"Labels ({len(stats.labels)})")
    msg.table(list(stats.labels.items()))
    if stats.repairs:
        msg.warn("Repaired or skipped", ", ".join(f"{k}: {v}" for k, v in stats.repairs.items()))
    if FORMATS[stats.format].per_char:
        msg.warn("Chinese tokenizer", CHINESE_TOKENIZER_NOTE)


def main(argv: Optional[List[str]] = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        format = resolve_format(args.format, args.input_path)
        stats = convert(
            args.input_path, args.output_path, format=format, lang=args.lang,
            spans_key=args.spans_key, limit=args.limit, level_keys=args.level_keys,
        )
    except ValueError as err:
        msg.fail("Conversion failed", str(err))
        return 1
    print_stats(stats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
