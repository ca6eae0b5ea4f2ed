"""The `crener` component: construction, labels, bad input, overfitting,
serialization, evaluation, batching and windowing of long docs."""

import numpy
import pytest
import spacy
import torch
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Adam, fix_random_seed

from spacy_globalner import CRENER, highest_score_filter
from spacy_globalner.decoding.crener.windows import END, START
from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.models.crener import plan_doc_windows
from tests.helpers.components import overfit_pipeline
from tests.helpers.crener import SMALL_MODEL, SMALL_TOK2VEC, TRAIN_DATA, example_of, spans_of
from tests.helpers.trained_pipelines import one_torch_thread


def _nlp(**config) -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("crener", config={"model": SMALL_MODEL, **config})
    return nlp


@pytest.fixture(scope="module")
def trained():
    """The small model overfit on TRAIN_DATA (seed 0, 50 updates of Adam 0.003)."""
    nlp, _, examples = overfit_pipeline("crener")
    return nlp, examples


def test_labels_implicit_from_data():
    nlp = _nlp()
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    nlp.initialize(lambda: examples)
    assert nlp.get_pipe("crener").labels == ("DNA", "cell_type", "protein")
    assert nlp.get_pipe("crener").model.get_ref("head").get_dim("nO") == 2 + 2 * 3


def test_labels_explicit_and_add_label():
    nlp = _nlp()
    crener = nlp.get_pipe("crener")
    assert crener.add_label("protein") == 1 and crener.add_label("protein") == 0
    examples = [example_of(nlp, "IL-2 is here", [(0, 1, "protein")])]
    crener.initialize(lambda: examples, nlp=nlp, labels=["protein", "RNA"])
    assert crener.labels == ("protein", "RNA")
    with pytest.raises(ValueError, match="E004"):
        crener.add_label("DNA")


def test_missing_labels_raise():
    nlp = _nlp()
    examples = [example_of(nlp, "nothing to see", [])]
    with pytest.raises(ValueError, match=r"\[E025\]"):
        nlp.initialize(lambda: examples)
    nlp = _nlp()
    examples = [example_of(nlp, "IL-2 is here", [(0, 1, "protein")])]
    with pytest.raises(ValueError, match="E003"):
        nlp.get_pipe("crener").initialize(lambda: examples, nlp=nlp, labels=["DNA"])


def test_uninitialized_predict_raises():
    nlp = _nlp()
    nlp.get_pipe("crener").add_label("protein")
    with pytest.raises(ValueError, match="E002"):
        nlp("IL-2 is here")


@pytest.mark.parametrize(
    "config,code",
    [
        ({"threshold": float("nan")}, "E050"),
        ({"threshold": 1.5}, "E050"),  # a logit: thresholds are probabilities
        ({"max_grid_length": 0}, "E200"),
        ({"max_grid_length": -3}, "E200"),
        ({"max_grid_length": 1}, "E230"),
        ({"max_grid_length": 7}, "E230"),
        ({"max_candidates": -1}, "E052"),
        ({"max_candidates": 2.5}, "E052"),
        ({"positive_weight": 0.0}, "E206"),
        ({"positive_weight": float("inf")}, "E206"),
    ],
)
def test_bad_settings_raise(config, code):
    nlp = _nlp()
    model = nlp.get_pipe("crener").model
    with pytest.raises(ValueError, match=code):
        CRENER(nlp.vocab, model, ents_filter=highest_score_filter, **config)
    with pytest.raises(ValueError, match="E200"):
        nlp.get_pipe("crener").max_grid_length = 0
    with pytest.raises(ValueError, match="E230"):
        nlp.get_pipe("crener").max_grid_length = 7
    nlp.get_pipe("crener").max_grid_length = 8  # the shortest that overlaps


def test_long_gold_spans_warn():
    nlp = _nlp(max_grid_length=8)
    examples = [example_of(nlp, "a b c d e f g h i j", [(0, 9, "X")])]
    with pytest.warns(UserWarning, match="W200"):
        nlp.initialize(lambda: examples)


