"""Turn a trained GENIA pipeline into the package a user installs.

    python scripts/pipeline.py tune MODEL DEV_SPACY OUTPUT_MODEL OUTPUT_JSON
    python scripts/pipeline.py alignment MODEL TEST_SPACY OUTPUT_JSON
    python scripts/pipeline.py predict MODEL OUTPUT_JSON
    python scripts/pipeline.py standalone MODEL OUTPUT_MODEL
    python scripts/pipeline.py meta MODEL TEST_JSON GOLD_TOKENS_JSON ALIGNMENT_JSON THRESHOLD_JSON LICENSE OUTPUT_META
        --name NAME --version VERSION --command COMMAND

`tune` chooses the head's threshold on dev with `spacy find-threshold` (the
tool global_pointer ships with, as compare.py tunes it) and saves the pipeline
with it. `alignment` counts the test entities whose edges spaCy's tokenizer
puts inside one of its tokens (raw text cannot give them). `predict` writes
what the pipeline finds in SAMPLE_TEXT, the text a test checks the installed
package against. `standalone` gives the head a copy of the tok2vec it listens
to and drops the shared one, as spaCy's trained pipelines give `ner` its own
embedding: the head can then be sourced alone into another pipeline
(`nlp.add_pipe("global_pointer", source=...)`). `meta` writes the meta.json
`spacy package` reads: a description, the test split's scores as `spacy
evaluate` measured them on raw text (per label, and the JSON they come from),
what scoring on the corpus' own tokens gives instead, words/s, GENIA's
attribution and license (copied into the pipeline, so it travels with it) and
the requirement on spacy-globalner.
"""
import json
import shutil
from pathlib import Path
from typing import Dict, List

import spacy
import typer

import spacy_globalner  # noqa: F401 (registers the components)
from spacy_globalner.about import __version__

from common import THRESHOLD_TRIALS, Arg, Opt, find_threshold_tool, read_json, write_json

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)

SCORES_KEY = "spans_sc_f"
SAMPLE_TEXT = (
    "IL-2 gene expression and NF-kappa B activation through CD28 requires reactive oxygen "
    "production by 5-lipoxygenase. The human T cell line Jurkat expresses the IL-2 receptor "
    "alpha chain mRNA after stimulation."
)
GENIA = {
    "name": "GENIA term corpus 3.02 (Kim, Ohta, Tateisi and Tsujii 2003)",
    "url": "http://www.geniaproject.org/genia-corpus/term-corpus",
    "license": "CC BY 3.0",
    "author": "GENIA project",
}


@app.command("tune")
def tune(
    model: Path = Arg(..., help="The trained pipeline", exists=True),
    dev_path: Path = Arg(..., help="The dev split (.spacy)", exists=True),
    output_model: Path = Arg(..., help="Where the pipeline with the chosen threshold goes"),
    output_json: Path = Arg(..., help="What was chosen, and how"),
    trials: int = Opt(THRESHOLD_TRIALS, "--trials", help="Thresholds spacy find-threshold tries from 0 to 1"),
):
    from spacy.cli.find_threshold import find_threshold

    name = spacy.load(model).pipe_names[-1]
    best, best_score, _ = find_threshold(str(model), dev_path, name, "threshold", SCORES_KEY,
                                         n_trials=trials, silent=True)
    # In the config, not only the component's cfg: the config wins when the pipeline loads.
    nlp = spacy.load(model, config={"components": {name: {"threshold": float(best)}}})
    nlp.to_disk(output_model)
    write_json(output_json, {"tool": find_threshold_tool(trials),
                             "component": name, "scores_key": SCORES_KEY, "tuned_on": str(dev_path),
                             "threshold": float(best), "dev_score": float(best_score)})


def predictions(nlp, text: str) -> Dict:
    doc = nlp(text)
    scores = doc.spans["sc"].attrs.get("scores")
    spans = [[s.start_char, s.end_char, s.label_, s.text, round(float(scores[i]), 4)]
             for i, s in enumerate(doc.spans["sc"])]
    return {"text": text, "spans_sc": spans, "ents": [[e.start_char, e.end_char, e.label_, e.text] for e in doc.ents]}


@app.command("alignment")
def alignment(
    model: Path = Arg(..., help="The pipeline whose tokenizer is measured"),
    test_path: Path = Arg(..., help="The test split (.spacy)"),
    output_json: Path = Arg(..., help="The counts, and examples"),
):
    """Count the gold entities whose edges fall inside one of the tokenizer's
    tokens: from raw text, the pipeline cannot predict them exactly."""
    from spacy.tokens import DocBin

    nlp = spacy.load(model)
    total, cut, examples = 0, 0, []
    for doc in DocBin().from_disk(test_path).get_docs(nlp.vocab):
        tokens = nlp.make_doc(doc.text)
        for span in doc.spans["sc"]:
            total += 1
            if tokens.char_span(span.start_char, span.end_char) is None:
                cut += 1
                if len(examples) < 10:
                    around = tokens.char_span(span.start_char, span.end_char, alignment_mode="expand")
                    examples.append({"entity": span.text, "label": span.label_, "tokens": [t.text for t in around]})
    write_json(output_json, {"entities": total, "cut_by_tokenizer": cut, "share": cut / total if total else 0.0,
                             "examples": examples})


