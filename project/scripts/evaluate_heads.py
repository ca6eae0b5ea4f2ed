"""Score every trained head on the dev split: all spans, the flat layer and,
for nested corpora, the outer layer.

python scripts/evaluate_heads.py MODELS_DIR DEV_SPACY OUTPUT_JSON [--stats STATS_JSON]
    [--heads all] [--spans-key sc] [--gpu-id -1]

Views of each prediction, scored with spaCy's Scorer (P/R/F overall and per label):
- spans: doc.spans[key] (all entities, nested allowed; `ner`: doc.ents)
  against every gold entity;
- ents: the flat layer the component writes to doc.ents (spancat writes none:
  its spans filtered highest score first) against the reference's doc.ents;
- outer: the longest-first view of the predicted spans against the
  reference's doc.ents, which hold the outermost gold layer; on nested
  corpora this is where flat taggers (ner, lcrf_ner) compare with the others.
"""
import argparse
import json
from pathlib import Path
from typing import Callable, Dict, List

import spacy
import spacy_globalner  # noqa: F401 (registers the components)
from spacy.scorer import Scorer
from spacy.tokens import Doc, Span
from spacy.training import Corpus, Example

from spacy_globalner.pipeline.ents_filters import highest_score_filter, longest_first_filter

from benchmark_corpora import parse_heads


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


def evaluate(model_path: Path, dev_path: Path, key: str, nested: bool) -> Dict:
    nlp = spacy.load(model_path)
    examples = list(Corpus(dev_path)(nlp))
    docs = nlp.pipe([eg.predicted for eg in examples], batch_size=64)
    examples = [Example(doc, eg.reference) for doc, eg in zip(docs, examples)]
    scores = score_views(examples, key, nested)
    scores["n_predicted_spans"] = sum(len(predicted_spans(eg.predicted, key)) for eg in examples)
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models_dir", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--heads", default="all")
    parser.add_argument("--spans-key", default="sc")
    parser.add_argument("--stats", type=Path, default=None,
                        help="stats.json of bench_corpus.py: a nested corpus also gets the outer score")
    parser.add_argument("--nested", action="store_true", help="also score the outer layer")
    parser.add_argument("--gpu-id", type=int, default=-1)
    args = parser.parse_args()
    if args.gpu_id >= 0:
        spacy.require_gpu(args.gpu_id)
    nested = args.nested or (args.stats is not None and json.loads(args.stats.read_text())["nested"])
    results = json.loads(args.output.read_text()) if args.output.exists() else {}
    for head in parse_heads(args.heads):
        model = args.models_dir / head / "model-last"
        if not model.exists():
            print(f"skipping {head}: no {model}")
            continue
        results[head] = evaluate(model, args.dev, args.spans_key, nested)
        figures = {view: round(results[head][view]["f"] or 0.0, 4)
                   for view in ("spans", "ents", "outer") if view in results[head]}
        print(f"{head}: F {figures}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
