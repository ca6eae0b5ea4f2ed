"""The other arms of the LCRF_NER paper as lcrf_ner settings learn GermEval
2014 (outer level) from a slice of the real data: the softmax baseline with
the paper's Entity-Fix, and the CRF over BIOES tags."""
import pytest

from tests.helpers.germeval import ARMS, learn_outer_level

# Well below what seed 0 reaches with each arm: the test catches an arm that
# stops learning.
F1_FLOORS = {"softmax": 0.32, "bioes": 0.35}
CONFIGS = {arm: ARMS[arm][1] for arm in F1_FLOORS}


@pytest.mark.slow
@pytest.mark.parametrize("arm", list(CONFIGS))
def test_learns_germeval_outer_level(shared_data, arm):
    _, scores = learn_outer_level(shared_data / "germeval2014", "lcrf_ner", CONFIGS[arm])
    print(f"{arm}: dev ents_f {scores['ents_f']:.3f}")
    assert scores["ents_f"] >= F1_FLOORS[arm]
