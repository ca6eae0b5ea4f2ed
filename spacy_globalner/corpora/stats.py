"""Counts that describe a converted corpus.

The benchmark reads `max_length` to size span suggesters (spancat's ngram
suggester needs sizes up to the longest entity), and the nested counts to
say how much a flat tagger must miss. `spacy globalner stats` prints them,
with the share of a dev corpus's entities already seen in training.
"""
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Tuple

from spacy.tokens import Doc, Span


@dataclass
class CorpusStats:
    """Entity counts over a corpus.

    n_docs (int): Number of docs.
    n_tokens (int): Number of tokens.
    n_entities (int): Entities in doc.spans[spans_key], all levels.
    n_nested (int): Entities inside a longer entity.
    n_same_span (int): Entities whose exact span already has another label.
    n_crossing (int): Entities that partly overlap another, neither inside the other.
    n_ents (int): Entities in the flat layer, doc.ents.
    max_length (int): Tokens in the longest entity.
    max_depth (int): The most entities nested in one another (1: none inside
        another, 2: one level of nesting, ...; 0 without entities).
    labels (Dict[str, int]): Entities per label, most frequent first.
    lengths (Dict[int, int]): Entities per length in tokens, shortest first.
    """

    n_docs: int = 0
    n_tokens: int = 0
    n_entities: int = 0
    n_nested: int = 0
    n_same_span: int = 0
    n_crossing: int = 0
    n_ents: int = 0
    max_length: int = 0
    max_depth: int = 0
    labels: Dict[str, int] = field(default_factory=dict)
    lengths: Dict[int, int] = field(default_factory=dict)

    @property
    def nested_share(self) -> float:
        """The share of entities inside another entity."""
        return self.n_nested / self.n_entities if self.n_entities else 0.0


def _overlaps(spans: List[Tuple[int, int]]) -> Tuple[int, int, int]:
    """(nested, same span, crossing) among one doc's (start, end) spans."""
    nested = crossing = 0
    distinct = set(spans)
    for start, end in spans:
        inside = across = False
        for other_start, other_end in distinct:
            if (other_start, other_end) == (start, end):
                continue
            if other_start <= start and end <= other_end:
                inside = True
            elif other_start < end and start < other_end and not (
                start <= other_start and other_end <= end
            ):
                across = True
        nested += inside
        crossing += across
    return nested, len(spans) - len(distinct), crossing


def _depth(spans: List[Tuple[int, int]]) -> int:
    """The longest chain of one doc's distinct (start, end) spans, each inside the next."""
    depths: Dict[Tuple[int, int], int] = {}
    # Longest first: every span that contains another is seen before it.
    for start, end in sorted(set(spans), key=lambda extent: extent[0] - extent[1]):
        outer = [d for (s, e), d in depths.items() if s <= start and end <= e]
        depths[(start, end)] = 1 + max(outer, default=0)
    return max(depths.values(), default=0)


def entity_spans(doc: Doc, spans_key: str = "sc") -> List[Span]:
    """A doc's entities: doc.spans[spans_key], or doc.ents where the key is absent."""
    return list(doc.spans[spans_key] if spans_key in doc.spans else doc.ents)


def corpus_stats(docs: Iterable[Doc], spans_key: str = "sc") -> CorpusStats:
    """Count docs, tokens and entities, nested and flat.

    docs (Iterable[Doc]): The docs, e.g. from a reader or a DocBin.
    spans_key (str): The key in doc.spans holding all entities; docs without
        it are counted from doc.ents.
    RETURNS (CorpusStats): The counts.
    """
    stats = CorpusStats()
    labels: Counter = Counter()
    lengths: Counter = Counter()
    for doc in docs:
        spans = entity_spans(doc, spans_key)
        stats.n_docs += 1
        stats.n_tokens += len(doc)
        stats.n_entities += len(spans)
        stats.n_ents += len(doc.ents)
        labels.update(span.label_ for span in spans)
        extents = [(span.start, span.end) for span in spans]
        lengths.update(e - s for s, e in extents)
        if extents:
            stats.max_length = max(stats.max_length, max(e - s for s, e in extents))
            stats.max_depth = max(stats.max_depth, _depth(extents))
            nested, same_span, crossing = _overlaps(extents)
            stats.n_nested += nested
            stats.n_same_span += same_span
            stats.n_crossing += crossing
    stats.labels = dict(labels.most_common())
    stats.lengths = dict(sorted(lengths.items()))
    return stats


def seen_entities(
    seen_in: Iterable[Doc], docs: Iterable[Doc], spans_key: str = "sc", *, lowercase: bool = False
) -> Dict[str, Tuple[int, int]]:
    """How many entities of `docs`, per label, have a text and label that also
    occur in `seen_in` (e.g. dev entities seen in train).

    seen_in (Iterable[Doc]): The corpus to look in, e.g. train.
    docs (Iterable[Doc]): The corpus whose entities are counted, e.g. dev.
    spans_key (str): The key in doc.spans of the entities (doc.ents without it).
    lowercase (bool): Compare texts ignoring case.
    RETURNS (Dict[str, Tuple[int, int]]): Label -> (entities seen, entities),
        most frequent label first.
    """

    def key(span: Span) -> Tuple[str, str]:
        return (span.text.lower() if lowercase else span.text, span.label_)

    known = {key(span) for doc in seen_in for span in entity_spans(doc, spans_key)}
    seen: Counter = Counter()
    total: Counter = Counter()
    for doc in docs:
        for span in entity_spans(doc, spans_key):
            total[span.label_] += 1
            seen[span.label_] += key(span) in known
    return {label: (seen[label], count) for label, count in total.most_common()}