@app.command("predict")
def predict(
    model: Path = Arg(..., help="A pipeline: a folder or an installed package's name"),
    output_json: Path = Arg(..., help="Where its predictions on SAMPLE_TEXT go"),
):
    write_json(output_json, predictions(spacy.load(model), SAMPLE_TEXT))


@app.command("standalone")
def standalone(
    model: Path = Arg(..., help="A pipeline whose head listens to a tok2vec", exists=True),
    output_model: Path = Arg(..., help="Where the pipeline whose head holds its own tok2vec goes"),
):
    from spacy.pipeline import Tok2Vec

    nlp = spacy.load(model)
    for tok2vec_name in [name for name, pipe in nlp.pipeline if isinstance(pipe, Tok2Vec)]:
        # replace_listeners copies the tok2vec's config as written, with its
        # references to its own settings (${components.tok2vec.model.encode.width}),
        # which would dangle once it is removed: give the copy their values.
        nlp.get_pipe_config(tok2vec_name)["model"] = nlp.config.interpolate()["components"][tok2vec_name]["model"]
        for listener in list(nlp.get_pipe(tok2vec_name).listening_components):
            nlp.replace_listeners(tok2vec_name, listener, ["model.tok2vec"])
        nlp.remove_pipe(tok2vec_name)
    nlp.to_disk(output_model)


def score_rows(scores: Dict, prefix: str) -> List[str]:
    rows = [f"| {label} | {s['p'] * 100:.2f} | {s['r'] * 100:.2f} | {s['f'] * 100:.2f} |"
            for label, s in sorted(scores[f"{prefix}_per_type"].items())]
    p, r, f = (scores[f"{prefix}_{k}"] for k in "prf")
    return ["| Label | P | R | F |", "|---|---|---|---|", *rows,
            f"| **all** | **{p * 100:.2f}** | **{r * 100:.2f}** | **{f * 100:.2f}** |"]


def notes(test: Dict, gold: Dict, aligned: Dict, threshold: Dict, files: Dict[str, str], command: str) -> str:
    cost = (gold["spans_sc_f"] - test["spans_sc_f"]) * 100
    example = aligned["examples"][0] if aligned["examples"] else None
    return "\n".join([
        "### Entities",
        "",
        "Every entity, nested ones included, is in `doc.spans[\"sc\"]` with its probability in "
        "`doc.spans[\"sc\"].attrs[\"scores\"]`; `doc.ents` holds the outermost layer (longest first). "
        "The `global_pointer` component holds its own tok2vec, so it can be added alone to a pipeline "
        "of your own: `nlp.add_pipe(\"global_pointer\", source=spacy.load(\"en_globalner_genia\"))`.",
        "",
        "### Scores on GENIA's official test split, per label",
        "",
        "All entities (`doc.spans[\"sc\"]`), nested included, scored as `spacy evaluate` scores them: "
        "spaCy's tokenizer on the raw text, predicted spans aligned to the corpus' tokens "
        f"(from `{files['test']}`):",
        "",
        *score_rows(test, "spans_sc"),
        "",
        f"The outer layer (`doc.ents`): P {test['ents_p'] * 100:.2f}, R {test['ents_r'] * 100:.2f}, "
        f"F {test['ents_f'] * 100:.2f}.",
        "",
        "### Raw text against the corpus' own tokens",
        "",
        f"On the corpus' own tokens (`spacy evaluate --gold-preproc`, `{files['gold_tokens']}`) the same "
        f"pipeline scores span F {gold['spans_sc_f'] * 100:.2f}, against {test['spans_sc_f'] * 100:.2f} from "
        f"raw text: a difference of {cost:+.2f} points of span F. "
        + (f"spaCy's English tokenizer puts the edge of {aligned['cut_by_tokenizer']:,} of the test split's "
           f"{aligned['entities']:,} entities ({aligned['share'] * 100:.1f}%) inside one of its tokens "
           f"(`{files['alignment']}`; e.g. the {example['label']} `{example['entity']}` inside "
           f"`{' '.join(example['tokens'])}`): the pipeline cannot predict those exactly. "
           if example else
           f"spaCy's English tokenizer puts the edge of none of the test split's {aligned['entities']:,} "
           f"entities inside one of its tokens (`{files['alignment']}`). ")
        + "GENIA keeps its tokens, not the spacing of the "
        "abstracts, so its text here is the tokens joined by spaces, which the tokenizer can only split "
        "further (at hyphens, for one). The difference is otherwise what the model makes of the tokens "
        "it sees, and `spacy train` trained it on spaCy's tokens of the same text, not on the corpus' own. "
        "Text with the abstracts' own spacing (`(nt)` written without spaces) was not measured. "
        "The scores above are what a user gets from this raw text.",
        "",
        "### How it was built",
        "",
        "The package's `configs/global_pointer.cfg` as shipped (a BiLSTM tok2vec and the "
        "`global_pointer` head, 4,000 updates, CPU), trained on GENIA's whole train split (15,022 "
        f"sentences); its threshold, {threshold['threshold']:.2f}, was chosen on the dev split (1,669 "
        f"sentences) with {threshold['tool']} (`{files['threshold']}`); the test split (1,855 sentences) "
        f"was read only to score it. Speed: {test['speed']:,.0f} words/s predicting the test split on "
        "one CPU thread of a busy 2-core machine, as `spacy evaluate` measures it. One command rebuilds "
        "it from the corpus: "
        f"`{command}`.",
        "",
        "### Attribution",
        "",
        "Trained on the GENIA term corpus 3.02 (Kim J-D, Ohta T, Tateisi Y, Tsujii J. GENIA corpus - a "
        "semantically annotated corpus for bio-textmining. Bioinformatics 19 (suppl 1), 2003), "
        "licensed under CC BY 3.0 by the GENIA project; its license is in `GENIA_LICENSE.txt` inside "
        "this package. The five types (DNA, RNA, protein, cell_line, cell_type, subtypes collapsed) "
        "and the split are those of the nested-NER literature.",
    ])


