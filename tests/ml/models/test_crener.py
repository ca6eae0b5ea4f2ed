"""The CRENER Thinc head layer and the registered architecture."""
import numpy
import pytest
import spacy
import torch
from thinc.api import fix_random_seed, get_current_ops

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.models.crener import build_crener, build_crener_paper, crener_head, plan_doc_windows
from spacy_globalner.ml.torch.crener.settings import PAPER_SETTINGS, CRENERSettings

SMALL = dict(
    token_width=16,
    context_depth=1,
    grid_width=12,
    distance_width=4,
    region_width=4,
    conv_width=8,
    dilations=(1, 2, 3),
    enhancement_rounds=1,
    attention_heads=2,
    biaffine_width=8,
    predictor_width=8,
    dropout=0.0,
)
N_TAGS = 6


def _head(**overrides):
    fix_random_seed(0)
    options = {**SMALL, **overrides}
    cells = options.pop("max_batch_cells", 10**6)
    head = crener_head(CRENERSettings(**options), max_batch_cells=cells, mixed_precision=False)
    head.set_dim("nO", N_TAGS)
    return head


def _inputs(ops, lengths=(7, 3, 5), width=10):
    vectors = [ops.asarray2f(numpy.random.RandomState(i).randn(n, width)) for i, n in enumerate(lengths)]
    windows = numpy.asarray([[i, 0, n, 0, n] for i, n in enumerate(lengths)], dtype="int64")
    return vectors, windows


def test_head_initialize_forward_backward():
    ops = get_current_ops()
    head = _head()
    X = _inputs(ops)
    head.initialize(X=X)
    assert head.get_dim("nI") == 10
    grids, backprop = head(X, is_train=True)
    assert [g.shape for g in grids] == [(7, 7, N_TAGS + 1), (3, 3, N_TAGS + 1), (5, 5, N_TAGS + 1)]
    assert all(g.dtype == numpy.float32 for g in grids)
    d_vectors = backprop([ops.alloc3f(*g.shape) + 1 for g in grids])
    assert [d.shape for d in d_vectors] == [x.shape for x in X[0]]
    assert all(float(abs(ops.to_numpy(d)).sum()) > 0 for d in d_vectors)


def test_head_chunking_equals_one_batch():
    """Windows run one at a time (tiny cell budget) give the grids and
    gradients of the whole batch padded together."""
    ops = get_current_ops()
    X = _inputs(ops)
    together = _head(max_batch_cells=10**6)
    together.initialize(X=X)
    alone = _head(max_batch_cells=1)
    alone.initialize(X=X)
    alone.from_bytes(together.to_bytes())
    # from_bytes brings the saved attrs too: the cell budget back to one.
    alone.attrs["max_batch_cells"] = 1
    grids_a, backprop_a = together(X, is_train=False)
    grids_b, backprop_b = alone(X, is_train=False)
    for a, b in zip(grids_a, grids_b):
        numpy.testing.assert_allclose(ops.to_numpy(a), ops.to_numpy(b), atol=1e-5)
    grids_a, backprop_a = together(X, is_train=True)
    grids_b, backprop_b = alone(X, is_train=True)
    d_grids = [ops.asarray(numpy.random.RandomState(0).randn(*g.shape).astype("float32")) for g in grids_a]
    for a, b in zip(backprop_a(d_grids), backprop_b(d_grids)):
        numpy.testing.assert_allclose(ops.to_numpy(a), ops.to_numpy(b), atol=1e-4)


def test_prediction_keeps_no_padded_chunk(monkeypatch):
    """Prediction holds one copy of each window's grid: every chunk's padded
    score tensor is freed once its windows are copied out (a 20,000-token doc
    has 104 windows; keeping both copies doubled its memory). Training keeps
    them, for backprop."""
    import gc
    import weakref

    import spacy_globalner.ml.models.crener as crener_models

    padded = []
    window_grids = crener_models._window_grids

    def recording(model, inputs_outputs, is_train):
        padded.append(weakref.ref(inputs_outputs[1]))
        return window_grids(model, inputs_outputs, is_train)

    monkeypatch.setattr(crener_models, "_window_grids", recording)
    ops = get_current_ops()
    X = _inputs(ops)
    head = _head(max_batch_cells=1)  # one chunk per window
    head.initialize(X=X)
    padded.clear()
    # While the forward pass runs (up to its return) earlier chunks must be gone.
    grids, backprop = head(X, is_train=False)
    gc.collect()
    assert len(padded) == 3 and all(ref() is None for ref in padded)
    assert [g.shape[0] for g in grids] == [7, 3, 5]
    padded.clear()
    grids, backprop = head(X, is_train=True)
    gc.collect()
    assert len(padded) == 3 and all(ref() is not None for ref in padded)


