"""Character-tagged files with BMES tags (Resume).

    char<SPACE>BMES-tag        one character a line: B-/M-/E- begin, continue
    <blank line>               and end a span, S- is a one-character span, O outside

BIO and BIOES tags read too (I- as M-). A span not closed by E- is closed at
its last tagged character and counted.

Tokens are the characters (see the package docstring for the tokenizer
that a training config for them needs).
"""
import re
from pathlib import Path
from typing import Callable, Iterator, Optional

from spacy.tokens import Doc
from spacy.vocab import Vocab

from .docs import Record, Repairs, read_docs
from .lines import PathLike, malformed, sentence_blocks
from .tags import char_tags_record, split_tag

# A character (or a run of them) and its tag; the character may be a space.
CHAR_AND_TAG = re.compile(r"(\S+|\s)[ \t]+(\S+)[ \t]*")
EXPECTED = "a character and its tag separated by a space ('北 B-ORG')"
HINT = ("Fix or remove this line; sentences are separated by blank lines, and "
        "every other line needs a character and a tag.")


def read_bmes(path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None) -> Iterator[Doc]:
    """Read a BMES character-tagged file into Docs of one token per character.

    path (Union[str, Path]): The file, e.g. resume/train.char.bmes.
    vocab, spans_key, limit: As for `read_docs`; a Chinese vocab
        (spacy.blank("zh").vocab); limit counts sentences.
    RETURNS (Iterator[Doc]): One Doc per sentence.
    """
    return read_docs(parse_bmes, path, vocab, spans_key=spans_key, limit=limit)


def parse_bmes(path: Path, repairs: Repairs) -> Iterator[Record]:
    return parse_char_tags(
        path, repairs, char_of=lambda column: column, expected=EXPECTED, hint=HINT, closed_by_end=True
    )


def parse_char_tags(
    path: Path,
    repairs: Repairs,
    *,
    char_of: Callable[[str], Optional[str]],
    expected: str,
    hint: str,
    closed_by_end: bool = False,
) -> Iterator[Record]:
    """One record per sentence of a file with a character and its tag a line.

    char_of (Callable[[str], Optional[str]]): The character of the first
        column, or None where the column does not have the format's shape.
    closed_by_end (bool): Whether a span ends at its E- tag only (BMES).
    """
    for block in sentence_blocks(path):
        chars = []
        tags = []
        for line_no, line in block:
            match = CHAR_AND_TAG.fullmatch(line)
            char = char_of(match.group(1)) if match else None
            if char is None:
                raise malformed(path, line_no, line, expected, hint)
            chars.append(char)
            tags.append(split_tag(match.group(2), path=path, line_no=line_no, line=line))
        line_nos = [line_no for line_no, _ in block]
        yield char_tags_record(chars, tags, line_nos, repairs, closed_by_end=closed_by_end)
