"""`spacy globalner calibrate` (and `python -m spacy_globalner calibrate`):
per-label thresholds chosen on dev data raise its F, are saved in the
component's cfg and are what spacy.load predicts with."""
import subprocess
import sys
import warnings

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.training import Corpus

from spacy_globalner.cli.calibrate import calibrate
from tests.helpers.spacy_commands import invoke_spacy
from tests.helpers.trained_pipelines import GENIA_DEV, genia_docs, trained_dir

CALIBRATED = ["global_pointer", "crener"]


def write_dev(path, limit=60, drop_label=None, keep_spans=True):
    nlp = spacy.blank("en")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = genia_docs(nlp, limit=limit, path=GENIA_DEV)
    for doc in docs:
        if drop_label is not None or not keep_spans:
            spans = [s for s in doc.spans["sc"] if keep_spans and s.label_ != drop_label]
            doc.spans["sc"] = spans
            doc.ents = [e for e in doc.ents if keep_spans and e.label_ != drop_label]
    DocBin(docs=docs, store_user_data=True).to_disk(path)
    return path


def span_f(nlp, dev_path):
    examples = list(Corpus(dev_path)(nlp))
    return nlp.evaluate(examples)


@pytest.mark.parametrize("name", CALIBRATED)
def test_calibrated_thresholds_raise_dev_f_and_survive_loading(tmp_path, name):
    dev = write_dev(tmp_path / "dev.spacy")
    report, component = calibrate(trained_dir(name), dev, output_path=tmp_path / "out")
    assert component == name
    assert report.after["spans_sc_f"] > report.before["spans_sc_f"]
    chosen = {r.label: r.threshold for r in report.labels if r.threshold is not None}
    assert chosen
    # The sweep's own expectation is what the scorer measures after calibration.
    for result in report.labels:
        if result.threshold is not None:
            assert result.f == pytest.approx(report.after["spans_sc_per_type"][result.label]["f"])
    loaded = spacy.load(tmp_path / "out")
    assert loaded.get_pipe(name).cfg["thresholds"] == pytest.approx(chosen, abs=1e-12)
    # probabilities, on the scale of the scores users read: each label's spans reach its threshold
    assert all(0.0 < threshold < 1.0 for threshold in chosen.values()), chosen
    thresholds = dict(zip(loaded.get_pipe(name).labels, loaded.get_pipe(name).label_thresholds()))
    for example in Corpus(dev)(loaded):
        doc = loaded(example.reference.text)
        group = doc.spans["sc"]
        assert all(score >= thresholds[span.label_] for span, score in zip(group, group.attrs["scores"]))
    assert loaded.get_pipe(name).cfg["threshold"] == spacy.load(trained_dir(name)).get_pipe(name).cfg["threshold"]
    assert span_f(loaded, dev)["spans_sc_f"] == pytest.approx(report.after["spans_sc_f"])
    assert span_f(spacy.load(trained_dir(name)), dev)["spans_sc_f"] == pytest.approx(report.before["spans_sc_f"])


def test_a_label_absent_from_dev_keeps_the_fallback(tmp_path):
    dev = write_dev(tmp_path / "dev.spacy", drop_label="protein")
    report, _ = calibrate(trained_dir("global_pointer"), dev, output_path=tmp_path / "out")
    protein = next(r for r in report.labels if r.label == "protein")
    assert protein.n_gold == 0 and protein.threshold is None
    pipe = spacy.load(tmp_path / "out").get_pipe("global_pointer")
    assert "protein" not in pipe.cfg["thresholds"] and len(pipe.cfg["thresholds"]) >= 1
    assert pipe.label_thresholds()[pipe.labels.index("protein")] == pipe.cfg["threshold"]


def test_target_precision_is_kept_per_label(tmp_path):
    dev = write_dev(tmp_path / "dev.spacy")
    report, _ = calibrate(trained_dir("global_pointer"), dev, target_precision=0.6)
    per_type = report.after["spans_sc_per_type"]
    calibrated = [r for r in report.labels if r.threshold is not None]
    assert calibrated
    for result in calibrated:
        assert per_type[result.label]["p"] >= 0.6


def test_bad_input_gets_catalogue_errors(tmp_path):
    dev = write_dev(tmp_path / "dev.spacy")
    blank = tmp_path / "blank"
    spacy.blank("en").to_disk(blank)
    with pytest.raises(ValueError, match="E019"):
        calibrate(blank, dev)
    with pytest.raises(ValueError, match="E019"):
        calibrate(trained_dir("global_pointer"), dev, component="tok2vec")
    no_gold = write_dev(tmp_path / "no_gold.spacy", keep_spans=False)
    with pytest.raises(ValueError, match="E020"):
        calibrate(trained_dir("global_pointer"), no_gold)
    for value in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="E021"):
            calibrate(trained_dir("global_pointer"), dev, target_precision=value)
    with pytest.raises(ValueError, match="E022"):
        calibrate(trained_dir("global_pointer"), tmp_path / "missing.spacy")


def test_cli_prints_the_table_and_saves(tmp_path):
    dev = write_dev(tmp_path / "dev.spacy", limit=30)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "spacy", "globalner", "calibrate", str(trained_dir("global_pointer")),
         str(dev), "--output", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    printed = " ".join(done.stdout.split())
    assert "F before" in printed and "F after" in printed and "(all)" in printed
    assert spacy.load(out).get_pipe("global_pointer").cfg["thresholds"]


def test_module_alias_gives_catalogue_errors(tmp_path):
    dev = write_dev(tmp_path / "dev.spacy", limit=5)
    done = subprocess.run(
        [sys.executable, "-m", "spacy_globalner", "calibrate", str(trained_dir("global_pointer")),
         str(dev), "--output", str(tmp_path / "out"), "--target-precision", "1.5"],
        capture_output=True, text=True, timeout=300,
    )
    printed = " ".join(done.stdout.split())
    assert done.returncode == 1 and "E021" in printed, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.parametrize("component,as_user", [([], True), (["--component", "cse_ner"], False)])
def test_cse_ner_is_refused_with_the_tool_that_tunes_it(tmp_path, component, as_user):
    """cse_ner's threshold makes tokens markers, one value for all labels:
    calibrate, which chooses a span score per label, names the component
    and the command that tunes it, and saves nothing. Without --component as
    the user types the command, a process of its own; with it, spaCy's CLI
    in the test process (which raises what would be a traceback)."""
    dev = write_dev(tmp_path / "dev.spacy", limit=5)
    model = trained_dir("cse_ner")
    args = ["globalner", "calibrate", str(model), str(dev), "--output", str(tmp_path / "out"), *component]
    if as_user:
        done = subprocess.run([sys.executable, "-m", "spacy", *args], capture_output=True, text=True, timeout=300)
        assert "Traceback" not in done.stderr, done.stderr
        code, printed = done.returncode, " ".join(done.stdout.split())
    else:
        code, printed = invoke_spacy(args)
        printed = " ".join(printed.split())
    assert code == 1 and "E024" in printed and "'cse_ner' (cse_ner)" in printed, printed
    assert f"spacy find-threshold {model} DEV.spacy cse_ner threshold ents_f" in printed
    assert not (tmp_path / "out").exists()
