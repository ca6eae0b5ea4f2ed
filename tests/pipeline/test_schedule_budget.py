"""`--training.max_steps N` alone moves the shipped configs' schedule, warm-up
included; a schedule that ends before (or after) training.max_steps is a
catalogue error, printed as a config error, so no run trains at rate 0."""
import warnings

import pytest
import spacy
from confection import ConfigValidationError
from spacy import util
from spacy.tokens import DocBin
from spacy.training import Example
from spacy.util import registry

from spacy_globalner.corpora import convert
from spacy_globalner.pipeline.schedule_budget import check_schedule_budget, warn_eval_frequency
from tests.helpers.components import FACTORIES
from tests.helpers.spacy_commands import invoke_spacy, one_in_a_subprocess, run_spacy
from tests.helpers.trained_pipelines import GENIA_DEV, GENIA_TRAIN, REPO_ROOT, genia_docs, small_config


def train_global_pointer(corpora, tmp_path, *overrides):
    """`spacy train configs/global_pointer.cfg` on the small corpora, the
    command line a user types, through spaCy's CLI in this process (the train
    command's subprocess case is test_max_steps_alone_moves_the_schedule's).
    RETURNS: the exit status and what it printed."""
    return invoke_spacy(["train", REPO_ROOT / "configs" / "global_pointer.cfg", "--output", tmp_path / "out",
                      "--paths.train", corpora / "train.spacy", "--paths.dev", corpora / "dev.spacy", *overrides],
                     cwd=tmp_path)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    path = tmp_path_factory.mktemp("budget")
    convert(GENIA_TRAIN, path / "train.spacy", format="genia", limit=20)
    convert(GENIA_DEV, path / "dev.spacy", format="genia", limit=10)
    return path


@pytest.mark.parametrize("command", ["train", "debug data", "debug config"])
@pytest.mark.parametrize(("name", "run_command"), one_in_a_subprocess(["global_pointer", "crener"],
                                                                      ["global_pointer", "crener"]))
def test_max_steps_alone_moves_the_schedule(corpora, tmp_path, command, name, run_command):
    """`--training.max_steps 20` alone, on configs whose own budget is 4,000
    updates with a warm-up of 100 or 250: the schedule ends at 20 and warms up
    over 2. `debug data` builds the optimizer from nlp.config itself."""
    args = [*command.split(), REPO_ROOT / "configs" / f"{name}.cfg",
            "--paths.train", corpora / "train.spacy", "--paths.dev", corpora / "dev.spacy",
            "--training.max_steps", "20"]
    if command == "train":
        args[2:2] = ["--output", tmp_path / "out"]
        args += ["--training.eval_frequency", "10"]
    returncode, output = run_command(args, cwd=tmp_path)
    if command == "debug data":  # which also fails the 20-doc corpus for its size
        assert "Pipeline can be initialized with data" in output, output[-4000:]
    else:
        assert returncode == 0, output[-4000:]
    if command == "train":
        saved = util.load_config(tmp_path / "out" / "model-last" / "config.cfg", interpolate=False)
        assert saved["training"]["optimizer"]["learn_rate"]["total_steps"] == 20
        assert "Traceback" not in output


def test_the_schedule_warms_up_over_at_most_a_tenth_of_the_run():
    schedule = registry.resolve({"lr": {"@schedules": "spacy-globalner.warmup_linear.v1", "initial_rate": 1.0,
                                        "warmup_steps": 250, "total_steps": 20}})["lr"]
    rates = [next(schedule) for _ in range(21)]
    assert rates[:3] == [0.0, 0.5, 1.0] and rates[-1] == 0.0
    full = registry.resolve({"lr": {"@schedules": "spacy-globalner.warmup_linear.v1", "initial_rate": 1.0,
                                    "warmup_steps": 250, "total_steps": 4000}})["lr"]
    thinc = registry.resolve({"lr": {"@schedules": "warmup_linear.v1", "initial_rate": 1.0,
                                     "warmup_steps": 250, "total_steps": 4000}})["lr"]
    assert [next(full) for _ in range(4001)] == [next(thinc) for _ in range(4001)]


