from .spans import SpanArrays, split_by_doc

__all__ = ["SpanArrays", "split_by_doc"]
