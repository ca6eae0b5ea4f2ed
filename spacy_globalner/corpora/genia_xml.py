"""GENIA's XML: the GENIA term corpus 3.02 as the GENIA project publishes it.

    <article><articleinfo><bibliomisc>MEDLINE:95369245</bibliomisc></articleinfo>
    <title><sentence><cons lex="IL-2_gene" sem="G#DNA_domain_or_region">
    <cons lex="IL-2" sem="G#protein_molecule"><w c="NN">IL-2</w></cons>
    <w c="NN">gene</w></cons> <w c="NN">expression</w> ...</sentence></title>
    <abstract><sentence>...</sentence></abstract></article>

Both files read: GENIAcorpus3.02.merged.xml (GENIAcorpus3.02p.tgz, the
part-of-speech release the nested-NER literature converts), whose `<w>`
elements are the tokens, and GENIAcorpus3.02.xml (the term-only release),
whose text is tokenized here: at whitespace, at every `<cons>` boundary, and
with brackets and punctuation split off the edges of words.

The preprocessing is the literature's (Finkel & Manning 2009, and the
nested-NER papers since): the five types DNA, RNA, protein, cell_line and
cell_type, with the subtypes collapsed (G#DNA_domain_or_region -> DNA,
G#protein_complex -> protein) and every other type left out. A coordinated
term (sem="(AND G#protein_molecule G#protein_molecule)", "alpha- and beta-
globin") is one entity over the whole coordination where its conjuncts
collapse to one type; its fragments (lex="alpha*", no sem) are no entities.
A coordination of two types is left out and counted. The split is the one
in corpus order: the first 15,022 sentences train, the next 1,669 dev, the
last 1,855 test.
"""
import functools
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..errors import Errors
from .docs import Entity, Record, Repairs, read_docs, token_record
from .lines import PathLike

TYPES = ("DNA", "RNA", "protein", "cell_line", "cell_type")
# Sentence ranges in corpus order, as the nested-NER literature splits GENIA 3.02.
SPLITS: Dict[str, Tuple[int, int]] = {
    "train": (0, 15022),
    "dev": (15022, 16691),
    "test": (16691, 18546),
}
N_SENTENCES = SPLITS["test"][1]
REPAIR_MIXED = "coordinated term whose conjuncts have different types (left out)"
OPEN_PUNCT = "([{\"'"
CLOSE_PUNCT = ")]}\"',;:"


def read_genia_xml(
    path: PathLike, vocab: Vocab, *, spans_key: str = "sc", limit: Optional[int] = None,
    split: Optional[str] = None,
) -> Iterator[Doc]:
    """Read GENIA's XML into Docs, one per sentence, in corpus order.

    path (Union[str, Path]): GENIAcorpus3.02.merged.xml or GENIAcorpus3.02.xml.
    vocab, spans_key, limit: As for `read_docs`.
    split (Optional[str]): "train", "dev" or "test": that split's sentences
        alone (the file must be the whole corpus); None: every sentence.
    RETURNS (Iterator[Doc]): One Doc per sentence; tokens joined by spaces.
    """
    parse = functools.partial(parse_genia_xml, split=split)
    return read_docs(parse, path, vocab, spans_key=spans_key, limit=limit)


def collapse(sem: str) -> Optional[str]:
    """One of TYPES for a GENIA type (G#protein_complex -> protein), or None."""
    name = sem[2:] if sem.startswith("G#") else sem
    if name in ("cell_line", "cell_type"):
        return name
    family = name.split("_", 1)[0]
    return family if family in ("DNA", "RNA", "protein") else None


def term_type(sem: str) -> Tuple[Optional[str], bool]:
    """(the collapsed type of a term's sem, whether it is a coordination of
    conjuncts of different kept types)."""
    if not sem.startswith("("):
        return collapse(sem), False
    types = {collapse(part) for part in re.findall(r"G#[^\s()]+", sem)}
    kept = types - {None}
    if len(types) == 1 and kept:
        return kept.pop(), False
    return None, bool(kept)


def _closing(word: str) -> int:
    """The index of the bracket that closes the word's opening "(", or -1."""
    depth = 0
    for i, char in enumerate(word):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return i
    return -1


