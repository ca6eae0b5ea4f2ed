"""What the heads over padded token vectors (cse_ner, lcrf_ner) and their
architectures share."""
import pytest
import spacy

from spacy_globalner.ml.models.cse_ner import build_cse_ner, cse_ner_head
from spacy_globalner.ml.models.lcrf_ner import build_lcrf_ner, lcrf_ner_head
from tests.helpers.padded_heads import N_IN, make_padded_head, tiny_tok2vec, token_vectors

HEADS = [cse_ner_head, lcrf_ner_head]


@pytest.mark.parametrize("head_layer", HEADS)
def test_head_builds_its_module_in_init(head_layer):
    head = make_padded_head(head_layer, 3)
    assert not head.layers
    head.initialize(X=token_vectors([3, 2]))
    assert len(head.layers) == 1 and head.get_dim("nI") == N_IN


# Two labels: CSE logits start, end, the labels and "other"; IOB emissions
# B-*, I-*, O and the transitions over them, START and END.
@pytest.mark.parametrize(
    "architecture,shapes",
    [(build_cse_ner, [(2, 3, 2 + 2 + 1)]), (build_lcrf_ner, [(2, 3, 5), (7, 7)])],
)
def test_architecture_keeps_tok2vec_and_head_refs(architecture, shapes):
    nlp = spacy.blank("en")
    tok2vec = tiny_tok2vec()
    model = architecture(tok2vec)
    assert model.get_ref("tok2vec") is tok2vec
    model.get_ref("head").set_dim("nO", 2)
    docs = [nlp.make_doc("a b c"), nlp.make_doc("d")]
    model.initialize(X=docs)
    outputs = model.predict(docs)
    assert [output.shape for output in (outputs if isinstance(outputs, tuple) else (outputs,))] == shapes
