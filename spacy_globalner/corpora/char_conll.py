"""Character-tagged files with word-segment digits (Weibo NER).

    char+digit<TAB>BIO-tag     one character a line, followed by its position
    <blank line>               in its word (0, 1, ... as in '中0', 'e12')

The trailing digits are stripped; the tag columns split on a tab or spaces.
Tokens are the characters (see the package docstring for the tokenizer
that a training config for them needs).
"""
import re
from pathlib import Path
from typing import Iterator, Optional

from spacy.tokens import Doc
from spacy.vocab import Vocab

from .bmes import parse_char_tags
from .docs import Record, Repairs, read_docs
from .lines import PathLike

# The shortest prefix that leaves only digits: '112' is the character '1' in
# position 12 of its word.
CHAR_AND_SEGMENT = re.compile(r"(.+?)(\d+)", re.DOTALL)
EXPECTED = ("a character followed by its segment digit, a tab and its BIO tag "
            "('中0<TAB>B-GPE.NAM')")
HINT = ("Fix or remove this line. A character-tagged file without segment "
        "digits ('中<TAB>B-GPE') reads with the bmes format, which takes BIO "
        "tags too.")


def read_char_conll(
    path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None
) -> Iterator[Doc]:
    """Read a Weibo-style character file into Docs of one token per character.

    path (Union[str, Path]): The file, e.g. weibo/weiboNER_2nd_conll.train.
    vocab, spans_key, limit: As for `read_docs`; a Chinese vocab
        (spacy.blank("zh").vocab); limit counts sentences.
    RETURNS (Iterator[Doc]): One Doc per sentence.
    """
    return read_docs(parse_char_conll, path, vocab, spans_key=spans_key, limit=limit)


def parse_char_conll(path: Path, repairs: Repairs) -> Iterator[Record]:
    return parse_char_tags(path, repairs, char_of=_strip_segment, expected=EXPECTED, hint=HINT)


def _strip_segment(column: str) -> Optional[str]:
    segment = CHAR_AND_SEGMENT.fullmatch(column)
    return None if segment is None else segment.group(1)
