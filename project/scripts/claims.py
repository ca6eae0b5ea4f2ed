"""BENCHMARKS.md's claims table: the papers' claims, each as two package
heads trained on the same transformer, data and budget, with the verdict
rule of the fair tables."""
from typing import Dict, List, NamedTuple, Tuple

from run_groups import VIEWS, Group, Key, corpus_name, corpus_order, head_label, updates_cell
from verdicts import MIN_GAP, MIN_SEEDS, verdict


class Claim(NamedTuple):
    """A paper's claim as two package heads, each an ENCODER/HEAD run folder."""
    paper: str
    says: str
    head: str
    against: str
    view: str = "ents"


# The papers' claims on the transformer, each pair at one head learning rate
# (20 x the encoder's: lcrf_ner_trf and cse_ner_trf ship it).
CLAIMS = [
    Claim("GlobalPointer (Su et al.)", "a span pointer beats a CRF over the same encoder",
          "global_pointer_trf/global_pointer_trf,head_lr_scale=20", "lcrf_ner_trf/lcrf_ner_trf,transitions=crf"),
    Claim("Zöllner et al.", "learned penalties on forbidden transitions beat a plain CRF",
          "lcrf_ner_trf/lcrf_ner_trf", "lcrf_ner_trf/lcrf_ner_trf,transitions=crf"),
    Claim("Zöllner et al.", "CSE tagging beats IOB tagging under LCRF_NER",
          "cse_ner_trf/cse_ner_trf", "lcrf_ner_trf/lcrf_ner_trf"),
]
# What two runs of different package configs must share to be set side by side.
SHARED = ("transformer", "budget", "data")


def claim_pairs(groups: Dict[Key, Group], claims: List[Claim]) -> List[Tuple[Claim, Group, Group]]:
    """(claim, its head's runs, the runs it is set against) wherever both ran on
    one corpus and budget with the same transformer and data."""
    found = []
    order = corpus_order({key.corpus for key in groups})
    for claim in claims:
        for key in sorted(groups, key=lambda key: (order.index(key.corpus), key.budget)):
            if "/".join(key[1:3]) != claim.head:
                continue
            encoder, head = claim.against.split("/")
            ours, against = groups[key], groups.get(key._replace(encoder=encoder, head=head))
            if against is not None and all(ours.runs[0].get(field) == against.runs[0].get(field)
                                           for field in SHARED):
                found.append((claim, ours, against))
    return found


CLAIMS_HEADER = [
    "| paper | claims | corpus | score | updates | head | F | P / R | against | F | P / R | difference | verdict |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def claims_table(groups: Dict[Key, Group], claims: List[Claim] = CLAIMS) -> List[str]:
    rows = claim_pairs(groups, claims)
    lines = [
        "Each claim as two package heads trained by the `compare` workflow on the same transformer, data,",
        "optimizer, schedule, batcher and budget, both heads at 20 x the encoder's learning rate; F in % on",
        "the split the verdict names (test, or the reporting half of dev for runs made before the test",
        "splits), thresholds (where a head has one) chosen on dev (its tuning half). A gap is claimed only",
        f"at {MIN_SEEDS} seeds a side and {MIN_GAP:g} F or more, unrounded.", "",
        *(CLAIMS_HEADER if rows else [])]
    for claim, head, against in rows:
        gap, what = verdict(head, against, claim.view)
        cells = [f"{group.f(claim.view)} | {group.figure(claim.view, 'p')} / {group.figure(claim.view, 'r')}"
                 for group in (head, against)]
        lines.append(
            f"| {claim.paper} | {claim.says} | {corpus_name(head.key.corpus)} | {VIEWS[claim.view]} "
            f"| {updates_cell(head)} | {head_label(head)} | {cells[0]} | {head_label(against)} "
            f"| {cells[1]} | {gap} | {what} (seeds {len(head.seeds)} / {len(against.seeds)}; {head.split}) |")
    missing = [claim for claim in claims if not any(row[0] is claim for row in rows)]
    if rows and missing:
        lines.append("")
    lines += [f"- Not run yet: {claim.paper}, {claim.says} (`spacy project run compare project/ --vars.config "
              f"{claim.head.split('/')[1]}` and `--vars.config {claim.against.split('/')[1]}`, on one corpus "
              "and budget)." for claim in missing]
    return lines


