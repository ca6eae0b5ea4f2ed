"""spacy globalner stats CORPUS.spacy [DEV.spacy] [--max-span-width N]

What `spacy debug data` reports for spaCy's own components, for the entities
of this package's: labels, nesting, entity lengths, and how many entities of
a second corpus (dev) were already seen in the first (train).
"""
import zlib
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

import typer
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab
from wasabi import msg

from ..corpora.stats import CorpusStats, corpus_stats, seen_entities
from ..errors import Errors
from ._app import Arg, Opt, globalner_cli

# Lengths up to this many tokens get a row each in the table; longer ones share one.
LENGTH_ROWS = 10


@globalner_cli.command("stats")
def stats_cli(
    # fmt: off
    corpus_path: Path = Arg(..., help="Corpus .spacy file, e.g. train.spacy", metavar="CORPUS"),
    other_path: Optional[Path] = Arg(None, help="A second corpus, e.g. dev.spacy: the share of its "
                                                "entities (text and label) seen in CORPUS", metavar="DEV"),
    spans_key: str = Opt("sc", "--spans-key", "-k", help="Key in doc.spans of the entities (doc.ents without it)"),
    max_span_width: Optional[int] = Opt(None, "--max-span-width", "-w", min=1,
                                        help="Count the entities longer than this many tokens"),
    # fmt: on
):
    """Print the entity statistics of a corpus that `spacy debug data` gives
    only for spaCy's own components: labels and counts, nesting, entity
    lengths (against --max-span-width), and with a second corpus (dev) the
    share of its entities whose text and label occur in the first (train).
    """
    try:
        docs = read_docbin(corpus_path)
        others = read_docbin(other_path) if other_path is not None else None
    except ValueError as err:
        msg.fail("Cannot read the corpus", str(err))
        raise typer.Exit(code=1) from None
    stats = corpus_stats(docs, spans_key)
    msg.divider(f"Corpus: {corpus_path}")
    msg.table(count_rows(stats, entities=f"entities in spans[{spans_key!r}]"))
    msg.divider(f"Labels ({len(stats.labels)})")
    msg.table([(label, count, _share(count, stats.n_entities)) for label, count in stats.labels.items()],
              header=("label", "entities", "share"))
    msg.divider("Entity lengths (tokens)")
    msg.table(_length_rows(stats.lengths, stats.n_entities), header=("tokens", "entities", "share"))
    if max_span_width is not None:
        longer = sum(count for length, count in stats.lengths.items() if length > max_span_width)
        if longer:
            msg.warn(f"{longer} of {stats.n_entities} entities ({_share(longer, stats.n_entities)}) are longer "
                     f"than --max-span-width {max_span_width} (longest: {stats.max_length} tokens): a "
                     f"component with max_span_width = {max_span_width} cannot predict them.")
        else:
            msg.good(f"No entity is longer than --max-span-width {max_span_width} tokens.")
    if others is not None:
        _print_seen(docs, others, corpus_path, other_path, spans_key, set(stats.labels))


def count_rows(stats: CorpusStats, entities: str = "entities") -> List[Tuple[str, Any]]:
    """The counts table of a corpus, as `stats` and `convert` print it.

    stats (CorpusStats): The corpus's counts.
    entities (str): The name of the row that counts the entities.
    RETURNS (List[Tuple[str, Any]]): (name, value) rows for msg.table.
    """
    return [
        ("docs", stats.n_docs),
        ("tokens", stats.n_tokens),
        (entities, stats.n_entities),
        ("nested entities", f"{stats.n_nested} ({stats.nested_share:.1%})"),
        ("nesting depth", stats.max_depth),
        ("same span, another label", stats.n_same_span),
        ("crossing entities", stats.n_crossing),
        ("doc.ents (outer layer)", stats.n_ents),
        ("max entity length (tokens)", stats.max_length),
    ]


def read_docbin(path: Path) -> List[Doc]:
    """The docs of a .spacy file; E310 where it is missing or not a DocBin."""
    if not path.is_file():
        raise ValueError(Errors.E310.format(path=path, problem="no such file"))
    try:
        return list(DocBin().from_disk(path).get_docs(Vocab()))
    except (ValueError, zlib.error) as err:  # msgpack's errors are ValueErrors
        raise ValueError(Errors.E310.format(path=path, problem=str(err).strip() or type(err).__name__)) from None


def _print_seen(
    docs: List[Doc], others: List[Doc], corpus_path: Path, other_path: Path, spans_key: str, labels: Set[str]
) -> None:
    by_label = seen_entities(docs, others, spans_key)
    seen = sum(pair[0] for pair in by_label.values())
    total = sum(pair[1] for pair in by_label.values())
    seen_lower = sum(pair[0] for pair in seen_entities(docs, others, spans_key, lowercase=True).values())
    msg.divider(f"Entities of {other_path} seen in {corpus_path}")
    msg.info(f"{seen} of {total} entities ({_share(seen, total)}) have a text and label that occur in "
             f"{corpus_path} ({seen_lower}, {_share(seen_lower, total)}, ignoring case); the others a "
             f"model must recognise without having seen them.")
    msg.table([(label, count, _share(n_seen, count)) for label, (n_seen, count) in by_label.items()],
              header=("label", "entities", "seen"))
    unknown = sorted(set(by_label) - labels)
    if unknown:
        msg.warn(f"Labels of {other_path} that {corpus_path} does not have: {', '.join(unknown)}")


def _length_rows(lengths: Dict[int, int], total: int) -> List[Tuple]:
    rows = [(length, count, _share(count, total)) for length, count in lengths.items() if length <= LENGTH_ROWS]
    longer = [(length, count) for length, count in lengths.items() if length > LENGTH_ROWS]
    if longer:
        count = sum(count for _, count in longer)
        rows.append((f"{LENGTH_ROWS + 1}-{longer[-1][0]}", count, _share(count, total)))
    return rows


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "-"
