"""Tune one head on one corpus's dev split with `spacy globalner tune`, as compare would train it.

python scripts/tune_run.py CORPUS CONFIG CORPUS_DIR --space SPACE [--trials 8]
    [--metric ents_f] [--tuning-dir benchmarks/tuning] [--training-dir training/tune]
    [--threads 1] [--transformer auto]

CONFIG is what compare.py takes (global_pointer, ner@global_pointer, ...): the
config is composed exactly as compare composes it (spaCy's head on the package
config's encoder, optimizer, schedule and batcher; the corpus's language),
without compare's timing logger, and tuned over SPACE (configs/spaces/) on
dev.spacy with patience off. The study, trials.json, best.json and best.cfg
go to TUNING_DIR/CORPUS/NAME (NAME: CONFIG's head, e.g. `ner`), where
compare.py's `tuned=NAME` setting reads the chosen settings; rerunning the
command resumes the study (its database is TUNING_DIR/CORPUS/NAME/study.db).
Both sides of a pair get the same trials, shared space and rule.
"""
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import typer
from compare import compose, parse_config_name, parse_variant

from common import Arg, Opt, read_config, read_json, thread_env


def study_name(config: str) -> str:
    """'ner@global_pointer' -> 'ner'; 'global_pointer' -> 'global_pointer'."""
    base, _ = parse_variant(config)
    package_config, spacy_head = parse_config_name(base)
    return (spacy_head or package_config) + config[len(base):]


def main(
    # fmt: off
    corpus: str = Arg(..., help="The corpus' name (a folder of the data dir)"),
    config: str = Arg(..., help="A package config, CONFIG,KEY=VALUE, ner, spancat or HEAD@CONFIG, as compare.py"),
    corpus_dir: Path = Arg(..., help="train.spacy, dev.spacy and stats.json from corpus.py"),
    space: Path = Opt(..., "--space", help="Search-space file, e.g. ../configs/spaces/ner.json"),
    trials: int = Opt(8, "--trials", help="Finished trials the study holds"),
    metric: str = Opt("", "--metric", help="Dev score to maximise (empty: the config's weighted score)"),
    configs_dir: Path = Opt(Path("../configs"), "--configs-dir", help="The package's configs"),
    tuning_dir: Path = Opt(Path("benchmarks/tuning"), "--tuning-dir", help="Where each study's results go"),
    threads: int = Opt(1, "--threads", help="torch threads of the trials"),
    transformer: str = Opt("auto", "--transformer", help="paths.transformer of _trf configs"),
    # fmt: on
):
    base, settings = parse_variant(config)
    package_config, spacy_head = parse_config_name(base)
    config_path = configs_dir / f"{package_config}.cfg"
    stats = read_json(corpus_dir / "stats.json")
    output = tuning_dir / corpus / study_name(config)
    output.mkdir(parents=True, exist_ok=True)
    composed = compose(config_path, spacy_head, stats, output / "unused_stats.json", transformer, settings)
    own = read_config(config_path)["training"]
    composed["training"]["logger"] = dict(own["logger"])
    composed["training"]["before_update"] = own.get("before_update")
    composed_path = output / "config.cfg"
    composed_path.write_text(composed.to_str(interpolate=False))
    command = [
        "python", "-m", "spacy", "globalner", "tune", str(composed_path), str(space), "--output", str(output),
        "--trials", str(trials), "--storage", f"sqlite:///{output / 'study.db'}", "--threads", str(threads),
        "--study-name", f"{corpus}-{study_name(config)}",
        *(["--metric", metric] if metric else []),
        "--paths.train", str(corpus_dir / "train.spacy"), "--paths.dev", str(corpus_dir / "dev.spacy"),
        "--training.patience", "0",
    ]
    (output / "command.json").write_text(json.dumps({
        "tune_command": shlex.join(command),
        "command": f"spacy project run tune project/ --vars.corpus {corpus} --vars.config {config} "
                   f"--vars.tune_space {os.path.relpath(space, configs_dir)} --vars.tune_trials {trials}"
                   + (f" --vars.tune_metric {metric}" if metric else ""),
        "space": json.loads(space.read_text()),
    }, indent=2) + "\n")
    done = subprocess.run([sys.executable, *command[1:]], env=thread_env(threads, offline=True))
    raise typer.Exit(done.returncode)


if __name__ == "__main__":
    typer.run(main)
