"""A tiny transformer for the heads to listen to, and training through it as
`spacy train` does."""
from typing import List, Tuple

from spacy.language import Language
from spacy.training import Example

# The tok2vec of a head that listens to the pipeline's transformer.
TRANSFORMER_LISTENER = {
    "@architectures": "spacy-transformers.TransformerListener.v1",
    "grad_factor": 1.0,
    "pooling": {"@layers": "reduce_mean.v1"},
}


def add_transformer(nlp: Language, model_path) -> None:
    """Add a "transformer" component running the model saved at model_path."""
    nlp.add_pipe("transformer", config={
        "model": {
            "@architectures": "spacy-transformers.TransformerModel.v3",
            "name": str(model_path),
            "tokenizer_config": {"use_fast": True},
            "get_spans": {"@span_getters": "spacy-transformers.doc_spans.v1"},
        }
    })


def train_through_transformer(nlp: Language, examples: List[Example], head: str, n_iter: int) -> Tuple[float, float]:
    """Initialize nlp and train it on examples; RETURNS the head's first and last loss.

    spaCy applies a transformer's gradient one batch late with sgd=optimizer;
    as `spacy train` does, each update runs without it and then finishes each
    pipe's update, so the transformer's gradient is applied in the same step.
    """
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = 0.005
    first = last = None
    for _ in range(n_iter):
        losses = {}
        nlp.update(examples, sgd=False, losses=losses, drop=0.0)
        for _, pipe in nlp.pipeline:
            pipe.finish_update(optimizer)
        first = losses[head] if first is None else first
        last = losses[head]
    return first, last
