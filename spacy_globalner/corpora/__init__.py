"""Readers and a converter for NER corpora in their upstream formats.

Each reader yields pre-tokenized Docs with every entity in
doc.spans[spans_key] and the outermost non-overlapping layer in doc.ents;
`convert` writes them to a DocBin. Command line:

    python -m spacy globalner convert INPUT OUTPUT --format genia
"""
from .bmes import read_bmes
from .char_conll import read_char_conll
from .cluener import read_cluener
from .conll_bio import read_conll_bio
from .convert import FORMATS, ConvertStats, convert, infer_format
from .germeval import read_germeval
from .nested_jsonl import read_nested_jsonl
from .stats import CorpusStats, corpus_stats

__all__ = [
    "FORMATS",
    "ConvertStats",
    "CorpusStats",
    "convert",
    "corpus_stats",
    "infer_format",
    "read_bmes",
    "read_char_conll",
    "read_cluener",
    "read_conll_bio",
    "read_germeval",
    "read_nested_jsonl",
]
