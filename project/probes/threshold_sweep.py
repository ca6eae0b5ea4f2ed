"""Score a trained global_pointer or crener pipeline at several global
thresholds, on the first half of a dev corpus (devA), its second half (devB)
and all of it, as `spacy evaluate` scores it (spans_sc and ents, F, P, R).

    python project/probes/threshold_sweep.py MODEL DEV_SPACY OUTPUT_JSON 0.5 0.3775 0.2689
        [--ents-filter spacy-globalner.highest_score_filter.v1]

Per-label calibrated thresholds are set aside, so `threshold` alone decides:
a probability, the score a span must reach (docs/thresholds.md).
--ents-filter loads the pipeline with another `ents_filter` (global_pointer,
crener), which decides doc.ents from the spans that pass the threshold.
Choose a default on devA of every corpus, report it on devB: the way the
default thresholds of the shipped configs were chosen (project/BENCHMARKS.md,
decision records).
"""
import json
import sys
from typing import List

import spacy
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_globalner.cli.calibrate import _component_name

METRICS = ("spans_sc_f", "spans_sc_p", "spans_sc_r", "ents_f", "ents_p", "ents_r")


def main(model: str, dev_path: str, output_path: str, thresholds: List[float], ents_filter: str = "") -> None:
    nlp = spacy.load(model)
    name = _component_name(nlp, None, model)  # the one with a threshold, as calibrate finds it
    if ents_filter:  # the component's name is known once loaded: load again with the filter
        nlp = spacy.load(model, config={"components": {name: {"ents_filter": {"@misc": ents_filter}}}})
    pipe = nlp.get_pipe(name)
    # as spacy.Corpus reads them: the pipeline re-tokenizes the text
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in DocBin().from_disk(dev_path).get_docs(nlp.vocab)]
    half = len(examples) // 2
    parts = {"devA": examples[:half], "devB": examples[half:], "dev": examples}
    results = {}
    for threshold in thresholds:
        pipe.cfg["threshold"] = threshold
        pipe.cfg["thresholds"] = {}
        for part, gold in parts.items():
            scores = nlp.evaluate(gold)  # evaluates copies: the examples stay as read
            row = {metric: round(100 * scores[metric], 2) for metric in METRICS}
            results[f"{threshold}/{part}"] = row
            print(threshold, part, row, flush=True)
    with open(output_path, "w", encoding="utf8") as file_:
        json.dump(results, file_, indent=1)


if __name__ == "__main__":
    args = sys.argv[1:]
    chosen_filter = ""
    if "--ents-filter" in args:
        at = args.index("--ents-filter")
        chosen_filter = args[at + 1]
        del args[at:at + 2]
    main(args[0], args[1], args[2], [float(value) for value in args[3:]], chosen_filter)
