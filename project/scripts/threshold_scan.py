"""spacy find-threshold's scan of a head's threshold, on one prediction of dev.

`spacy find-threshold` reloads the pipeline and predicts the whole dev split
again for every threshold it tries: on a transformer, 21 passes of the encoder
per tuned score. A threshold only decides which of the head's scores become
spans (the head's `set_annotations`); its `predict` does not read it. So the
scan here runs the pipeline once, keeps the head's scores for each batch
(the batches `nlp.evaluate` would make), and for each threshold writes the
spans on fresh copies of the dev docs and scores them as `nlp.evaluate` does.
A component before the head (span_finder, whose threshold decides which
candidates spancat labels) is scanned the same way, with the components after
it run again on each threshold's spans. It tries the same thresholds
(numpy.linspace(0, 1, n_trials)) and breaks ties the same way (the lowest
threshold wins), so it returns what find-threshold returns;
tests/project/test_threshold_scan.py holds it to that.
"""
from pathlib import Path
from typing import Dict, List, Tuple

import numpy
from spacy.language import Language
from spacy.scorer import Scorer
from spacy.training import Corpus, Example
from spacy.util import minibatch


def scan_threshold(
    nlp: Language, dev_path: Path, pipe_name: str, scores_key: str, n_trials: int
) -> Tuple[float, float, Dict[float, float]]:
    """Score each of N_TRIALS thresholds from 0 to 1 of PIPE_NAME's `threshold`
    for SCORES_KEY on the docs at DEV_PATH, the components after PIPE_NAME
    run on each threshold's annotations. NLP keeps its threshold.

    RETURNS (Tuple[float, float, Dict[float, float]]): the best threshold, its
        score, and every threshold's score, as spacy find-threshold returns them.
    """
    head = nlp.get_pipe(pipe_name)
    examples = list(Corpus(dev_path)(nlp))
    batches = list(minibatch(examples, size=nlp.batch_size))
    # The docs as they reach the head, copied for each threshold: the components
    # after it read what those before it set (a listener reads doc.tensor).
    reaching = [_run_before(nlp, pipe_name, batch) for batch in batches]
    predictions = [head.predict(docs) for docs in reaching]
    after = nlp.pipe_names[nlp.pipe_names.index(pipe_name) + 1:]
    kept = head.cfg["threshold"]
    scores: Dict[float, float] = {}
    try:
        for threshold in numpy.linspace(0, 1, n_trials):
            head.cfg["threshold"] = threshold
            predicted: List[Example] = []
            for batch, before, prediction in zip(batches, reaching, predictions):
                docs = [doc.copy() for doc in before]
                head.set_annotations(docs, prediction)
                for name in after:
                    docs = list(nlp.get_pipe(name).pipe(docs, batch_size=nlp.batch_size))
                predicted.extend(Example(doc, example.reference) for doc, example in zip(docs, batch))
            scores[threshold] = Scorer(nlp=nlp).score(predicted)[scores_key]
    finally:
        head.cfg["threshold"] = kept
    best = max(scores, key=lambda threshold: scores[threshold])
    return best, scores[best], scores


def _run_before(nlp: Language, pipe_name: str, examples: List[Example]) -> list:
    """Copies of the examples' docs through every component before PIPE_NAME."""
    docs = [example.predicted.copy() for example in examples]
    for name, proc in nlp.pipeline:
        if name == pipe_name:
            break
        docs = list(proc.pipe(docs, batch_size=nlp.batch_size))
    return docs
