from .spans import EntityArrays, SpanArrays, split_by_doc

__all__ = ["EntityArrays", "SpanArrays", "split_by_doc"]
