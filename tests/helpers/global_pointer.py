"""What the global_pointer tests share: two sentences of nested gold, their
examples, a head overfit on them, a pipeline of global_pointer over a spacy-transformers encoder, and
the decoder and RoPE in the shapes the tests call them."""
from typing import Any, List, Optional

import spacy
import torch
from spacy.tokens import Span
from spacy.training import Example

from spacy_globalner.decoding import SpanArrays
from spacy_globalner.decoding.global_pointer import decode_band
from spacy_globalner.ml.torch.global_pointer.rope import rope_rotations, rotate
from tests.helpers import overfit_blank
from tests.helpers.transformer import TRANSFORMER_LISTENER, add_transformer

TRAIN_DATA = [
    ("IL-2 gene expression requires NF-kappa B activation .",
     [(0, 2, "DNA"), (0, 1, "protein"), (4, 6, "protein")]),
    ("Human T cells express CD28 receptor .",
     [(0, 3, "cell_type"), (1, 3, "cell_type"), (4, 6, "protein"), (4, 5, "protein")]),
]


def make_examples(nlp, data=TRAIN_DATA, key="sc"):
    """Gold in doc.spans[key]."""
    examples = []
    for text, spans in data:
        reference = nlp.make_doc(text)
        reference.spans[key] = [Span(reference, s, e, label) for s, e, label in spans]
        examples.append(Example(nlp.make_doc(text), reference))
    return examples


def overfit(config=None, n_iter=40):
    """(nlp, pipe, examples) after n_iter updates on TRAIN_DATA at seed 0."""
    return overfit_blank("en", "global_pointer", make_examples, config, n_iter)


def spans_of(doc, key="sc"):
    return [(s.start, s.end, s.label_) for s in doc.spans[key]]


def transformer_nlp(model_path, efficient=False):
    """A transformer (from model_path) and a global_pointer listening to it."""
    nlp = spacy.blank("en")
    add_transformer(nlp, model_path)
    nlp.add_pipe(
        "global_pointer",
        config={"model": {"efficient": efficient, "head_width": 16, "tok2vec": TRANSFORMER_LISTENER}},
    )
    return nlp


def decode_band_scores(*args: Any, **kwargs: Any) -> List[SpanArrays]:
    """The spans of `decode_band` (same arguments), without the counts."""
    return decode_band(*args, **kwargs)[0]


def apply_rope(x: torch.Tensor, positions: torch.Tensor, scale: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Rotate the last dimension of x (n, ..., width) by each row's position.

    scale (Optional[torch.Tensor]): Real factors, broadcast against the pairs,
        of shape x.shape[:-1] + (width // 2,): for x of shape (n, heads, 2,
        width), a (2, 1) scale gives one factor per slot. They are multiplied
        into the rotations, so scaling costs no pass over x of its own.
    """
    rotations = rope_rotations(positions, x.shape[-1], x.dtype)
    rotations = rotations.reshape((positions.shape[0],) + (1,) * (x.dim() - 2) + (x.shape[-1] // 2,))
    if scale is not None:
        rotations = rotations * scale.to(device=rotations.device, dtype=rotations.real.dtype)
    return rotate(x, rotations)