def test_head_overlapping_windows_add_gradients():
    ops = get_current_ops()
    vectors, _ = _inputs(ops, lengths=(8,))
    windows = numpy.asarray([[0, 0, 5, 0, 4], [0, 3, 8, 4, 8]])
    head = _head()
    head.initialize(X=(vectors, windows))

    def d_vectors(weights):
        grids, backprop = head((vectors, windows), is_train=True)
        assert [g.shape[0] for g in grids] == [5, 5]
        return backprop([ops.alloc3f(*g.shape) + w for g, w in zip(grids, weights)])[0]

    d_doc, first, second = d_vectors((1, 1)), d_vectors((1, 0)), d_vectors((0, 1))
    numpy.testing.assert_allclose(ops.to_numpy(d_doc), ops.to_numpy(first + second), atol=1e-5)
    assert float(abs(ops.to_numpy(first[5:])).sum()) == 0.0  # window 0 ends at token 5


def test_head_no_windows():
    ops = get_current_ops()
    head = _head()
    head.initialize()
    vectors = [ops.alloc2f(0, 10)]
    grids, backprop = head((vectors, numpy.zeros((0, 5), dtype="int64")), is_train=True)
    assert grids == []
    assert backprop([])[0].shape == (0, 10)


def _tok2vec():
    from spacy.ml.models import build_hash_embed_cnn_tok2vec

    return build_hash_embed_cnn_tok2vec(
        width=16, depth=1, embed_size=300, window_size=1, maxout_pieces=2,
        subword_features=True, pretrained_vectors=None,
    )


def test_architecture_forward_windows_and_refs():
    nlp = spacy.blank("en")
    docs = [nlp.make_doc("one two three four five six seven"), nlp.make_doc(""), nlp.make_doc("a b")]
    model = build_crener(_tok2vec(), **SMALL)
    assert model.get_ref("tok2vec") is model.layers[0]
    model.attrs["max_grid_length"] = 4
    model.get_ref("head").set_dim("nO", N_TAGS)
    model.initialize(X=docs)
    (grids, windows), backprop = model.begin_update(docs)
    assert windows[:, 0].tolist() == [0, 0, 2]
    assert [g.shape[0] for g in grids] == (windows[:, 2] - windows[:, 1]).tolist()
    backprop([model.ops.alloc3f(*g.shape) for g in grids])


def test_plan_doc_windows_uses_sentences():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("a b c . d e f . g h i .")
    for i, token in enumerate(doc):
        token.is_sent_start = i % 4 == 0
    plan = plan_doc_windows([doc], 8)
    assert plan[:, 1:3].tolist() == [[0, 8], [8, 12]]
    assert plan_doc_windows([nlp.make_doc("a b c")], 8)[:, 1:3].tolist() == [[0, 3]]


@pytest.mark.parametrize(
    "overrides,code",
    [
        ({"token_width": 0}, "E201"),
        ({"context_depth": -1}, "E201"),
        ({"token_width": 15, "context_depth": 1}, "E202"),
        ({"token_width": 18, "context_depth": 0, "attention_heads": 4}, "E203"),
        ({"dilations": []}, "E204"),
        ({"dilations": [1, 0]}, "E204"),
    ],
)
def test_architecture_rejects_bad_settings(overrides, code):
    with pytest.raises(ValueError, match=code):
        build_crener(_tok2vec(), **{**SMALL, **overrides})


def test_paper_enhancement_checks_grid_width_against_heads():
    from thinc.api import Linear

    tok2vec = Linear(4)  # never run: the settings are refused first
    with pytest.raises(ValueError, match=r"\[E221\]"):
        build_crener(tok2vec, token_width=16, grid_width=6, attention_heads=4, enhancement="paper")
    # The pooled form and zero rounds do not need it.
    build_crener(tok2vec, token_width=16, grid_width=6, attention_heads=4)
    build_crener(tok2vec, token_width=16, grid_width=6, attention_heads=4, enhancement="paper", enhancement_rounds=0)


