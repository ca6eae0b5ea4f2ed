"""spacy-globalner: GlobalPointer, CRENER and learned-penalty CRF NER for spaCy v3."""
from .about import __version__
from .forking import register_fork_handler
from .pipeline.crener import CRENER
from .pipeline.cse_ner import CSENER
from .pipeline.ents_filters import highest_score_filter, longest_first_filter
from .pipeline.global_pointer import GlobalPointer
from .pipeline.lcrf_ner import LCRFNER, LinearCRFNER
from .pipeline.scoring import score_spans_and_ents

register_fork_handler()

__all__ = [
    "__version__",
    "CRENER",
    "CSENER",
    "GlobalPointer",
    "LCRFNER",
    "LinearCRFNER",
    "highest_score_filter",
    "longest_first_filter",
    "score_spans_and_ents",
]
