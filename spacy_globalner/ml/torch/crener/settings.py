"""The settings of the CRENER grid scorer, passed whole from the architecture.

The defaults are written once, in the signature of the registered
architecture (spacy_globalner.ml.models.crener.build_crener); this class has
none, so no module can drift from them.
"""
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class CRENERSettings:
    """Widths and switches of the CRENER scorer (see build_crener's docstring
    for what each one means)."""

    token_width: int
    context_depth: int
    transformer_depth: int
    grid_width: int
    distance_width: int
    region_width: int
    attention_embedding_width: int
    conv_width: int
    dilations: Tuple[int, ...]
    parallel_dilations: bool
    cln_bias_from: str
    enhancement: str
    enhancement_rounds: int
    attention_heads: int
    biaffine_width: int
    predictor_width: int
    predictor_input: str
    learned_threshold: bool
    dropout: Optional[float]  # None: the rate the caller sets per update