@pytest.mark.parametrize(
    "architecture,settings", [(build_crener, CRENERSettings()), (build_crener_paper, PAPER_SETTINGS)]
)
def test_signature_defaults_are_the_settings(architecture, settings):
    """Each architecture's signature (what spaCy fills a config with) reads
    its defaults from CRENERSettings."""
    import inspect

    parameters = inspect.signature(architecture).parameters
    for name in settings.__dataclass_fields__:
        if name in parameters:
            assert parameters[name].default == getattr(settings, name), name


# The paper's model as an architecture of its own ---------------------------

PAPER = {
    "transformer_depth": 1,
    "attention_embedding_width": 4,
    "parallel_dilations": True,
    "cln_bias_from": "object",
    "enhancement": "paper",
    "enhancement_rounds": 1,
    "predictor_input": "grid+tags",
}
TINY_TOK2VEC = {
    "@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": None, "width": 32, "depth": 1,
    "embed_size": 500, "window_size": 1, "maxout_pieces": 2, "subword_features": True,
}


def _built(architecture, **settings):
    """(torch module, grids) of the architecture at seed 0, on two docs,
    with the default widths and 8 tags."""
    from spacy.util import registry

    fix_random_seed(0)
    nlp = spacy.blank("en")
    model = registry.resolve({"m": {"@architectures": architecture, "tok2vec": TINY_TOK2VEC, **settings}})["m"]
    model.get_ref("head").set_dim("nO", 8)
    model.attrs["max_grid_length"] = 256
    texts = ["IL-2 gene expression requires NF-kappa B activation in T cells .", "CD28 signals"]
    docs = [nlp.make_doc(text) for text in texts]
    model.initialize(X=docs)
    grids, _ = model.predict(docs)
    module = wrapped_module(model.get_ref("head").layers[0])
    return module, [model.ops.to_numpy(grid) for grid in grids]


# What CRENER.v1 builds at seed 0 (parameter count, sum of |weights|, sum of
# |logits| per doc): pinned, as a released architecture never changes.
PINNED_V1 = {
    "defaults": (389099, 19634.528561, [262.0747, 5.8964]),
    "paper": (446573, 22296.220653, [694.5906, 16.8329]),
}


@pytest.mark.parametrize("name,settings", [("defaults", {}), ("paper", PAPER)])
def test_crener_v1_builds_what_it_built(name, settings):
    module, grids = _built("spacy-globalner.CRENER.v1", **settings)
    n_params, weight_sum, logit_sums = PINNED_V1[name]
    assert sum(p.numel() for p in module.parameters()) == n_params
    weights = float(sum(p.detach().double().abs().sum() for p in module.parameters()))
    assert weights == pytest.approx(weight_sum, rel=1e-6)
    assert [float(numpy.abs(g).astype("float64").sum()) for g in grids] == pytest.approx(logit_sums, rel=1e-4)


def test_paper_architecture_is_v1_with_every_paper_piece():
    """CRENERPaper.v1 with its defaults computes what CRENER.v1 with the
    paper's settings does: the same weights at the same seed, the same grids."""
    module, grids = _built("spacy-globalner.CRENERPaper.v1")
    expected_module, expected_grids = _built("spacy-globalner.CRENER.v1", **PAPER)
    state, expected_state = module.state_dict(), expected_module.state_dict()
    assert state.keys() == expected_state.keys()
    for key in state:
        assert torch.equal(state[key], expected_state[key]), key
    for grid, expected in zip(grids, expected_grids):
        numpy.testing.assert_array_equal(grid, expected)


def test_paper_architecture_is_one_setting_from_the_factory():
    """The factory's model block with another @architectures line (spaCy
    replaces a block whose function changes, so the tok2vec comes along)."""
    from spacy_globalner.pipeline.crener import DEFAULT_CRENER_MODEL_CONFIG

    model = {**DEFAULT_CRENER_MODEL_CONFIG, "@architectures": "spacy-globalner.CRENERPaper.v1"}
    nlp = spacy.blank("en")
    crener = nlp.add_pipe("crener", config={"model": model})
    crener.add_label("protein")
    crener._init_model_shape()
    settings = wrapped_module(crener.model.get_ref("head").layers[0]).settings
    assert (settings.enhancement, settings.cln_bias_from, settings.parallel_dilations) == ("paper", "object", True)
    assert (settings.transformer_depth, settings.attention_embedding_width) == (1, 4)
    assert settings.predictor_input == "grid+tags"