def test_empty_whitespace_and_one_token_docs(trained):
    nlp, _ = trained
    for text in ["", "   ", "IL-2", "\n"]:
        doc = nlp(text)
        assert all(0 <= span.start < span.end <= len(doc) for span in doc.spans["sc"])
    assert len(nlp("").spans["sc"]) == 0
    losses = nlp.update([example_of(nlp, "", [])], losses={})
    assert losses["crener"] == 0.0


def _predictions(nlp, texts):
    docs = list(nlp.pipe(texts))
    return [(spans_of(doc), doc.spans["sc"].attrs["scores"].tolist()) for doc in docs]


def test_serialization_round_trips(trained, tmp_path):
    nlp, _ = trained
    texts = [text for text, _ in TRAIN_DATA] + ["T cells and NF kappa B"]
    expected = _predictions(nlp, texts)
    nlp.to_disk(tmp_path / "model")
    from_disk = spacy.load(tmp_path / "model")
    assert from_disk.get_pipe("crener").labels == nlp.get_pipe("crener").labels
    assert _predictions(from_disk, texts) == expected
    from_bytes = _nlp()
    from_bytes.from_bytes(nlp.to_bytes())
    assert _predictions(from_bytes, texts) == expected
    pipe_copy = _nlp().get_pipe("crener").from_bytes(nlp.get_pipe("crener").to_bytes())
    assert pipe_copy.max_grid_length == nlp.get_pipe("crener").max_grid_length


def test_evaluate_keys(trained):
    nlp, examples = trained
    scores = nlp.evaluate(examples)
    for key in ("spans_sc_p", "spans_sc_r", "spans_sc_f", "spans_sc_per_type", "ents_p", "ents_r", "ents_f"):
        assert key in scores
    assert scores["spans_sc_f"] == 1.0
    assert set(scores["spans_sc_per_type"]) == {"DNA", "cell_type", "protein"}


def test_pipe_mixed_lengths_match_one_by_one(trained):
    nlp, _ = trained
    texts = [
        "IL-2", "", "NF kappa B binding sites were found in human T cells", "T cells",
        "IL-2 expression requires activated T lymphocytes and IL-2 " * 5,
    ]
    one_by_one = [spans_of(nlp(text)) for text in texts]
    batched = [spans_of(doc) for doc in nlp.pipe(texts, batch_size=3)]
    assert batched == one_by_one


def _repeated_training_doc(vocab, n_repeats: int) -> Doc:
    """TRAIN_DATA's sentences repeated n_repeats times, with sentence starts."""
    words, sent_starts = [], []
    for _ in range(n_repeats):
        for text, _ in TRAIN_DATA:
            sentence = text.split()
            words.extend(sentence)
            sent_starts.extend([True] + [False] * (len(sentence) - 1))
    return Doc(vocab, words=words, sent_starts=sent_starts)


