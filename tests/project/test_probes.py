"""The probes of project/probes that pages quote, on the bundled GENIA slice
and small models: what each one's figures rest on."""
import json
import sys

import pytest

from tests.helpers import REPO_ROOT

PROBES = REPO_ROOT / "project" / "probes"
sys.path.insert(0, str(PROBES))


def test_encoder_pull_shows_a_mean_loss_against_spacys_summed_ones(tmp_path):
    """`encoder_pull.py` measures each head's gradient at a tok2vec shared with
    spaCy's ner and spancat. Doubling a batch with copies of its docs keeps
    every doc's gradient under a summed loss (the norm grows by sqrt 2) and
    halves it under a mean (the norm shrinks by sqrt 2): global_pointer's loss
    is a mean over the batch, spancat's a sum, as docs/global_pointer.md's "Loss scale" says."""
    import encoder_pull
    from spacy.tokens import Doc, DocBin
    from spacy.training import Example
    from thinc.api import Adam

    from spacy_globalner.corpora import convert
    from tests.helpers.trained_pipelines import GENIA_TRAIN

    convert(GENIA_TRAIN, tmp_path / "train.spacy", format="genia", limit=24)
    nlp, head = encoder_pull.shared_pipeline(REPO_ROOT / "configs" / "global_pointer.cfg")
    assert head == "global_pointer" and nlp.pipe_names == ["tok2vec", "global_pointer", "ner", "spancat"]
    gold = list(DocBin().from_disk(tmp_path / "train.spacy").get_docs(nlp.vocab))

    def examples(docs):
        return [Example(Doc(nlp.vocab, words=[t.text for t in doc]), doc) for doc in docs]

    nlp.initialize(lambda: examples(gold))
    optimizer = Adam(0.001)  # as the script does: the config's schedule starts at 0
    for _ in range(3):
        nlp.update(examples(gold[:12]), sgd=optimizer)
    single = encoder_pull.encoder_pulls(nlp, examples(gold[12:20]))
    doubled = encoder_pull.encoder_pulls(nlp, examples(gold[12:20] * 2))
    assert all(value > 0 for value in single.values())
    assert doubled["global_pointer"] == pytest.approx(single["global_pointer"] / 2**0.5, rel=1e-3)
    assert doubled["spancat"] == pytest.approx(single["spancat"] * 2**0.5, rel=1e-3)


def test_threshold_sweep_scores_each_threshold_on_both_halves(tmp_path):
    """The sweep behind the default threshold: the calibrated thresholds are set
    aside, a threshold no cell reaches finds nothing, and a lower one finds
    at least as many spans as a higher one (recall cannot fall)."""
    import warnings

    import spacy
    import threshold_sweep
    from spacy.tokens import DocBin

    from tests.helpers.trained_pipelines import GENIA_DEV, calibrated_dir, genia_docs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = genia_docs(spacy.blank("en"), limit=40, path=GENIA_DEV)
    DocBin(docs=docs).to_disk(tmp_path / "dev.spacy")
    output = tmp_path / "sweep.json"
    model = str(calibrated_dir("global_pointer"))
    # global_pointer's thresholds are probabilities: no span of this small model scores 1.0
    threshold_sweep.main(model, str(tmp_path / "dev.spacy"), str(output), [0.12, 0.5, 1.0])
    rows = json.loads(output.read_text(encoding="utf8"))
    assert set(rows) == {f"{t}/{part}" for t in (0.12, 0.5, 1.0) for part in ("devA", "devB", "dev")}
    assert rows["1.0/dev"]["spans_sc_r"] == 0.0 and rows["1.0/devA"]["ents_f"] == 0.0
    assert rows["0.12/dev"]["spans_sc_r"] >= rows["0.5/dev"]["spans_sc_r"] > 0.0


def test_probes_stand_alone_and_reach_torch_modules_through_the_public_accessor():
    """A probe runs from a checkout without the tests (nothing imports them)
    and reaches a wrapped torch module through `wrapped_module`, never
    through Thinc's private shim attributes."""
    for probe in sorted(PROBES.glob("*.py")):
        source = probe.read_text(encoding="utf8")
        assert "from tests" not in source and "import tests" not in source, probe.name
        assert "._model" not in source, probe.name


def test_encoder_speed_times_both_encoders_on_the_same_weights():
    """encoder_speed.py gives both encoders the same weights and checks it on a
    doc alone (it exits otherwise); the package's encoder gives a doc the same
    vectors alone and in a batch."""
    import subprocess

    done = subprocess.run(
        [sys.executable, str(PROBES / "encoder_speed.py"),
         str(REPO_ROOT / "project" / "assets" / "genia" / "dev.jsonl"), "--passes", "1"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ours = [line for line in done.stdout.splitlines() if line.startswith("spacy-globalner.BiLSTMEncoder.v1")]
    assert len(ours) == 2 and ours[1].endswith("0.00e+00")
