"""Print the entities a trained pipeline finds in a text: nested spans and doc.ents.

python scripts/show_entities.py PIPELINE_DIR [TEXT] [--spans-key sc]
"""
import argparse

import spacy

SAMPLE_TEXT = (
    "The IL-2 gene promoter is activated by NF-kappa B and c-Rel in human T cells "
    "and in Jurkat T cells, but not in human monocytes."
)


def show(nlp_path: str, text: str, spans_key: str) -> None:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pipeline")
    parser.add_argument("text", nargs="?", default=SAMPLE_TEXT)
    parser.add_argument("--spans-key", default="sc")
    args = parser.parse_args()
    show(args.pipeline, args.text, args.spans_key)


if __name__ == "__main__":
    main()