def test_a_total_steps_of_its_own_is_one_message_without_a_traceback(corpora, tmp_path):
    returncode, output = train_global_pointer(
        corpora, tmp_path, "--training.max_steps", "20", "--training.optimizer.learn_rate.total_steps", "100")
    output = " ".join(output.split())
    assert returncode == 1 and "Traceback" not in output, output[-2000:]
    assert "[E440] training.optimizer.learn_rate.total_steps = 100 but training.max_steps = 20" in output
    assert "training.optimizer.learn_rate.total_steps = ${training.max_steps}" in output


BEFORE_INIT = {"@callbacks": "spacy-globalner.training_budget.v1"}


@pytest.mark.parametrize("name", ["global_pointer", "lcrf_ner", "crener"])
def test_initialize_checks_schedule(name):
    """With the configs' before_init callback, as `spacy train` runs it."""
    nlp = spacy.blank("en")
    nlp.add_pipe(name, config=small_config(name))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=4)]
    nlp.config["initialize"]["before_init"] = BEFORE_INIT
    nlp.config["training"]["max_steps"] = 300
    nlp.config["training"]["optimizer"]["learn_rate"] = {
        "@schedules": "warmup_linear.v1", "warmup_steps": 10, "total_steps": 200, "initial_rate": 0.01}
    with pytest.raises(ValueError, match="E440"):
        nlp.initialize(lambda: examples)
    nlp.config["training"]["optimizer"]["learn_rate"]["total_steps"] = 300
    nlp.initialize(lambda: examples)


@pytest.mark.parametrize("name", FACTORIES)
def test_a_component_leaves_the_training_config_alone(name):
    """A component composed into any pipeline neither checks nor rewrites
    [training]: that is the callbacks' work, named in the config."""
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe(name, config=small_config(name))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=4)]
    nlp.config["training"]["max_steps"] = 300
    nlp.config["training"]["optimizer"]["learn_rate"] = {
        "@schedules": "warmup_linear.v1", "warmup_steps": 10, "total_steps": "${training.max_steps}",
        "initial_rate": 0.01}
    before = nlp.config.to_str()
    pipe.initialize(lambda: examples, nlp=nlp)
    assert pipe.is_initialized and nlp.config.to_str() == before


def test_before_init_lets_nlp_initialize_build_the_schedule_it_names():
    """nlp.initialize() without an optimizer builds it from nlp.config, where
    `${training.max_steps}` is text until the callback interpolates it."""
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in genia_docs(nlp, limit=4)]
    nlp.config["training"]["max_steps"] = 300
    nlp.config["training"]["optimizer"]["learn_rate"] = {
        "@schedules": "spacy-globalner.warmup_linear.v1", "warmup_steps": 10,
        "total_steps": "${training.max_steps}", "initial_rate": 0.01}
    with pytest.raises(ConfigValidationError):
        nlp.initialize(lambda: examples)
    nlp.config["initialize"]["before_init"] = BEFORE_INIT
    optimizer = nlp.initialize(lambda: examples)
    assert nlp.config["training"]["optimizer"]["learn_rate"]["total_steps"] == 300
    assert optimizer.learn_rate == 0.0  # the warm-up's first step


# Every shipped config that writes a schedule's total_steps as a number.
SCHEDULED_CONFIGS = sorted(
    path.stem for path in (REPO_ROOT / "configs").glob("*.cfg") if "total_steps = " in path.read_text()
)


@pytest.mark.parametrize("name", SCHEDULED_CONFIGS)
def test_configs_with_a_schedule_check_it_when_built(name):
    """Every shipped config that writes total_steps runs the check as its
    after_pipeline_creation callback, so a mismatch fails before any command runs."""
    config = util.load_config(REPO_ROOT / "configs" / f"{name}.cfg")
    assert config["nlp"]["after_pipeline_creation"] == {"@callbacks": "spacy-globalner.check_schedule_budget.v1"}
    callback = registry.resolve({"check": config["nlp"]["after_pipeline_creation"]})["check"]
    nlp = spacy.blank("en")
    nlp.config["training"]["max_steps"] = 300
    nlp.config["training"]["optimizer"]["learn_rate"] = {"total_steps": 200}
    with pytest.raises(ValueError, match="E440"):
        callback(nlp)
    nlp.config["training"]["optimizer"]["learn_rate"] = {"total_steps": 300}
    assert callback(nlp) is nlp


