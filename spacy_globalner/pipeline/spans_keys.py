"""Which doc.spans key a pipeline component writes.

Two components on one key replace each other's spans, whichever runs later
winning: spaCy's own span writers (spancat, spancat_singlelabel, span_finder,
span_ruler) as much as this package's. spaCy's keep the key in cfg["spans_key"]
(spancat, span_finder) or in a `spans_key` attribute (span_ruler, where None
means it writes doc.ents only); this package's components in cfg too.
"""
from typing import Any, Optional


def written_spans_key(pipe: Any) -> Optional[str]:
    """The doc.spans key a component writes, or None where it writes none.

    pipe (Any): A pipeline component.
    RETURNS (Optional[str]): The key.
    """
    cfg = getattr(pipe, "cfg", None)
    if isinstance(cfg, dict) and isinstance(cfg.get("spans_key"), str):
        return cfg["spans_key"]
    key = getattr(pipe, "spans_key", None)
    return key if isinstance(key, str) else None
