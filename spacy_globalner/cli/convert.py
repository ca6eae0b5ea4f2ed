"""spacy globalner convert INPUT OUTPUT [--format FORMAT]"""
from pathlib import Path
from typing import Optional, Tuple

import typer
from wasabi import msg

from ..corpora.convert import FORMATS, ConvertStats, convert, resolve_format
from ..corpora.docs import CHINESE_TOKENIZER_NOTE
from ._app import Arg, Opt, globalner_cli
from .stats import count_rows


@globalner_cli.command("convert")
def convert_cli(
    # fmt: off
    input_path: Path = Arg(..., help="Upstream corpus file (one split)", metavar="INPUT"),
    output_path: Path = Arg(..., help=".spacy file to write", metavar="OUTPUT"),
    format: str = Opt("auto", "--format", "-f",
                      help=f"The input format: auto (from the file name) or one of {', '.join(FORMATS)}"),
    lang: Optional[str] = Opt(None, "--lang", "-l",
                              help="Language of the docs (default: en for genia, genia_xml, w2ner and conll, "
                                   "de for germeval, zh for cluener, bmes and weibo)"),
    spans_key: str = Opt("sc", "--spans-key", "-k", help="Key in doc.spans"),
    limit: Optional[int] = Opt(None, "--limit", "-n", help="Convert at most N sentences"),
    level_keys: Optional[Tuple[str, str]] = Opt(None, "--level-keys", metavar="OUTER INNER",
                                                help="germeval: also put the outer and the inner level alone "
                                                     "under these two doc.spans keys"),
    split: Optional[str] = Opt(None, "--split", "-s",
                               help="genia_xml: train, dev or test, the literature's split of GENIA 3.02 "
                                    "in corpus order (default: every sentence)"),
    # fmt: on
):
    """Convert one corpus file to a .spacy DocBin with every entity in
    doc.spans[SPANS_KEY] and the outermost layer in doc.ents.
    """
    try:
        stats = convert(
            input_path, output_path, format=resolve_format(format, input_path),
            lang=lang, spans_key=spans_key, limit=limit, level_keys=level_keys, split=split,
        )
    except ValueError as err:
        msg.fail("Conversion failed", str(err))
        raise typer.Exit(code=1) from None
    print_stats(stats)


def print_stats(stats: ConvertStats) -> None:
    """Print what a conversion wrote: counts, labels, repairs."""
    msg.good(
        f"Wrote {stats.n_docs} docs to {stats.output_path} "
        f"(format {stats.format}, lang {stats.lang}, {stats.seconds:.1f} s)"
    )
    msg.table(count_rows(stats))
    msg.info(f"Labels ({len(stats.labels)})")
    msg.table(list(stats.labels.items()))
    if stats.repairs:
        msg.warn("Repaired or skipped", ", ".join(f"{k}: {v}" for k, v in stats.repairs.items()))
    if FORMATS[stats.format].per_char:
        msg.warn("Chinese tokenizer", CHINESE_TOKENIZER_NOTE)
