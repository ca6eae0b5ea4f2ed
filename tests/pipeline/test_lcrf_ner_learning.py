"""lcrf_ner learns GermEval 2014 (outer level) from a slice of the real data."""
import time

import pytest
import spacy
from spacy.training import Example
from thinc.api import fix_random_seed

from tests.helpers.germeval import read_outer_level

N_TRAIN, N_DEV, N_EPOCHS, BATCH = 2000, 500, 6, 32
# Well below what seed 0 reaches with either Entity-Fix rule, so that the test
# catches a head that stops learning without failing on a change of seed.
F1_FLOOR = 0.35


@pytest.mark.slow
def test_learns_germeval_outer_level(shared_data, one_torch_thread):
    folder = shared_data / "germeval2014"
    fix_random_seed(0)
    nlp = spacy.blank("de")
    nlp.add_pipe("lcrf_ner")
    train = [Example(nlp.make_doc(doc.text), doc)
             for doc in read_outer_level(folder / "germ.train.iob2", nlp.vocab, N_TRAIN)]
    dev = [Example(nlp.make_doc(doc.text), doc)
           for doc in read_outer_level(folder / "germ.dev.iob2", nlp.vocab, N_DEV)]
    started = time.time()
    optimizer = nlp.initialize(lambda: train)
    for _ in range(N_EPOCHS):
        for start in range(0, len(train), BATCH):
            nlp.update(train[start : start + BATCH], sgd=optimizer, drop=0.1)
    scores = nlp.evaluate(dev)
    print(f"dev ents_f {scores['ents_f']:.3f} in {time.time() - started:.0f} s")
    assert scores["ents_f"] >= F1_FLOOR
    assert set(nlp.get_pipe("lcrf_ner").labels) <= {
        "PER", "LOC", "ORG", "OTH", "PERderiv", "LOCderiv", "ORGderiv", "OTHderiv",
        "PERpart", "LOCpart", "ORGpart", "OTHpart",
    }