def test_check_passes_what_spacy_train_interpolates():
    nlp = spacy.blank("en")
    nlp.config["training"]["max_steps"] = 300
    nlp.config["training"]["optimizer"]["learn_rate"] = {"total_steps": "${training.max_steps}"}
    check_schedule_budget(nlp)
    nlp.config["training"]["max_steps"] = 0  # a budget in epochs, a constant rate: nothing to compare
    nlp.config["training"]["optimizer"]["learn_rate"] = 0.001
    check_schedule_budget(nlp)
    check_schedule_budget(None)


def test_max_steps_0_with_a_schedule_fails():
    """max_steps = 0 trains for max_epochs epochs, a number of updates the
    schedule's total_steps cannot know: refused, with a fix that runs."""
    nlp = spacy.blank("en")
    nlp.config["training"]["max_steps"] = 0
    nlp.config["training"]["optimizer"]["learn_rate"] = {"total_steps": 200}
    with pytest.raises(ValueError, match="E440") as error:
        check_schedule_budget(nlp)
    assert "--training.max_steps 200 (the schedule follows it" in str(error.value)


# Every shipped config whose learning rate follows warmup_linear.
WARMUP_CONFIGS = sorted(
    path.stem for path in (REPO_ROOT / "configs").glob("*.cfg") if "warmup_linear" in path.read_text()
)


def test_warmup_configs_include_every_head():
    assert {"crener", "global_pointer", "lcrf_ner_trf"} <= set(WARMUP_CONFIGS)


@pytest.mark.parametrize(("name", "run_command"), one_in_a_subprocess(WARMUP_CONFIGS, WARMUP_CONFIGS))
def test_spacy_debug_config_rejects_max_steps_0(name, run_command, tmp_path):
    """`--training.max_steps 0 --training.max_epochs 2` on a warmup_linear
    config would train past total_steps at learning rate 0: every such config
    refuses it before anything runs."""
    returncode, output = run_command(
        ["debug", "config", REPO_ROOT / "configs" / f"{name}.cfg", "--paths.train", "train.spacy",
         "--paths.dev", "dev.spacy", "--training.max_steps", "0", "--training.max_epochs", "2"], cwd=tmp_path)
    assert returncode != 0 and "E440" in output, output[-2000:]
    assert "training.max_steps = 0" in output


def test_spacy_train_rejects_max_steps_0(corpora, tmp_path):
    """The issue's command on global_pointer's config: no training starts."""
    returncode, output = train_global_pointer(corpora, tmp_path, "--training.max_steps", "0",
                                              "--training.max_epochs", "1")
    assert returncode != 0 and "E440" in output, output[-2000:]
    assert not (tmp_path / "out" / "model-last").exists()


def test_spacy_debug_config_rejects_a_warmup_as_long_as_the_run(tmp_path):
    """thinc's warmup_linear.v1 keeps its warm-up whatever the run: a short
    run with a 250-update warm-up never reaches the peak rate, refused with
    the override that fixes it, which then passes."""
    config = util.load_config(REPO_ROOT / "configs" / "global_pointer.cfg", interpolate=False)
    config["training"]["optimizer"]["learn_rate"]["@schedules"] = "warmup_linear.v1"
    config.to_disk(tmp_path / "config.cfg")
    args = ["debug", "config", tmp_path / "config.cfg",
            "--paths.train", "train.spacy", "--paths.dev", "dev.spacy", "--training.max_steps", "150"]
    returncode, output = invoke_spacy(args, cwd=tmp_path)
    assert returncode != 0 and "E442" in output, output[-2000:]
    assert "training.optimizer.learn_rate.warmup_steps = 250" in output
    assert "training.max_steps = 150" in output
    fix = "--training.optimizer.learn_rate.warmup_steps 15"
    assert fix in output
    # the override it names passes
    returncode, output = invoke_spacy(args + fix.split(), cwd=tmp_path)
    assert returncode == 0, output[-2000:]


