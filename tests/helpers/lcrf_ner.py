"""What the lcrf_ner tests share: two German sentences of flat gold and
their examples."""
from spacy.tokens import Span
from spacy.training import Example

TRAIN_DATA = [
    ("Angela Merkel besuchte gestern Paris und Rom .",
     [(0, 2, "PER"), (4, 5, "LOC"), (6, 7, "LOC")]),
    ("Die Vereinten Nationen tagen in New York .",
     [(1, 3, "ORG"), (5, 7, "LOC")]),
]


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
