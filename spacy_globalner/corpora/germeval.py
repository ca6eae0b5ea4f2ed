"""GermEval 2014 NER files: two levels of BIO tags, outer and inner.

    token<TAB>outer-BIO<TAB>inner-BIO                   germ.*.iob2
    #<TAB>source<TAB>[date]                             NER-de-*.tsv: a comment,
    index<TAB>token<TAB>outer-BIO<TAB>inner-BIO         then one token a line

The variant is told from the file's first line: the official .tsv files open
with a `#` source line and have an index column. Both levels go to
doc.spans (an inner span inside an outer one is a nested entity); doc.ents
keeps the outer layer wherever spans overlap.
"""
from pathlib import Path
from typing import Iterator, Optional

from spacy.tokens import Doc
from spacy.vocab import Vocab

from .docs import Record, Repairs, read_docs, token_record
from .lines import PathLike, malformed, numbered_lines, sentence_blocks
from .tags import split_tag, tags_to_entities

EXPECTED_IOB2 = "token<TAB>outer-tag<TAB>inner-tag ('Berlin<TAB>B-LOC<TAB>O')"
EXPECTED_TSV = "index<TAB>token<TAB>outer-tag<TAB>inner-tag ('3<TAB>Berlin<TAB>B-LOC<TAB>O')"
HINT = ("Fix or remove this line. Every line of a file must have the same "
        "columns as its first line: three for germ.*.iob2, or a '#' line "
        "and four columns for the official NER-de-*.tsv files.")


def read_germeval(
    path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None
) -> Iterator[Doc]:
    """Read a GermEval 2014 file (either variant) into Docs.

    path (Union[str, Path]): The file, e.g. germ.train.iob2 or NER-de-dev.tsv.
    vocab (Vocab): The vocab of the Docs.
    spans_key (str): The key in doc.spans for the entities of both levels.
    limit (Optional[int]): Read at most this many sentences.
    RETURNS (Iterator[Doc]): One Doc per sentence; tokens joined by spaces.
    """
    return read_docs(parse_germeval, path, vocab, spans_key=spans_key, limit=limit)


def _is_tsv(path: Path) -> bool:
    for _, line in numbered_lines(path):
        if line.strip():
            return line.startswith("#") or len(line.split("\t")) == 4
    return False


def parse_germeval(path: Path, repairs: Repairs) -> Iterator[Record]:
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
        entities = tags_to_entities(outer, line_nos, repairs)
        entities += tags_to_entities(inner, line_nos, repairs)
        yield token_record(words, entities, block[0][0])