def test_spacy_train_rejects_a_warmup_longer_than_its_epochs(corpora, tmp_path):
    """max_epochs = 1 ends the run after one pass over 20 docs, long before
    max_steps and the 250-update warm-up: initialize counts the batches."""
    returncode, output = train_global_pointer(corpora, tmp_path, "--training.max_epochs", "1")
    assert returncode != 0 and "E442" in output, output[-2000:]
    assert "max_epochs = 1, of at most" in output
    assert not (tmp_path / "out" / "model-last").exists()


def test_initialize_counts_the_updates_of_a_max_epochs_run(tmp_path):
    """The before_init callback counts one epoch's batches of the config's
    training corpus."""
    nlp = spacy.blank("en")
    nlp.add_pipe("global_pointer", config=small_config("global_pointer"))
    docs = genia_docs(nlp, limit=4)
    DocBin(docs=docs).to_disk(tmp_path / "train.spacy")
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
    nlp.config["paths"]["train"] = str(tmp_path / "train.spacy")
    nlp.config["initialize"]["before_init"] = BEFORE_INIT
    training = nlp.config["training"]
    training["max_steps"] = 100  # max_epochs ends the run first: 3 epochs of 2 batches
    training["max_epochs"] = 3
    training["batcher"] = {"@batchers": "spacy.batch_by_sequence.v1", "size": 2, "get_length": None}
    training["optimizer"]["learn_rate"] = {"@schedules": "warmup_linear.v1", "warmup_steps": 6,
                                           "total_steps": 100, "initial_rate": 0.01}
    with pytest.raises(ValueError, match=r"E442.* stops by update 6 \(max_epochs = 3, of at most 2 batches"):
        nlp.initialize(lambda: examples)
    training["optimizer"]["learn_rate"]["warmup_steps"] = 5
    nlp.initialize(lambda: examples)


def test_a_budget_below_eval_frequency_warns_with_both_values_and_the_fix():
    nlp = spacy.blank("en")
    nlp.config["training"]["max_steps"] = 50
    nlp.config["training"]["eval_frequency"] = 200
    with pytest.warns(UserWarning, match=r"\[W440\] training.max_steps = 50 is below training.eval_frequency = 200"
                      r".* --training.eval_frequency 12 .*or 50"):
        warn_eval_frequency(nlp)
    for max_steps in (200, 300, 0):  # evaluated within the run, or a max_epochs run
        nlp.config["training"]["max_steps"] = max_steps
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warn_eval_frequency(nlp)


def test_a_short_spacy_train_says_that_it_is_never_evaluated(corpora, tmp_path):
    """The issue's run: `--training.max_steps` alone below the config's
    eval_frequency (200) trains and saves, and says that model-best is the
    pipeline after one update and how to evaluate within the budget; the fix
    it names evaluates the trained pipeline, without the warning."""
    args = ["train", REPO_ROOT / "configs" / "global_pointer.cfg", "--paths.train", corpora / "train.spacy",
            "--paths.dev", corpora / "dev.spacy", "--training.max_steps", "8"]
    returncode, output = run_spacy([*args, "--output", tmp_path / "short"], cwd=tmp_path)
    assert returncode == 0 and (tmp_path / "short" / "model-best").exists(), output[-3000:]
    flat = " ".join(output.split())
    assert "[W440] training.max_steps = 8 is below training.eval_frequency = 200" in flat, output[-3000:]
    assert "--training.eval_frequency 2 " in flat
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        returncode, output = invoke_spacy([*args, "--training.eval_frequency", "2", "--output", tmp_path / "fixed"],
                                          cwd=tmp_path)
    assert returncode == 0, output[-3000:]
    assert not [w for w in caught if "W440" in str(w.message)]
    rows = [line.split() for line in output.splitlines()]
    steps = [row[1] for row in rows if len(row) > 2 and row[0].isdigit() and row[1].isdigit()]
    assert steps == ["0", "2", "4", "6", "8"], output[-3000:]
