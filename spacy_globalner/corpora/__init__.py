"""Readers and a converter for NER corpora in their upstream formats.

Each reader yields pre-tokenized Docs with every entity in
doc.spans[spans_key] and the outermost non-overlapping layer in doc.ents;
`convert` writes them to a DocBin. Command line:

    python -m spacy globalner convert INPUT OUTPUT --format genia

The Chinese readers (bmes, char_conll, cluener) make one token per character,
with no spaces between them, so doc.text is the original string.
`spacy.Corpus` re-tokenizes doc.text with the pipeline's tokenizer, so a
training config for these docs needs
`[nlp.tokenizer] @tokenizers = "spacy.zh.ChineseTokenizer"` with
`segmenter = "char"` (and `lang = "zh"`); with a rule tokenizer, gold and
predicted tokens misalign without any error.
"""
from .bmes import read_bmes
from .char_conll import read_char_conll
from .cluener import read_cluener
from .conll_bio import read_conll_bio
from .convert import FORMATS, ConvertStats, convert, infer_format
from .genia_xml import read_genia_xml
from .germeval import read_germeval
from .nested_jsonl import read_nested_jsonl
from .stats import CorpusStats, corpus_stats
from .w2ner import read_w2ner

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
    "read_genia_xml",
    "read_germeval",
    "read_nested_jsonl",
    "read_w2ner",
]
