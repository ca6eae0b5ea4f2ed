"""Annotating corpora at scale: nlp.pipe on one machine, Ray Data across many.

Both paths write the same records (see records.py). Command line (for .spacy
output on one machine, `spacy apply` does the job):

    python -m spacy globalner annotate MODEL INPUT OUTPUT [--n-process 4] [--resume] [--errors FILE]
    python -m spacy globalner annotate MODEL INPUT OUTPUT --ray [--address auto]
"""
from .job import annotate_file
from .reader import read_lines
from .records import annotate, doc_to_record, read_records, read_texts, write_jsonl

__all__ = [
    "annotate", "annotate_file", "doc_to_record", "ray_annotate", "read_lines", "read_records", "read_texts",
    "write_jsonl",
]


def ray_annotate(*args, **kwargs):
    """See spacy_globalner.scale.ray_annotate.ray_annotate (needs the `ray` extra)."""
    from .ray_annotate import ray_annotate as _ray_annotate

    return _ray_annotate(*args, **kwargs)
