"""Which rows the fair tables set side by side: each package head as shipped
(and on a transformer at 1x) beside spaCy's head on its encoder, budget and
data, on one split, and spaCy's head at a raised rate where dev chose one."""
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from compare import LEARN_RATE_SCALE, setting_block
from run_groups import SPACY_HEADS, Group, Key, corpus_order, dev_score, is_transformer
from thinc.api import Config

from common import PACKAGE_CONFIGS


def as_shipped(group: Group, configs_dir: Path = PACKAGE_CONFIGS) -> bool:
    """Whether the group ran its config as the package ships it: with no setting
    changed, or only with ones the config now ships (a sweep's choice)."""
    settings = group.runs[0].get("settings") or {}
    if not settings:
        return True
    config = shipped_config(group.key.encoder, configs_dir)
    if config is None:
        return False
    holders = {key: setting_block(config, key) for key in settings}
    return all(holders[key] is not None and holders[key][key] == value for key, value in settings.items())


def shipped_config(name: str, configs_dir: Path = PACKAGE_CONFIGS) -> Optional[Config]:
    path = configs_dir / f"{name}.cfg"
    return Config().from_disk(path, interpolate=False) if path.exists() else None


HEAD_RATE = "head_lr_scale"


def head_rate(group: Group, configs_dir: Path = PACKAGE_CONFIGS) -> float:
    """How many times the encoder's learning rate the head learns at: its
    run's setting, else its config's; spaCy's heads learn at the encoder's."""
    settings = group.runs[0].get("settings") or {}
    if HEAD_RATE in settings:
        return float(settings[HEAD_RATE])
    config = None if group.is_spacy else shipped_config(group.key.encoder, configs_dir)
    block = setting_block(config, HEAD_RATE) if config is not None else None
    return float(block[HEAD_RATE]) if block is not None else 1.0


def at_encoder_rate(group: Group) -> bool:
    """A run of the package config with its head learning at the encoder's
    rate, its one change: the transformer table sets it beside the shipped rate."""
    return (group.runs[0].get("settings") or {}) == {HEAD_RATE: 1}


def rerun_on_test(head: Group, groups: Dict[Key, Group]) -> bool:
    """Whether a head scored on the reporting half of dev has been rerun on
    test, with spaCy's head beside it there: the same head on the same corpus
    and encoder at the same head rate, at another budget or data cut (a rerun
    on all of GENIA's train split). Until its pair is whole, the old row stays."""
    if head.on_test:
        return False

    def paired_on_test(other: Group) -> bool:
        return any((baseline := groups.get(other.key._replace(head=spacy_head))) is not None and baseline.on_test
                   for spacy_head in SPACY_HEADS)

    return any(other.on_test and other.base == head.base and head_rate(other) == head_rate(head)
               and other.key[:2] == head.key[:2] and paired_on_test(other) for other in groups.values())


def raised_rates(groups: Dict[Key, Group], key: Key, spacy_head: str) -> List[Group]:
    """spaCy's head on KEY's encoder and budget with the whole optimizer's rate
    raised (`learn_rate_scale`, as a spaCy user can), one group per scale."""
    prefix = f"{spacy_head},{LEARN_RATE_SCALE}="
    return [group for other, group in sorted(groups.items())
            if other[:2] == key[:2] and other.budget == key.budget and other.head.startswith(prefix)
            and other.head.count(",") == 1]


def rate_chosen_on_dev(groups: Dict[Key, Group], key: Key, spacy_head: str) -> Optional[Group]:
    """spaCy's head at the raised rate whose runs ended best on dev, where one
    ended better there than the config's own rate; else None."""
    raised = [group for group in raised_rates(groups, key, spacy_head) if dev_score(group) is not None]
    if not raised:
        return None
    best = max(raised, key=dev_score)
    own = groups.get(key._replace(head=spacy_head))
    own_dev = dev_score(own) if own is not None else None
    return best if own_dev is None or dev_score(best) > own_dev else None


def pairs(groups: Dict[Key, Group], transformer: bool, same_split: bool = True) -> List[Tuple[Group, Group, str]]:
    """(package head, spaCy head on its encoder and budget, view) for every
    pair the runs hold, both sides scored on the same split (or, with
    SAME_SPLIT false, the pairs left out for scoring on two splits): the
    heads as shipped, and on a transformer the same heads at another head
    learning rate, and the shipped head beside spaCy's head at the whole
    optimizer's rate chosen on dev, where a raised rate won there; runs of
    other settings, and rows on the dev half a rerun on test replaces, are in
    BENCHMARKS.md only."""
    found = []
    for corpus in corpus_order({key.corpus for key in groups}):
        keys = sorted((key for key in groups if key.corpus == corpus and is_transformer(key.encoder) == transformer),
                      key=lambda key: (key.encoder, key.budget, -head_rate(groups[key]), key.head))
        for key in keys:
            head = groups[key]
            if head.base != key.encoder:
                continue
            shipped = as_shipped(head)
            if not (shipped or (transformer and at_encoder_rate(head))) or rerun_on_test(head, groups):
                continue
            for spacy_head, view in SPACY_HEADS.items():
                raised = rate_chosen_on_dev(groups, key, spacy_head) if shipped else None
                for baseline in (groups.get(key._replace(head=spacy_head)), raised):
                    if baseline is None or (baseline.on_test == head.on_test) != same_split:
                        continue
                    if view == "ents" or head.nested:
                        found.append((head, baseline, view))
    return found




TUNED_SETTING = "tuned"


def tuned_study(group: Group) -> Optional[Dict]:
    """The study a group's runs trained the chosen settings of (compare's
    `tuned=NAME`), as its first run records it; None for an untuned group."""
    return group.runs[0].get("tuned") if TUNED_SETTING in (group.runs[0].get("settings") or {}) else None


def tuned_pairs(groups: Dict[Key, Group]) -> List[Tuple[Group, Group, str]]:
    """(package head, spaCy head, view) where both were tuned on one corpus and
    encoder by studies of as many finished trials, then run at their own
    chosen settings (and so budgets), both scored on the same split."""
    found = []
    heads = [g for g in groups.values() if not g.is_spacy and tuned_study(g) and g.base == g.key.encoder]
    order = corpus_order({g.key.corpus for g in heads})
    for head in sorted(heads, key=lambda g: (order.index(g.key.corpus), g.key)):
        for spacy_head, view in SPACY_HEADS.items():
            for key, baseline in sorted(groups.items()):
                study = tuned_study(baseline)
                if (key[:2] != head.key[:2] or baseline.base != spacy_head or study is None
                        or baseline.on_test != head.on_test
                        or study.get("finished_trials") != tuned_study(head).get("finished_trials")):
                    continue
                if view == "ents" or head.nested:
                    found.append((head, baseline, view))
    return found
