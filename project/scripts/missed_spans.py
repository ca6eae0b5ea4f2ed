"""Which gold spans a trained global_pointer pipeline misses, and why: per
label, the share of gold spans scored above the pipe's threshold (its recall)
and far below it (4 or more logits under it); and the share of the found and of
the missed spans none of whose words occurs in the training corpus.

    python scripts/missed_spans.py MODEL DEV_SPACY TRAIN_SPACY

The dev text is tokenized by the pipeline, as `spacy evaluate` and `spacy train`
do, and the gold spans are aligned to its tokens; a gold span that does not
align, or whose label the head does not know, counts as missed.
"""
import sys
from collections import defaultdict
from typing import Dict, List, Set

import numpy
import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Example

FAR_BELOW = -4.0
NO_CELL = -1e9  # a gold span the band has no cell for: below any threshold
BATCH = 256


def train_words(path: str, vocab) -> Set[str]:
    return {token.text for doc in DocBin().from_disk(path).get_docs(vocab) for token in doc}


def band_scores(nlp, head_name: str, docs: List[Doc]) -> numpy.ndarray:
    """(n_tokens, width, n_labels) logits, the docs packed one after another."""
    head = nlp.get_pipe(head_name)
    for name, proc in nlp.pipeline:
        if name != head_name:
            docs = list(proc.pipe(docs))
    batches = [docs[i : i + BATCH] for i in range(0, len(docs), BATCH)]
    return numpy.concatenate([head.model.ops.to_numpy(head.predict(batch)) for batch in batches])


def gold_margins(nlp, examples: List[Example], seen: Set[str], head_name: str = "global_pointer"):
    """Each gold span's score minus its label's threshold, per label, and
    {found: (n_spans, n_spans with no word in `seen`)} for found True/False."""
    head = nlp.get_pipe(head_name)
    key, label_ids = head.cfg["spans_key"], {label: i for i, label in enumerate(head.labels)}
    probabilities = head.label_thresholds()  # the score a span must reach, a probability
    with numpy.errstate(divide="ignore"):
        thresholds = numpy.log(probabilities) - numpy.log1p(-probabilities)  # in logits, as the band
    scores = band_scores(nlp, head_name, [example.predicted for example in examples])
    per_label: Dict[str, List[float]] = defaultdict(list)
    counts = {True: [0, 0], False: [0, 0]}
    offset = 0
    for example in examples:
        gold = example.reference.spans[key]
        aligned_spans = example.get_aligned_spans_y2x(gold, allow_overlap=True)
        aligned = {(s.start_char, s.end_char, s.label_): s for s in aligned_spans}
        for span in gold:
            label_id = label_ids.get(span.label_)
            at = aligned.get((span.start_char, span.end_char, span.label_))
            if label_id is None or at is None or len(at) > scores.shape[1]:
                margin = NO_CELL
            else:
                margin = float(scores[offset + at.start, len(at) - 1, label_id] - thresholds[label_id])
            per_label[span.label_].append(margin)
            counts[margin > 0][0] += 1
            counts[margin > 0][1] += all(token.text not in seen for token in span)
        offset += len(example.predicted)
    return per_label, counts


def print_row(label: str, margins: List[float]) -> None:
    """The label, its gold spans, the share found and the share far below."""
    margins = numpy.asarray(margins)
    found_share, far_share = 100 * (margins > 0).mean(), 100 * (margins <= FAR_BELOW).mean()
    print(f"{label:12s} {len(margins):5d} {found_share:5.1f}% {far_share:8.1f}%")


def main(model: str, dev_path: str, train_path: str, head_name: str = "global_pointer") -> None:
    nlp = spacy.load(model)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in DocBin().from_disk(dev_path).get_docs(nlp.vocab)]
    per_label, counts = gold_margins(nlp, examples, train_words(train_path, nlp.vocab), head_name)
    print(f"{'label':12s} {'gold':>5s} {'found':>6s} {'far below':>9s}")
    for label, margins in sorted(per_label.items(), key=lambda item: -len(item[1])):
        print_row(label, margins)
    print_row("all", [margin for margins in per_label.values() for margin in margins])
    for found, what in ((True, "found"), (False, "missed")):
        n_spans, n_unseen = counts[found]
        print(f"{what}: {n_spans} spans, {100 * n_unseen / max(n_spans, 1):.1f}% of them with no word seen in training")


if __name__ == "__main__":
    main(*sys.argv[1:])
