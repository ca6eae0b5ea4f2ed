"""GermEval 2014 NER files: two levels of BIO tags, outer and inner.

    token<TAB>outer-BIO<TAB>inner-BIO                   germ.*.iob2
    #<TAB>source<TAB>[date]                             NER-de-*.tsv: a comment,
    index<TAB>token<TAB>outer-BIO<TAB>inner-BIO         then one token a line

The variant is told from the file's first line: the official .tsv files open
with a `#` source line and have an index column. Both levels go to
doc.spans (an inner span inside an outer one is a nested entity); doc.ents
keeps the outer layer wherever spans overlap. With `level_keys`, each level
also goes to a doc.spans key of its own, so that two flat components (one
for the outer level, one for the inner) can each learn theirs.
"""
import functools
import warnings
from pathlib import Path
from typing import Iterator, List, Optional, Sequence

from spacy.tokens import Doc, Span
from spacy.vocab import Vocab

from ..errors import Errors
from .docs import Record, Repairs, read_docs, token_record
from .lines import PathLike, malformed, numbered_lines, sentence_blocks
from .tags import split_tag, tags_to_entities

EXPECTED_IOB2 = "token<TAB>outer-tag<TAB>inner-tag ('Berlin<TAB>B-LOC<TAB>O')"
EXPECTED_TSV = "index<TAB>token<TAB>outer-tag<TAB>inner-tag ('3<TAB>Berlin<TAB>B-LOC<TAB>O')"
HINT = ("Fix or remove this line. Every line of a file must have the same "
        "columns as its first line: three for germ.*.iob2, or a '#' line "
        "and four columns for the official NER-de-*.tsv files.")


def read_germeval(
    path: PathLike,
    vocab: Vocab,
    *,
    spans_key: str = "sc",
    limit: Optional[int] = None,
    level_keys: Optional[Sequence[str]] = None,
) -> Iterator[Doc]:
    """Read a GermEval 2014 file (either variant) into Docs.

    path (Union[str, Path]): The file, e.g. germ.train.iob2 or NER-de-dev.tsv.
    vocab (Vocab): The vocab of the Docs.
    spans_key (str): The key in doc.spans for the entities of both levels.
    limit (Optional[int]): Read at most this many sentences.
    level_keys (Optional[Sequence[str]]): Two doc.spans keys, for the outer
        and the inner level alone (see `add_levels`).
    RETURNS (Iterator[Doc]): One Doc per sentence; tokens joined by spaces.
    """
    docs = read_docs(parse_germeval, path, vocab, spans_key=spans_key, limit=limit)
    if level_keys is None:
        return docs
    return iter(add_levels(list(docs), path, level_keys, limit=limit))


def add_levels(
    docs: List[Doc], path: PathLike, level_keys: Sequence[str], *, limit: Optional[int] = None
) -> List[Doc]:
    """Put each level of a GermEval file's entities under a doc.spans key of
    its own: doc.spans[level_keys[0]] the outer level, [level_keys[1]] the
    inner one. Each level is flat.

    docs (List[Doc]): The docs read from `path` (with the same `limit`).
    path (Union[str, Path]): The GermEval file.
    level_keys (Sequence[str]): The outer and the inner key.
    RETURNS (List[Doc]): The same docs.
    """
    if (
        isinstance(level_keys, str)
        or len(level_keys) != 2
        or not all(isinstance(key, str) and key for key in level_keys)
        or level_keys[0] == level_keys[1]
    ):
        raise ValueError(Errors.E330.format(value=level_keys))
    for level, key in enumerate(level_keys):
        with warnings.catch_warnings():
            # The repairs were reported when the docs were read with both levels.
            warnings.simplefilter("ignore")
            parse = functools.partial(parse_germeval, levels=(level,))
            vocab = docs[0].vocab if docs else Vocab()
            level_docs = list(read_docs(parse, path, vocab, spans_key=key, limit=limit))
        for doc, level_doc in zip(docs, level_docs):
            doc.spans[key] = [Span(doc, span.start, span.end, label=span.label_) for span in level_doc.spans[key]]
    return docs


def _is_tsv(path: Path) -> bool:
    for _, line in numbered_lines(path):
        if line.strip():
            return line.startswith("#") or len(line.split("\t")) == 4
    return False


def parse_germeval(path: Path, repairs: Repairs, levels: Sequence[int] = (0, 1)) -> Iterator[Record]:
    """The records of a GermEval file, with the entities of `levels` (0:
    outer, 1: inner)."""
    tsv = _is_tsv(path)
    n_columns, expected = (4, EXPECTED_TSV) if tsv else (3, EXPECTED_IOB2)
    is_comment = (lambda line: line.startswith("#")) if tsv else (lambda line: False)
    for block in sentence_blocks(path, is_comment=is_comment):
        words = []
        outer = []
        inner = []
        for line_no, line in block:
            columns = [column.strip() for column in line.split("\t")]
            if len(columns) != n_columns or not all(columns):
                raise malformed(path, line_no, line, expected, HINT)
            if tsv:
                index, *columns = columns
                if not index.isdigit():
                    raise malformed(path, line_no, line, expected, HINT)
            word, outer_tag, inner_tag = columns
            words.append(word)
            outer.append(split_tag(outer_tag, path=path, line_no=line_no, line=line))
            inner.append(split_tag(inner_tag, path=path, line_no=line_no, line=line))
        line_nos = [line_no for line_no, _ in block]
        entities = []
        for level, tags in enumerate((outer, inner)):
            if level in levels:
                entities += tags_to_entities(tags, line_nos, repairs)
        yield token_record(words, entities, block[0][0])
