"""What the crener tests share: a small model and a tiny scorer, two
sentences of nested gold, examples whose tokens are the text's
whitespace-separated words, and the small model overfit on them."""
from typing import Any, List, Sequence

import numpy
import spacy
import torch
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from thinc.api import Adam, fix_random_seed

from spacy_globalner.decoding import SpanArrays
from spacy_globalner.decoding.crener.decode import decode_windows
from spacy_globalner.decoding.crener.windows import merge_windows
from tests.helpers.trained_pipelines import one_torch_thread

SMALL_TOK2VEC = {
    "@architectures": "spacy.HashEmbedCNN.v2",
    "pretrained_vectors": None,
    "width": 32,
    "depth": 2,
    "embed_size": 1000,
    "window_size": 1,
    "maxout_pieces": 2,
    "subword_features": True,
}
SMALL_MODEL = {
    "@architectures": "spacy-globalner.CRENER.v1",
    "token_width": 32,
    "context_depth": 1,
    "grid_width": 24,
    "distance_width": 8,
    "region_width": 4,
    "conv_width": 16,
    "dilations": [1, 2, 3],
    "enhancement_rounds": 1,
    "attention_heads": 2,
    "biaffine_width": 16,
    "predictor_width": 16,
    "tok2vec": SMALL_TOK2VEC,
}

# CRENERSettings of a scorer small enough for fp64 gradient checks.
TINY_SCORER = dict(
    token_width=8,
    context_depth=1,
    grid_width=6,
    distance_width=3,
    region_width=2,
    conv_width=4,
    dilations=(1, 2),
    enhancement_rounds=1,
    attention_heads=2,
    biaffine_width=4,
    predictor_width=5,
    dropout=0.0,
)

# Two sentences with nested entities, a same-span label pair and an entity at each edge.
TRAIN_DATA = [
    (
        "NF kappa B binding sites were found in human T cells",
        [(0, 3, "protein"), (0, 5, "DNA"), (8, 11, "cell_type"), (9, 11, "cell_type")],
    ),
    (
        "IL-2 expression requires activated T lymphocytes and IL-2",
        [(0, 1, "protein"), (0, 1, "DNA"), (3, 6, "cell_type"), (4, 6, "cell_type"), (7, 8, "protein")],
    ),
]


def example_of(nlp: Language, text: str, spans) -> Example:
    words = text.split()
    predicted = Doc(nlp.vocab, words=words)
    reference = Doc(nlp.vocab, words=words)
    reference.spans["sc"] = [Span(reference, s, e, label=label) for s, e, label in spans]
    return Example(predicted, reference)


def spans_of(doc: Doc):
    return sorted((span.start, span.end, span.label_) for span in doc.spans["sc"])


def train(nlp: Language, examples, n_updates: int = 50):
    """nlp trained on examples (seed 0, n_updates of Adam 0.003), with one
    torch thread: building a test's model, where two threads contending on a
    shared machine are several times slower; prediction afterwards runs with
    torch's default threads, as a user's does."""
    fix_random_seed(0)
    with one_torch_thread():
        nlp.initialize(lambda: examples)
        # The small test model needs a livelier rate than spaCy's default 0.001
        # to overfit within 50 updates.
        optimizer = Adam(0.003)
        for _ in range(n_updates):
            nlp.update(examples, sgd=optimizer, losses={})
    return nlp


def overfit(n_updates: int = 50):
    """(nlp, pipe, examples): the small model overfit on TRAIN_DATA (seed 0,
    n_updates of Adam 0.003)."""
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("crener", config={"model": SMALL_MODEL})
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    return train(nlp, examples, n_updates), pipe, examples


def grid_masks(lengths, n: int):
    """Bool token mask (batch, n) and cell mask (batch, n, n) of a padded batch."""
    token_mask = torch.arange(n)[None, :] < torch.as_tensor(lengths)[:, None]
    return token_mask, token_mask[:, :, None] & token_mask[:, None, :]


def decode_grid_windows(*args: Any, **kwargs: Any) -> List[SpanArrays]:
    """The entities of `decode_windows` (same arguments), without the counts."""
    return decode_windows(*args, **kwargs)[0]


def merge_window_spans(windows: numpy.ndarray, found: Sequence[SpanArrays], n_docs: int) -> List[SpanArrays]:
    """The spans of `merge_windows`, without a cap or counts."""
    return merge_windows(windows, found, n_docs)[0]
