"""The flat heads learn GermEval 2014 (outer level) from a slice of the real
data (tests/helpers/germeval.py: the same slice, epochs and seed for both)."""
import pytest

from tests.helpers.germeval import learn_outer_level

# Well below what seed 0 reaches (lcrf_ner: with either Entity-Fix rule), so
# that the test catches a head that stops learning without failing on a
# change of seed.
F1_FLOORS = {"lcrf_ner": 0.32, "cse_ner": 0.35}
GERMEVAL_LABELS = {
    "PER", "LOC", "ORG", "OTH", "PERderiv", "LOCderiv", "ORGderiv", "OTHderiv",
    "PERpart", "LOCpart", "ORGpart", "OTHpart",
}


@pytest.mark.slow
@pytest.mark.parametrize("factory", list(F1_FLOORS))
def test_learns_germeval_outer_level(shared_data, factory):
    nlp, scores = learn_outer_level(shared_data / "germeval2014", factory)
    print(f"{factory}: dev ents_f {scores['ents_f']:.3f}")
    assert scores["ents_f"] >= F1_FLOORS[factory]
    assert set(nlp.get_pipe(factory).labels) <= GERMEVAL_LABELS
