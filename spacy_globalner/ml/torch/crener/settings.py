"""The settings of the CRENER grid scorer, passed whole from the architecture.

The defaults are written here once: they are those of
spacy-globalner.CRENER.v1, whose signature reads them from this class, and
`PAPER_SETTINGS` are those of spacy-globalner.CRENERPaper.v1. The modules
receive a CRENERSettings and read no defaults of their own.
"""
from dataclasses import dataclass, replace
from typing import Optional, Tuple


@dataclass(frozen=True)
class CRENERSettings:
    """Widths and switches of the CRENER scorer (see build_crener's docstring
    for what each one means); the defaults build a reduced W2NER."""

    token_width: int = 128
    context_depth: int = 1
    transformer_depth: int = 0
    grid_width: int = 64
    distance_width: int = 16
    region_width: int = 16
    attention_embedding_width: int = 0
    conv_width: int = 48
    dilations: Tuple[int, ...] = (1, 2, 3)
    parallel_dilations: bool = False
    cln_bias_from: str = "subject"
    enhancement: str = "pooled"
    enhancement_rounds: int = 1
    attention_heads: int = 4
    biaffine_width: int = 64
    predictor_width: int = 64
    predictor_input: str = "grid"
    learned_threshold: bool = True
    dropout: Optional[float] = None  # None: the rate the caller sets per update


# What spacy-globalner.CRENERPaper.v1 fixes at the paper's value: parallel
# dilated convolutions (eq. 8), the CLN's bias from the object token (eq. 5)
# and the full relation enhancement (eq. 9-15).
PAPER_SWITCHES = {"parallel_dilations": True, "cln_bias_from": "object", "enhancement": "paper"}
# CRENERPaper.v1's defaults: the switches, and the adapted Transformer, the
# attention embedding and the co-predictor's tag-aware features on.
PAPER_SETTINGS = replace(
    CRENERSettings(**PAPER_SWITCHES),
    transformer_depth=1,
    attention_embedding_width=4,
    predictor_input="grid+tags",
)
