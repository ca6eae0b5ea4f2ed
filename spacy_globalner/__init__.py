"""spacy-globalner: named entity recognition components for spaCy v3.

Nested (and flat) NER: `global_pointer` (GlobalPointer) and `crener` (CRENER).
Flat NER: `lcrf_ner` (a linear-chain CRF with learned transition penalties) and
`cse_ner` (CSE tagging). Each name is a factory: nlp.add_pipe("global_pointer").
"""
from .about import __version__
from .forking import register_fork_handler
from .pipeline.crener import CRENER
from .pipeline.cse_ner import CSENER
from .pipeline.ents_filters import highest_score_filter, longest_first_filter
from .pipeline.global_pointer import GlobalPointer
from .pipeline.lcrf_ner import LCRFNER
from .pipeline.schedule_budget import make_training_budget  # noqa: F401 (registers the callbacks)
from .pipeline.scoring import score_spans_and_ents

# On import, not on first use: the hang it prevents is in the child of a fork
# that spaCy makes (nlp.pipe(n_process=N)) and that no code of this package
# sees coming, so the handler must be in place before any fork, and every
# process that holds one of these components has imported the package by
# then. os.register_at_fork has no way to unregister, hence once per process.
register_fork_handler()

__all__ = [
    "__version__",
    "CRENER",
    "CSENER",
    "GlobalPointer",
    "LCRFNER",
    "highest_score_filter",
    "longest_first_filter",
    "score_spans_and_ents",
]
