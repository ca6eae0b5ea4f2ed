"""What the tests of the flat heads (lcrf_ner, cse_ner) share: two German
sentences of flat gold, their examples, and a head overfit on them."""
from functools import partial

import numpy
from spacy.tokens import Span
from spacy.training import Example

from tests.helpers import overfit_blank

TRAIN_DATA = [
    ("Angela Merkel besuchte gestern Paris und Rom .",
     [(0, 2, "PER"), (4, 5, "LOC"), (6, 7, "LOC")]),
    ("Die Vereinten Nationen tagen in New York .",
     [(1, 3, "ORG"), (5, 7, "LOC")]),
]

# The updates each flat head needs to fit TRAIN_DATA at seed 0.
N_UPDATES = {"lcrf_ner": 30, "cse_ner": 40}


def make_examples(nlp, data=TRAIN_DATA, key=None):
    """Gold in doc.ents, or in doc.spans[key] when a key is given."""
    examples = []
    for text, spans in data:
        reference = nlp.make_doc(text)
        gold = [Span(reference, s, e, label) for s, e, label in spans]
        if key is None:
            reference.ents = gold
        else:
            reference.spans[key] = gold
        examples.append(Example(nlp.make_doc(text), reference))
    return examples


def overfit(config=None, n_iter=30, factory="lcrf_ner", key=None):
    """(nlp, pipe, examples) after n_iter updates on TRAIN_DATA at seed 0
    (gold in doc.ents, or in doc.spans[key] when a key is given)."""
    return overfit_blank("de", factory, partial(make_examples, key=key), config, n_iter)


def predictions(nlp, texts=tuple(text for text, _ in TRAIN_DATA)):
    docs = list(nlp.pipe(texts))
    ents = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in docs]
    scores = [doc.spans["sc"].attrs["scores"].tolist() for doc in docs]
    return ents, scores


def tag_marginals(
    log_alpha: numpy.ndarray, log_beta: numpy.ndarray, log_z: numpy.ndarray, lengths: numpy.ndarray
) -> numpy.ndarray:
    """P(tag at token t = j) for every doc, token and tag; 0 on padding.

    RETURNS (numpy.ndarray): Float64 (n_docs, max_length, n_tags).
    """
    marginals = numpy.exp(log_alpha + log_beta - log_z[:, None, None])
    padding = numpy.arange(log_alpha.shape[1])[None, :] >= numpy.asarray(lengths)[:, None]
    marginals[padding] = 0.0
    return marginals
