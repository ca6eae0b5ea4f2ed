"""Convert a corpus file in its upstream format to a spaCy DocBin (.spacy)."""
import functools
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, NamedTuple, Optional, Sequence

import spacy
from spacy.tokens import DocBin

from ..errors import Errors, Warnings
from .bmes import parse_bmes
from .char_conll import parse_char_conll
from .cluener import parse_cluener
from .conll_bio import parse_conll_bio
from .docs import Parser, Repairs, read_docs
from .genia_xml import parse_genia_xml
from .germeval import add_levels, parse_germeval
from .lines import PathLike
from .nested_jsonl import parse_nested_jsonl
from .stats import CorpusStats, corpus_stats
from .w2ner import parse_w2ner


class Format(NamedTuple):
    """A corpus format: its parser, default language, and whether it is per character."""

    parse: Parser
    lang: str
    per_char: bool


FORMATS: Dict[str, Format] = {
    "genia": Format(parse_nested_jsonl, "en", False),
    "genia_xml": Format(parse_genia_xml, "en", False),
    "w2ner": Format(parse_w2ner, "en", False),
    "germeval": Format(parse_germeval, "de", False),
    "conll": Format(parse_conll_bio, "en", False),
    "cluener": Format(parse_cluener, "zh", True),
    "bmes": Format(parse_bmes, "zh", True),
    "weibo": Format(parse_char_conll, "zh", True),
}


def _first_char(path: PathLike) -> str:
    """The file's first character that is not whitespace ("" for none)."""
    with Path(path).open(encoding="utf-8-sig", errors="replace") as file_:
        while True:
            chunk = file_.read(4096)
            if not chunk or chunk.strip():
                return chunk.strip()[:1]


def infer_format(path: PathLike) -> str:
    """The format of an upstream corpus file, told from its name, and for
    .json from its first character: W2NER's files are one JSON list,
    CLUENER's one object a line.

    path (Union[str, Path]): The file.
    RETURNS (str): A key of FORMATS; raises E301 where the name does not tell.
    """
    name = Path(path).name.lower()
    if name.endswith(".jsonl"):
        return "genia"
    if name.endswith(".xml"):
        return "genia_xml"
    if name.endswith(".json"):
        return "w2ner" if Path(path).is_file() and _first_char(path) == "[" else "cluener"
    if name.endswith(".iob2") or (name.startswith("ner-de") and name.endswith(".tsv")):
        return "germeval"
    if name.endswith(".bmes"):
        return "bmes"
    if name.startswith("weibo"):
        return "weibo"
    if name.endswith(".conll"):
        return "conll"
    raise ValueError(Errors.E301.format(path=path, formats=", ".join(FORMATS)))


def resolve_format(format: str, input_path: PathLike) -> str:
    """The FORMATS key for a format name, inferring it from the file for "auto"."""
    if format == "auto":
        return infer_format(input_path)
    if format not in FORMATS:
        raise ValueError(Errors.E300.format(format=format, formats=", ".join(FORMATS)))
    return format


@dataclass
class ConvertStats(CorpusStats):
    """The counts of a converted corpus (see CorpusStats), and how it was converted.

    format (str): The format read.
    lang (str): The language of the Docs' vocab.
    output_path (Optional[Path]): The DocBin written.
    repairs (Dict[str, int]): What was repaired or skipped, by kind.
    seconds (float): Time to read, convert and write.
    """

    format: str = ""
    lang: str = ""
    output_path: Optional[Path] = None
    repairs: Dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def convert(
    input_path: PathLike,
    output_path: PathLike,
    *,
    format: str,
    lang: Optional[str] = None,
    spans_key: str = "sc",
    limit: Optional[int] = None,
    level_keys: Optional[Sequence[str]] = None,
    split: Optional[str] = None,
) -> ConvertStats:
    """Read a corpus file and write its Docs to a DocBin.

    input_path (Union[str, Path]): The upstream corpus file.
    output_path (Union[str, Path]): The .spacy file to write; folders are made.
    format (str): One of FORMATS, or "auto" to infer it from the file name.
    lang (Optional[str]): Language of the Docs' vocab; None takes the format's
        (en, de or zh).
    spans_key (str): The key in doc.spans for all entities.
    limit (Optional[int]): Convert at most this many sentences.
    level_keys (Optional[Sequence[str]]): germeval only: two doc.spans keys
        for the outer and the inner level alone, for a pipeline with one flat
        component per level.
    split (Optional[str]): genia_xml only: "train", "dev" or "test", the
        literature's split of the whole corpus in corpus order.
    RETURNS (ConvertStats): The counts of the written corpus.
    """
    started = time.perf_counter()
    format = resolve_format(format, input_path)
    spec = FORMATS[format]
    if level_keys is not None and format != "germeval":
        raise ValueError(Errors.E331.format(format=format))
    parse = spec.parse
    if split is not None:
        if format != "genia_xml":
            raise ValueError(Errors.E316.format(format=format))
        parse = functools.partial(parse_genia_xml, split=split)
    lang = lang or spec.lang
    if spec.per_char and lang != "zh":
        warnings.warn(Warnings.W302.format(format=format, lang=lang))
    vocab = spacy.blank(lang).vocab
    repairs = Repairs()
    docs = list(
        read_docs(parse, input_path, vocab, spans_key=spans_key, limit=limit,
                  repairs=repairs)
    )
    if level_keys is not None:
        add_levels(docs, input_path, level_keys, limit=limit)
    output_path = Path(output_path)
    output_path.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=docs).to_disk(output_path)
    counts = corpus_stats(docs, spans_key)
    return ConvertStats(
        **vars(counts),
        format=format,
        lang=lang,
        output_path=output_path,
        repairs=repairs.as_dict(),
        seconds=time.perf_counter() - started,
    )
