"""Token vectors, heads and a tiny tok2vec for the tests of the heads over
padded token vectors (cse_ner, lcrf_ner)."""
import numpy
import spacy
from thinc.api import fix_random_seed, get_current_ops

N_IN = 8


def token_vectors(lengths, seed=0):
    rng = numpy.random.default_rng(seed)
    ops = get_current_ops()
    return [ops.asarray2f(rng.normal(size=(n, N_IN)).astype("float32")) for n in lengths]


def make_padded_head(head_layer, n_labels, **kwargs):
    fix_random_seed(0)
    head = head_layer(**kwargs)
    head.set_dim("nO", n_labels)
    return head


def tiny_tok2vec():
    return spacy.registry.resolve(
        {"t": {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 16,
               "depth": 1, "embed_size": 100, "window_size": 1, "maxout_pieces": 2,
               "subword_features": True}}
    )["t"]
