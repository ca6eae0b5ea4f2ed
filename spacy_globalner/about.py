__title__ = "spacy-globalner"
__version__ = "0.1.0"
