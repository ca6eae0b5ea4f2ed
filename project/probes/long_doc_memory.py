"""Peak memory of predicting one long doc: GENIA dev sentences concatenated into
one doc of N tokens with no sentence boundaries, as one call of nlp(doc).
Prints the spans written and the growth of the process's peak RSS during the
call (ru_maxrss after minus before), so the loading of the pipeline is left out.

    python project/probes/long_doc_memory.py COMPONENT MODEL [N_TOKENS] [SETTING=JSON ...]

MODEL is a trained pipeline's path, or `untrained`: a blank English pipeline
with COMPONENT from the factory's defaults, initialized (labels, widths) on 200
GENIA train sentences, seed 0. SETTING=JSON overrides a setting of the
component, e.g. max_candidates=0 or threshold=0.0.
"""
import json
import resource
import sys
import warnings

import spacy
from spacy.tokens import Doc
from spacy.training import Example
from thinc.api import fix_random_seed

from spacy_globalner.corpora import read_nested_jsonl

TRAIN = "project/assets/genia/train.jsonl"
DEV = "../shared/data/genia/dev.jsonl"  # 1,669 sentences: enough for 20,000 tokens and more


def main(component: str, model: str, n_tokens: int = 20_000, *settings: str) -> None:
    fix_random_seed(0)
    overrides = {key: json.loads(value) for key, value in (setting.split("=", 1) for setting in settings)}
    if model == "untrained":
        nlp = spacy.blank("en")
        nlp.add_pipe(component, config=overrides)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            train = [Example(nlp.make_doc(doc.text), doc) for doc in read_nested_jsonl(TRAIN, nlp.vocab, limit=200)]
            nlp.initialize(lambda: train)
    else:
        nlp = spacy.load(model, config={"components": {component: overrides}} if overrides else {})
    words = []
    for doc in read_nested_jsonl(DEV, nlp.vocab):
        words.extend(token.text for token in doc)
        if len(words) >= n_tokens:
            break
    doc = Doc(nlp.vocab, words=words[:n_tokens])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        doc = nlp(doc)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    key = nlp.get_pipe(component).cfg["spans_key"]
    print(json.dumps({
        "component": component, "model": model, "settings": overrides, "tokens": len(doc),
        "spans": len(doc.spans[key]), "peak_rss_mb": round(after / 1024),
        "peak_growth_mb": round((after - before) / 1024),
        "warnings": [str(warning.message).split("]")[0] + "]" for warning in caught],
    }))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *(int(arg) for arg in sys.argv[3:4]), *sys.argv[4:])