@app.command("meta")
def meta(
    # fmt: off
    model: Path = Arg(..., help="The tuned pipeline (GENIA_LICENSE.txt is copied into it)"),
    test_json: Path = Arg(..., help="spacy evaluate's output on the test split, raw text"),
    gold_json: Path = Arg(..., help="spacy evaluate --gold-preproc's output on the test split"),
    alignment_json: Path = Arg(..., help="alignment's output on the test split"),
    threshold_json: Path = Arg(..., help="tune's output"),
    license_path: Path = Arg(..., help="GENIA's license text"),
    output_meta: Path = Arg(..., help="The meta.json for spacy package"),
    name: str = Opt("globalner_genia", "--name"),
    version: str = Opt("0.1.0", "--version"),
    command: str = Opt("spacy project run pipeline project/", "--command"),
    published: str = Opt("packages/en_globalner_genia", "--published",
                         help="Where the scores' JSON files are published, relative to the repository"),
    # fmt: on
):
    test, gold, threshold = read_json(test_json), read_json(gold_json), read_json(threshold_json)
    aligned = read_json(alignment_json)
    shutil.copy(license_path, model / "GENIA_LICENSE.txt")
    files = {"test": f"{published}/test.json", "gold_tokens": f"{published}/test_gold_tokens.json",
             "threshold": f"{published}/threshold.json", "alignment": f"{published}/alignment.json"}
    own = json.loads((model / "meta.json").read_text())
    own.pop("url", None)  # the model card would link the author to an empty address
    performance = {key: test[key] for key in ("spans_sc_f", "spans_sc_p", "spans_sc_r", "ents_f", "ents_p",
                                              "ents_r", "speed")}
    performance.update({"spans_sc_per_type": test["spans_sc_per_type"], "ents_per_type": test["ents_per_type"],
                        "source": files["test"], "split": "GENIA 3.02 official test split (1,855 sentences), "
                        "spaCy's tokenizer on the raw text"})
    data = {
        **own,
        "name": name,
        "version": version,
        "description": (
            "Nested biomedical named entities in English text: DNA, RNA, protein, cell_line and cell_type, "
            "as annotated in the GENIA corpus. spacy-globalner's `global_pointer` component on a BiLSTM "
            "tok2vec, trained on CPU; no vectors, no transformer. Span F "
            f"{test['spans_sc_f'] * 100:.2f} on GENIA's official test split from raw text."
        ),
        "author": "spacy-globalner",
        "license": "CC BY 3.0",
        "sources": [GENIA],
        "requirements": [f"spacy-globalner>={__version__},<{next_minor(__version__)}"],
        "performance": performance,
        "notes": notes(test, gold, aligned, threshold, files, command),
    }
    write_json(output_meta, data)
    # spaCy's model card, written from this meta into the pipeline, where `spacy
    # package` takes it: the card it generates itself would link the author to
    # the empty url its defaults add, and a rerun would keep the previous card.
    from spacy.cli.package import generate_readme

    (model / "README.md").write_text(generate_readme(data))


def next_minor(version: str) -> str:
    major, minor, *_ = version.split(".")
    return f"{major}.{int(minor) + 1}.0"


@app.command("publish")
def publish(
    # fmt: off
    wheel_dir: Path = Arg(..., help="Where pip wheel wrote the package's wheel"),
    package_dir: Path = Arg(..., help="spacy package's output folder (its README.md and meta.json)"),
    output_dir: Path = Arg(..., help="The repository folder the wheel and its evidence go to"),
    files: List[Path] = Arg(..., help="The JSON files the meta's figures come from"),
    # fmt: on
):
    evidence = output_dir / "en_globalner_genia"
    evidence.mkdir(parents=True, exist_ok=True)
    for old in output_dir.glob("en_globalner_genia-*.whl"):
        old.unlink()
    (wheel,) = wheel_dir.glob("en_globalner_genia-*.whl")
    shutil.copy(wheel, output_dir / wheel.name)
    for path in [package_dir / "README.md", package_dir / "meta.json", *files]:
        shutil.copy(path, evidence / path.name)


if __name__ == "__main__":
    app()
