"""What the global_pointer tests share: two sentences of nested gold, their
examples, and a pipeline of global_pointer over a spacy-transformers encoder."""
import spacy
from spacy.tokens import Span
from spacy.training import Example

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


def spans_of(doc, key="sc"):
    return [(s.start, s.end, s.label_) for s in doc.spans[key]]


def transformer_nlp(model_path, efficient=False):
    """A transformer (from model_path) and a global_pointer listening to it."""
    nlp = spacy.blank("en")
    nlp.add_pipe("transformer", config={
        "model": {
            "@architectures": "spacy-transformers.TransformerModel.v3",
            "name": str(model_path),
            "tokenizer_config": {"use_fast": True},
            "get_spans": {"@span_getters": "spacy-transformers.doc_spans.v1"},
        }
    })
    nlp.add_pipe("global_pointer", config={"model": {
        "efficient": efficient,
        "head_width": 16,
        "tok2vec": {
            "@architectures": "spacy-transformers.TransformerListener.v1",
            "grad_factor": 1.0,
            "pooling": {"@layers": "reduce_mean.v1"},
        },
    }})
    return nlp