def _by_period(spans, period: int):
    groups = {}
    for start, end, label in spans:
        offset = start // period * period
        groups.setdefault(start // period, set()).add((start - offset, end - offset, label))
    return groups


def test_long_doc_windows_sentence_aligned(trained):
    """A 2,000+ token doc of repeated training sentences, with sentence
    boundaries and windows far shorter than the doc: windows hold one sentence
    each, and every repeat gets exactly the entities that the same sentences
    get in a short doc with the same neighbours (the tok2vec sees 2 tokens
    either side), at the right offsets."""
    nlp, _ = trained
    crener = nlp.get_pipe("crener")
    period = sum(len(text.split()) for text, _ in TRAIN_DATA)
    n_repeats = 2000 // period + 1
    long_doc = _repeated_training_doc(nlp.vocab, n_repeats)
    original = crener.max_grid_length
    try:
        crener.max_grid_length = 11  # the longest sentence
        long_found = _by_period(spans_of(nlp(long_doc)), period)
        short_found = _by_period(spans_of(nlp(_repeated_training_doc(nlp.vocab, 3))), period)
    finally:
        crener.max_grid_length = original
    assert len(long_doc) >= 2000
    assert long_found[0] == short_found[0] and long_found[n_repeats - 1] == short_found[2]
    assert all(long_found[k] == short_found[1] for k in range(1, n_repeats - 1))
    # Against gold: with neighbours the toy model (overfit on the two sentences
    # alone) finds no wrong span and loses at most two of the nine.
    shift = len(TRAIN_DATA[0][0].split())
    gold = set(TRAIN_DATA[0][1]) | {(s + shift, e + shift, label) for s, e, label in TRAIN_DATA[1][1]}
    assert short_found[1] <= gold and len(short_found[1]) >= len(gold) - 2


def test_long_doc_without_sentences_uses_overlapping_windows(trained):
    """A doc of 2,080 tokens without sentence boundaries, in windows of 60
    (a stride of 46, so window edges fall inside the repeated sentence): the
    windows overlap, and every repetition's "activated T lymphocytes" and
    last "IL-2" is found, those cut by a window's edge included (windows
    that did not overlap lose 17 of the 260 cell_type spans)."""
    nlp, _ = trained
    crener = nlp.get_pipe("crener")
    text = " ".join(["IL-2 expression requires activated T lymphocytes and IL-2"] * 260)
    original = crener.max_grid_length
    try:
        crener.max_grid_length = 60
        doc = nlp.make_doc(text)
        _, windows = crener.predict([doc])
        doc = nlp(text)
    finally:
        crener.max_grid_length = original
    assert len(doc) == 2080 and len(windows) > 40
    assert (windows[:, END] - windows[:, START] <= 60).all()
    assert (windows[1:, START] < windows[:-1, END]).all()  # neighbours overlap
    spans = spans_of(doc)
    assert len(set(spans)) == len(spans)  # every span from one window only
    assert all(0 <= s < e <= len(doc) for s, e, _ in spans)
    repeated = {(8 * k + 3, 8 * k + 6, "cell_type") for k in range(260)}
    repeated |= {(8 * k + 7, 8 * k + 8, "protein") for k in range(260)}
    assert repeated - set(spans) == set()


def test_update_on_windowed_training_docs():
    nlp = _nlp(max_grid_length=8)  # the 11-token sentence gets two windows
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    fix_random_seed(0)
    optimizer = nlp.initialize(lambda: examples)
    assert len(plan_doc_windows([example.predicted for example in examples], 8)) == 3
    losses = nlp.update(examples, sgd=optimizer, losses={})
    assert numpy.isfinite(losses["crener"]) and losses["crener"] > 0


def test_listener_tok2vec():
    """crener over a shared tok2vec: its gradient reaches the upstream
    tok2vec through the listener (the tok2vec has no loss of its own), and
    the pair learns the two sentences."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": SMALL_TOK2VEC})
    listener = {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "*"}
    nlp.add_pipe("crener", config={"model": {**SMALL_MODEL, "tok2vec": listener}})
    assert nlp.get_pipe("crener").model.get_ref("tok2vec").name == "tok2vec-listener"
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    upstream = nlp.get_pipe("tok2vec").model

    def upstream_params():
        return [
            upstream.ops.to_numpy(node.get_param(name)).copy()
            for node in upstream.walk()
            for name in node.param_names
            if node.has_param(name)
        ]

    fix_random_seed(0)
    with one_torch_thread():  # as tests.helpers.crener.train
        nlp.initialize(lambda: examples)
        before = upstream_params()
        optimizer = Adam(0.003)
        for _ in range(50):
            nlp.update(examples, sgd=optimizer, losses={})
    changed = [not numpy.array_equal(b, a) for b, a in zip(before, upstream_params())]
    assert before and all(changed)
    for text, spans in TRAIN_DATA:
        assert spans_of(nlp(text)) == sorted(spans)


def test_get_loss_checks_grid_count(trained):
    nlp, examples = trained
    crener = nlp.get_pipe("crener")
    crener.max_span_width = None  # whole grids, as training scores them
    grids, windows = crener.predict([example.predicted for example in examples])
    with pytest.raises(ValueError, match="E205"):
        crener.get_loss(examples, (grids[:1], windows))
    loss, d_grids = crener.get_loss(examples, (grids, windows))
    assert loss >= 0 and [d.shape for d in d_grids] == [g.shape for g in grids]
    assert all(d.dtype == g.dtype for d, g in zip(d_grids, grids))


def _head_dropout_rates(nlp):
    scorer = wrapped_module(nlp.get_pipe("crener").model.get_ref("head").layers[0])
    rates = {m.p for m in scorer.modules() if isinstance(m, torch.nn.Dropout)}
    return rates | {m.dropout for m in scorer.modules() if isinstance(m, torch.nn.MultiheadAttention)}


@pytest.mark.parametrize("model_dropout,drop,expected", [(0.5, 0.1, 0.5), (0.0, 0.3, 0.0), (None, 0.3, 0.3)])
def test_model_dropout_is_the_head_rate_in_training(model_dropout, drop, expected):
    """[components.crener.model] dropout is the head's rate under nlp.update
    (spacy train's loop), whatever [training] dropout is; null follows it."""
    nlp = _nlp(model={**SMALL_MODEL, "enhancement": "paper", "dropout": model_dropout})
    examples = [example_of(nlp, text, spans) for text, spans in TRAIN_DATA]
    fix_random_seed(0)
    nlp.initialize(lambda: examples)
    nlp.update(examples, drop=drop, losses={})
    assert _head_dropout_rates(nlp) == {expected}


def test_max_candidates_keeps_the_best_spans_and_warns_once_per_call(trained):
    """The threshold 0 closes a span at every cell, as an untrained
    model does: each doc yields at most max_candidates spans, its highest
    scoring, and W230 names the doc length, the count and the setting."""
    nlp, _ = trained
    crener = nlp.get_pipe("crener")
    texts = [text for text, _ in TRAIN_DATA]
    saved = dict(crener.cfg)
    try:
        crener.cfg["threshold"] = 0.0
        crener.cfg["max_candidates"] = None
        unbounded = list(nlp.pipe(texts))
        counts = [len(doc.spans["sc"]) for doc in unbounded]
        assert min(counts) > 20
        crener.cfg["max_candidates"] = 20
        with pytest.warns(UserWarning, match="W230") as record:
            capped = list(nlp.pipe(texts))
    finally:
        crener.cfg.clear()
        crener.cfg.update(saved)
    w230 = [str(w.message) for w in record if "W230" in str(w.message)]
    assert len(w230) == 1  # one call of set_annotations for the two docs
    assert f"found {counts[0]} spans in a doc of {len(unbounded[0])} tokens" in w230[0]
    assert "max_candidates = 20" in w230[0] and "1 more doc" in w230[0]
    assert f"set max_candidates to {counts[0]} or more" in w230[0] and "trained" not in w230[0]
    for full, doc in zip(unbounded, capped):
        scores = full.spans["sc"].attrs["scores"]
        assert len(doc.spans["sc"]) == 20
        assert numpy.sort(doc.spans["sc"].attrs["scores"]).tolist() == numpy.sort(scores)[-20:].tolist()
        best = {(s.start, s.end, s.label_) for s in doc.spans["sc"]}
        assert best <= set(spans_of(full))


def test_max_candidates_default_leaves_a_trained_model_alone(trained):
    nlp, _ = trained
    assert nlp.get_pipe("crener").cfg["max_candidates"] == 20000
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        docs = list(nlp.pipe([text for text, _ in TRAIN_DATA]))
    assert all(len(doc.spans["sc"]) for doc in docs)
