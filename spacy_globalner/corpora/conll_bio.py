"""CoNLL-style token-per-line files with BIO tags (WNUT-17).

    token<TAB>BIO-tag          one token a line
    <blank line>               between sentences

The token is the first column and the tag the last, so files with extra
columns in between (CoNLL-2003) read too; without a tab, columns split on
spaces. `-DOCSTART-` lines are skipped. An I- tag that does not continue a
span of its label starts one, as conlleval reads it, and is counted.
"""
from pathlib import Path
from typing import Iterator, Optional

from spacy.tokens import Doc
from spacy.vocab import Vocab

from .docs import Record, Repairs, read_docs, token_record
from .lines import PathLike, malformed, sentence_blocks
from .tags import split_tag, tags_to_entities

EXPECTED = "a token and its BIO tag separated by a tab ('Paris<TAB>B-location')"
HINT = ("Fix or remove this line; sentences are separated by blank lines, and "
        "every other line needs a token and a tag.")


def read_conll_bio(
    path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None
) -> Iterator[Doc]:
    """Read a CoNLL BIO file into Docs with entities in doc.spans and doc.ents.

    path (Union[str, Path]): The file, e.g. wnut17train.conll.
    vocab, spans_key, limit: As for `read_docs`; limit counts sentences.
    RETURNS (Iterator[Doc]): One Doc per sentence; tokens joined by spaces.
    """
    return read_docs(parse_conll_bio, path, vocab, spans_key=spans_key, limit=limit)


def parse_conll_bio(path: Path, repairs: Repairs) -> Iterator[Record]:
    for block in sentence_blocks(path):
        words = []
        tags = []
        for line_no, line in block:
            columns = line.split("\t") if "\t" in line else line.split()
            word = columns[0].strip()
            if len(columns) < 2 or not word:
                raise malformed(path, line_no, line, EXPECTED, HINT)
            words.append(word)
            tags.append(split_tag(columns[-1].strip(), path=path, line_no=line_no, line=line))
        line_nos = [line_no for line_no, _ in block]
        entities = tags_to_entities(tags, line_nos, repairs)
        yield token_record(words, entities, block[0][0])