def split_words(text: str, *, ends_sentence: bool) -> List[str]:
    """The tokens of a stretch of text between two `<cons>` boundaries:
    whitespace-separated words with brackets and punctuation split off their
    edges; a bracket that closes inside the word stays ("IL-2(+)")."""
    words = text.split()
    tokens: List[str] = []
    for i, word in enumerate(words):
        head: List[str] = []
        tail: List[str] = []
        last = ends_sentence and i == len(words) - 1
        changed = True
        while changed and len(word) > 1:
            changed = False
            if word[0] in OPEN_PUNCT and (word[0] != "(" or _closing(word) in (-1, len(word) - 1)):
                head.append(word[0])
                word, changed = word[1:], True
            if len(word) > 1 and (word[-1] in CLOSE_PUNCT or (last and word[-1] == ".")) and (
                word[-1] != ")" or word.count(")") > word.count("(")
            ):
                tail.insert(0, word[-1])
                word, changed = word[:-1], True
        tokens.extend(head + [word] + tail)
    return tokens


class _Sentence:
    """The tokens and entities of one <sentence>, built by walking its tree."""

    def __init__(self, element: ET.Element, line_no: int, repairs: Repairs) -> None:
        self.words: List[str] = []
        self.entities: List[Entity] = []
        self.line_no = line_no
        self.repairs = repairs
        self.has_w = element.find(".//w") is not None
        pieces: List[object] = []
        self._flatten(element, pieces)
        self._read(pieces)

    def _flatten(self, element: ET.Element, pieces: List[object]) -> None:
        # Text, <w> tokens and the opening and closing of each <cons>, in order.
        if element.tag == "w":
            pieces.append(("w", "".join(element.itertext())))
        else:
            if element.tag == "cons":
                pieces.append(("open", element))
            if element.text:
                pieces.append(("text", element.text))
            for child in element:
                self._flatten(child, pieces)
                if child.tail:
                    pieces.append(("text", child.tail))
            if element.tag == "cons":
                pieces.append(("close", element))

    def _read(self, pieces: List[object]) -> None:
        opened: List[int] = []
        last_text = max((i for i, (kind, value) in enumerate(pieces) if kind in ("text", "w") and str(value).strip()),
                        default=-1)
        for i, (kind, value) in enumerate(pieces):
            if kind == "w":
                self.words.extend(value.split())
            elif kind == "text" and not self.has_w:
                self.words.extend(split_words(value, ends_sentence=i == last_text))
            elif kind == "open":
                opened.append(len(self.words))
            elif kind == "close":
                self._close(value, opened.pop())

    def _close(self, cons: ET.Element, start: int) -> None:
        end = len(self.words)
        sem = cons.get("sem")
        if sem is None or start >= end:
            return
        label, mixed = term_type(sem)
        if mixed:
            self.repairs.add(REPAIR_MIXED, self.line_no)
        # A term nested in one of the same span and family (a protein_molecule
        # inside a protein_complex) is one entity of the five types.
        if label is not None and (start, end, label) not in self.entities:
            self.entities.append((start, end, label))


def _sentence_lines(path: Path) -> List[int]:
    """The line number of each <sentence> tag, in order (ElementTree keeps none)."""
    lines: List[int] = []
    with path.open(encoding="utf-8") as file_:
        for line_no, line in enumerate(file_, 1):
            lines.extend([line_no] * line.count("<sentence"))
    return lines


def parse_genia_xml(path: Path, repairs: Repairs, split: Optional[str] = None) -> Iterator[Record]:
    if split is not None and split not in SPLITS:
        raise ValueError(Errors.E311.format(split=split, splits=", ".join(SPLITS)))
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ValueError(Errors.E312.format(path=path, err=err)) from None
    sentences = list(root.iter("sentence"))
    if split is not None and len(sentences) != N_SENTENCES:
        raise ValueError(Errors.E313.format(path=path, n=len(sentences), expected=N_SENTENCES, split=split))
    first, last = SPLITS[split] if split is not None else (0, len(sentences))
    lines = _sentence_lines(path)
    for index in range(first, last):
        line_no = lines[index] if index < len(lines) else 0
        sentence = _Sentence(sentences[index], line_no, repairs)
        yield token_record(sentence.words, sentence.entities, line_no)
