"""Sentences read from a corpus file, turned into annotated Docs.

Every reader parses its format into `Record`s (words, spaces, token-offset
entities); `read_docs` turns them into Docs the same way for all formats:

- doc.spans[spans_key] holds every entity, nested, overlapping, or the same
  span with two labels, sorted by (start, end), ties in file order;
- doc.ents holds the outermost non-overlapping layer: longest spans first,
  then the earliest, then the first in file order (`spacy.util.filter_spans`).

Whatever a reader repairs or skips is counted in a `Repairs` log and reported
in one warning per file, with the first line where each kind happened.
"""
import bisect
import warnings
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple

from spacy.tokens import Doc, Span
from spacy.util import filter_spans, get_words_and_spaces
from spacy.vocab import Vocab

from ..errors import Errors, Warnings
from ..validation import check_int
from .lines import PathLike, check_path

# (start token, end token exclusive, label)
Entity = Tuple[int, int, str]

# Printed by the CLI for the character-level formats, and said in their docstrings.
CHINESE_TOKENIZER_NOTE = (
    "These docs have one token per character. spacy.Corpus re-tokenizes doc.text "
    "with the pipeline's tokenizer, so the training config needs "
    '[nlp] lang = "zh" and [nlp.tokenizer] @tokenizers = "spacy.zh.ChineseTokenizer" '
    'with segmenter = "char". With lang = "zh" and a rule tokenizer '
    '(@tokenizers = "spacy.Tokenizer.v1") the text is re-tokenized into whole '
    "clauses, the gold characters no longer align, and training fails silently."
)

REPAIR_EMPTY = "empty sentence (skipped)"
REPAIR_OUT_OF_RANGE = "entity with offsets outside its sentence (skipped)"
REPAIR_DUPLICATE = "entity listed twice with the same label (kept once)"
REPAIR_WHITESPACE_EDGE = "entity starting or ending on whitespace (trimmed)"
REPAIR_WHITESPACE_ONLY = "entity covering only whitespace (skipped)"


class Record(NamedTuple):
    """One sentence as a reader parsed it.

    words (List[str]): The tokens.
    spaces (List[bool]): Whether each token is followed by a space.
    entities (List[Entity]): Token spans, end exclusive, in any order.
    line_no (int): The sentence's first line in the file.
    """

    words: List[str]
    spaces: List[bool]
    entities: List[Entity]
    line_no: int


