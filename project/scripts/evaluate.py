"""Score a trained pipeline (compare.py's runs), and show what one finds.

    python scripts/evaluate.py show PIPELINE_DIR [TEXT] [--spans-key sc]

`evaluate_pipeline` scores a pipeline on a corpus: all spans, the flat layer
and, for nested corpora, the outer layer. Views of each prediction, scored
with spaCy's Scorer (P/R/F overall and per label):
- spans: doc.spans[key] (all entities, nested allowed; `ner`: doc.ents)
  against every gold entity;
- ents: the flat layer the component writes to doc.ents (spancat writes none:
  its spans filtered highest score first) against the reference's doc.ents;
- outer: the longest-first view of the predicted spans against the
  reference's doc.ents, which hold the outermost gold layer; on nested
  corpora this is where flat taggers (ner, lcrf_ner) compare with the others.
"""
from pathlib import Path
from typing import Callable, Dict, List, Set, Tuple

import spacy
import typer
from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokens import Doc, Span
from spacy.training import Corpus, Example

import spacy_globalner  # noqa: F401 (registers the components)
from spacy_globalner.pipeline.ents_filters import highest_score_filter, longest_first_filter

from common import Arg, Opt

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)


@app.callback()
def commands() -> None:
    # A callback keeps `show` a named command: Typer runs a lone command without its name.
    pass


def predicted_spans(doc: Doc, key: str) -> List[Span]:
    return list(doc.spans[key]) if key in doc.spans else list(doc.ents)


def span_scores(doc: Doc, key: str) -> List[float]:
    if key in doc.spans and "scores" in doc.spans[key].attrs:
        return [float(score) for score in doc.spans[key].attrs["scores"]]
    return [1.0] * len(predicted_spans(doc, key))


def with_ents(doc: Doc, spans: List[Span]) -> Doc:
    # A bare copy of the tokens: Doc.copy would also copy every span group.
    copy = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc])
    copy.ents = [Span(copy, span.start, span.end, label=span.label) for span in spans]
    return copy


def flat_view(doc: Doc, key: str, choose: Callable) -> List[Span]:
    if key not in doc.spans:  # spaCy's ner: doc.ents is all there is
        return list(doc.ents)
    return choose(predicted_spans(doc, key), span_scores(doc, key))


def own_ents(doc: Doc, key: str) -> List[Span]:
    if doc.has_annotation("ENT_IOB"):
        return list(doc.ents)
    return flat_view(doc, key, highest_score_filter)


def summarise(scores: Dict, prefix: str) -> Dict:
    per_type = scores.get(f"{prefix}_per_type") or {}
    return {
        "p": scores.get(f"{prefix}_p"),
        "r": scores.get(f"{prefix}_r"),
        "f": scores.get(f"{prefix}_f"),
        "per_type": per_type,
    }


def score_views(examples: List[Example], key: str, nested: bool) -> Dict[str, Dict]:
    results = {}
    spans = Scorer.score_spans(
        examples, f"spans_{key}",
        getter=lambda doc, attr: predicted_spans(doc, key),
        labeled=True, allow_overlap=True,
    )
    results["spans"] = summarise(spans, f"spans_{key}")
    views = {"ents": own_ents}
    if nested:
        views["outer"] = lambda doc, key: flat_view(doc, key, longest_first_filter)
    for name, view in views.items():
        flat = [Example(with_ents(eg.predicted, view(eg.predicted, key)), eg.reference)
                for eg in examples]
        results[name] = summarise(Scorer.score_spans(flat, "ents"), "ents")
    return results


def sentence_counts(examples: List[Example], key: str, nested: bool) -> Dict[str, List[Tuple[int, int, int]]]:
    """Per view, each sentence's (true positives, false positives, false
    negatives), labelled spans matched by character offsets as spaCy's Scorer
    matches them: what a paired significance test (significance.py) swaps."""
    def labelled(spans: List[Span]) -> Set[Tuple[int, int, str]]:
        return {(span.start_char, span.end_char, span.label_) for span in spans}

    views: Dict[str, Callable] = {"spans": lambda doc, gold: predicted_spans(doc, key),
                                  "ents": lambda doc, gold: list(doc.ents) if gold else own_ents(doc, key)}
    if nested:
        views["outer"] = lambda doc, gold: list(doc.ents) if gold else flat_view(doc, key, longest_first_filter)
    counts: Dict[str, List[Tuple[int, int, int]]] = {}
    for name, view in views.items():
        rows = []
        for eg in examples:
            predicted, gold = labelled(view(eg.predicted, False)), labelled(view(eg.reference, True))
            rows.append((len(predicted & gold), len(predicted - gold), len(gold - predicted)))
        counts[name] = rows
    return counts


def evaluate_pipeline(nlp: Language, dev_path: Path, key: str, nested: bool, counts: bool = False) -> Dict:
    """The views' scores of NLP on the corpus at DEV_PATH; with COUNTS, also
    each sentence's counts per view under "sentences" (sentence_counts)."""
    examples = list(Corpus(dev_path)(nlp))
    docs = nlp.pipe([eg.predicted for eg in examples], batch_size=64)
    examples = [Example(doc, eg.reference) for doc, eg in zip(docs, examples)]
    scores = score_views(examples, key, nested)
    scores["n_predicted_spans"] = sum(len(predicted_spans(eg.predicted, key)) for eg in examples)
    if counts:
        scores["sentences"] = sentence_counts(examples, key, nested)
    return scores


SAMPLE_TEXT = (
    "The IL-2 gene promoter is activated by NF-kappa B and c-Rel in human T cells "
    "and in Jurkat T cells, but not in human monocytes."
)


@app.command("show")
def show(
    # fmt: off
    nlp_path: str = Arg(..., help="A trained pipeline", metavar="PIPELINE_DIR"),
    text: str = Arg(SAMPLE_TEXT, help="The text (default: a GENIA-like sample)"),
    spans_key: str = Opt("sc", "--spans-key", help="The doc.spans key to print"),
    # fmt: on
):
    """Print the entities a trained pipeline finds in a text: nested spans and doc.ents."""
    nlp = spacy.load(nlp_path)
    doc = nlp(text)
    print(text, "\n")
    group = doc.spans.get(spans_key, [])
    scores = group.attrs.get("scores", [None] * len(group)) if len(group) else []
    print(f"doc.spans[{spans_key!r}]: {len(group)} spans (nested ones indented)")
    for span, score in sorted(zip(group, scores), key=lambda pair: (pair[0].start, -len(pair[0]))):
        depth = sum(
            1 for other in group
            if other.start <= span.start and span.end <= other.end and len(other) > len(span)
        )
        print(f"  {'    ' * depth}{span.text!r:40} {span.label_:10} {float(score):.3f}")
    print(f"\ndoc.ents: {[(ent.text, ent.label_) for ent in doc.ents]}")


if __name__ == "__main__":
    app()
