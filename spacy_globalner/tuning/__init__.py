"""Tune a training config's settings on dev with Optuna (`spacy globalner tune`).

space.py reads a search-space file (the config settings to search, by their
dotted paths); trial.py trains one pipeline in this process and reports its dev
score as it goes, so that weak trials are pruned; study.py runs the study in a
database that can be resumed and shared, and writes the best config and a JSON
of every trial.
"""
from .space import Setting, read_space, suggest
from .study import run_study
from .trial import train_trial

__all__ = ["Setting", "read_space", "run_study", "suggest", "train_trial"]