class Repairs:
    """Counts of what a reader repaired or skipped in one file."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.first_line: Dict[str, int] = {}

    def add(self, kind: str, line_no: int, count: int = 1) -> None:
        self.counts[kind] += count
        self.first_line.setdefault(kind, line_no)

    def __bool__(self) -> bool:
        return bool(self.counts)

    def describe(self) -> str:
        return "; ".join(
            f"{count} x {kind}, first at line {self.first_line[kind]}"
            for kind, count in self.counts.items()
        )

    def as_dict(self) -> Dict[str, int]:
        return dict(self.counts)


def token_record(
    words: List[str], entities: List[Entity], line_no: int
) -> Record:
    """A sentence of pre-tokenized words (English, German corpora).

    Tokens keep the upstream boundaries and are joined by single spaces
    (spaces=True between all tokens, none after the last), so doc.text reads
    "It 's the view" rather than the original "It's the view": the gold
    tokens stay exactly as annotated. `spacy.Corpus` re-tokenizes doc.text
    with the pipeline's tokenizer, and spaCy aligns the gold spans onto
    those tokens through character offsets.
    """
    spaces = [True] * len(words)
    if spaces:
        spaces[-1] = False
    return Record(words, spaces, entities, line_no)


def char_record(
    text: str,
    char_entities: Iterable[Tuple[int, int, str]],
    line_no: int,
    repairs: Repairs,
) -> Record:
    """A sentence annotated one character at a time (Chinese corpora).

    The tokens are made exactly as spaCy's Chinese tokenizer with
    `segmenter = "char"` makes them (one token per character, whitespace
    attached to the token before it), so gold and predicted tokens agree
    and doc.text is the original string.

    char_entities (Iterable[Tuple[int, int, str]]): Character offsets, end
        exclusive.
    """
    words, spaces = get_words_and_spaces(list(text), text)
    starts: List[int] = []
    ends: List[int] = []
    offset = 0
    for word, space in zip(words, spaces):
        starts.append(offset)
        offset += len(word)
        ends.append(offset)
        offset += int(space)
    entities: List[Entity] = []
    for start_char, end_char, label in char_entities:
        if not 0 <= start_char < end_char <= len(text):
            repairs.add(REPAIR_OUT_OF_RANGE, line_no)
            continue
        # Characters only start a token where the tokenizer put one; whitespace
        # inside an entity's edges is cut off, like alignment_mode="contract".
        start = bisect.bisect_left(starts, start_char)
        end = bisect.bisect_right(ends, end_char)
        if start >= end or not text[start_char:end_char].strip():
            repairs.add(REPAIR_WHITESPACE_ONLY, line_no)
            continue
        if starts[start] != start_char or ends[end - 1] != end_char:
            repairs.add(REPAIR_WHITESPACE_EDGE, line_no)
        entities.append((start, end, label))
    return Record(words, spaces, entities, line_no)


def make_doc(vocab: Vocab, record: Record, spans_key: str, repairs: Repairs) -> Doc:
    """Build the Doc of one record, with doc.spans[spans_key] and doc.ents."""
    doc = Doc(vocab, words=record.words, spaces=record.spaces)
    seen = set()
    entities = []
    for start, end, label in record.entities:
        if not 0 <= start < end <= len(doc):
            repairs.add(REPAIR_OUT_OF_RANGE, record.line_no)
        elif (start, end, label) in seen:
            repairs.add(REPAIR_DUPLICATE, record.line_no)
        else:
            seen.add((start, end, label))
            entities.append((start, end, label))
    # sorted() is stable, so a span with two labels keeps them in file order
    # and the first one wins in doc.ents.
    entities.sort(key=lambda entity: (entity[0], entity[1]))
    spans = [Span(doc, start, end, label=label) for start, end, label in entities]
    doc.spans[spans_key] = spans
    doc.ents = filter_spans(spans)
    return doc


Parser = Callable[[Path, Repairs], Iterable[Record]]


def read_docs(
    parse: Parser,
    path: PathLike,
    vocab: Vocab,
    *,
    spans_key: str = "sc",
    limit: Optional[int] = None,
    repairs: Optional[Repairs] = None,
) -> Iterator[Doc]:
    """Read a corpus file with a format's parser and yield annotated Docs.

    parse (Callable[[Path, Repairs], Iterable[Record]]): The format's parser.
    path (Union[str, Path]): The corpus file.
    vocab (Vocab): The vocab of the Docs.
    spans_key (str): The key in doc.spans for all entities.
    limit (Optional[int]): Read at most this many docs (None: all).
    repairs (Optional[Repairs]): A log to fill instead of a fresh one, for
        callers that report the counts themselves; the warning is raised either way.
    RETURNS (Iterator[Doc]): The docs, in file order.
    """
    path = check_path(path)
    if not isinstance(spans_key, str) or not spans_key:
        raise ValueError(Errors.E308.format(value=spans_key))
    check_int(limit, "limit", "read_docs", allow_none=True, error=Errors.E309)
    if repairs is None:
        repairs = Repairs()
    return _read_docs(parse, path, vocab, spans_key, limit, repairs)


def _read_docs(
    parse: Parser,
    path: Path,
    vocab: Vocab,
    spans_key: str,
    limit: Optional[int],
    repairs: Repairs,
) -> Iterator[Doc]:
    n_docs = 0
    for record in parse(path, repairs):
        if not record.words:
            repairs.add(REPAIR_EMPTY, record.line_no)
            continue
        yield make_doc(vocab, record, spans_key, repairs)
        n_docs += 1
        if limit is not None and n_docs >= limit:
            break
    if repairs:
        warnings.warn(
            Warnings.W300.format(path=path, n_docs=n_docs, details=repairs.describe())
        )
    if n_docs == 0:
        warnings.warn(Warnings.W301.format(path=path))
