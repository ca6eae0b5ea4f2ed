"""spacy globalner calibrate MODEL DEV.spacy --output DIR [--target-precision P]

Chooses a threshold per label on dev data for a global_pointer or crener
component, a probability: the score (as in doc.spans[key].attrs["scores"]) a
span of that label must reach; cse_ner's one marker threshold is refused
(E024), `spacy find-threshold` tunes it. Saves the pipeline with them in the
component's cfg ("thresholds"), where spacy.load finds them; the component's
`threshold` stays the fallback for labels without one (docs/thresholds.md).
Also `python -m spacy_globalner calibrate ...`.
"""
from pathlib import Path
from typing import Dict, List, Optional

import typer
from wasabi import msg

from ..errors import Errors
from ..gpu import require_gpu
from ._app import DEFAULT_THREADS, THREADS_HELP, Arg, Opt, globalner_cli, use_torch_threads


@globalner_cli.command("calibrate")
def calibrate_cli(
    # fmt: off
    model: str = Arg(..., help="Trained pipeline: package name or path, as for spacy.load"),
    dev_path: Path = Arg(..., help="Dev data: a .spacy DocBin with gold spans", metavar="DEV.spacy"),
    output_path: Path = Opt(..., "--output", "-o", help="Folder to save the calibrated pipeline to"),
    target_precision: Optional[float] = Opt(None, "--target-precision", "-p",
                                            help="Keep each label's precision at least P (0 < P <= 1), with the "
                                                 "most recall; default: the thresholds of the best overall span F"),
    component: Optional[str] = Opt(None, "--component", "-c",
                                   help="Component to calibrate (default: the only global_pointer or crener)"),
    batch_size: int = Opt(64, "--batch-size", "-b", help="Docs per prediction batch"),
    gpu_id: int = Opt(-1, "--gpu-id", "-g", help="GPU to predict on (-1: CPU)"),
    threads: int = Opt(DEFAULT_THREADS, "--threads", min=0, help=THREADS_HELP),
    # fmt: on
):
    """Choose per-label thresholds on dev data, print P/R/F per label before
    and after, and save the pipeline with them to --output.
    """
    msg.info(f"torch threads: {use_torch_threads(threads)} (--threads)")
    try:
        report, name = calibrate(model, dev_path, target_precision=target_precision,
                                 component=component, batch_size=batch_size,
                                 gpu_id=gpu_id, output_path=output_path)
    except ValueError as err:
        msg.fail("Calibration failed", str(err))
        raise typer.Exit(code=1) from None
    print_report(report, name)
    msg.good(f"Saved the calibrated pipeline to {output_path}")


def calibrate(
    model: str,
    dev_path: Path,
    *,
    output_path: Optional[Path] = None,
    target_precision: Optional[float] = None,
    component: Optional[str] = None,
    batch_size: int = 64,
    gpu_id: int = -1,
):
    """Load, calibrate and (if output_path is given) save a pipeline.

    RETURNS (Tuple[CalibrationReport, str]): The report and the component's name.
    """
    if target_precision is not None and not 0.0 < target_precision <= 1.0:
        raise ValueError(Errors.E021.format(value=target_precision))
    dev_path = Path(dev_path)
    if not dev_path.is_file():
        raise ValueError(Errors.E022.format(path=dev_path))
    import spacy
    from spacy.training import Corpus

    from ..pipeline.calibration import calibrate_component
    from ..pipeline.gold import reference_spans

    if gpu_id >= 0:
        require_gpu(gpu_id)
    nlp = spacy.load(model)
    name = _component_name(nlp, component, model)
    pipe = nlp.get_pipe(name)
    examples = list(Corpus(dev_path)(nlp))
    if not any(reference_spans(example, pipe.key) for example in examples):
        raise ValueError(Errors.E020.format(path=dev_path, key=pipe.key))
    report = calibrate_component(
        nlp, name, examples, target_precision=target_precision, batch_size=batch_size
    )
    if output_path is not None:
        nlp.to_disk(output_path)
    return report, name


def _component_name(nlp, component: Optional[str], model: str) -> str:
    calibratable = [
        name for name, pipe in nlp.pipeline
        if getattr(pipe, "can_calibrate", False) and getattr(pipe, "is_initialized", False)
    ]
    components = nlp.pipe_names
    if component is not None:
        if component not in calibratable:
            _refuse_marker_threshold(nlp, component, model)
            raise ValueError(Errors.E019.format(what=repr(component), model=model, components=components))
        return component
    if len(calibratable) != 1:
        if not calibratable:
            for name in components:
                _refuse_marker_threshold(nlp, name, model)
        what = "without --component" if calibratable else "anything"
        raise ValueError(Errors.E019.format(what=what, model=model, components=components))
    return calibratable[0]


def _refuse_marker_threshold(nlp, name: str, model: str) -> None:
    """E024 for a spacy-globalner component whose threshold is not a span
    score per label (cse_ner's markers): `spacy find-threshold` tunes it."""
    pipe = nlp.get_pipe(name) if name in nlp.component_names else None
    # duck-typed, as above: importing the pipeline here would load torch with the CLI
    if getattr(pipe, "can_calibrate", True) is False and "threshold" in getattr(pipe, "cfg", {}):
        factory = nlp.get_pipe_meta(name).factory
        raise ValueError(Errors.E024.format(name=name, factory=factory, model=model))


def print_report(report, name: str) -> None:
    """P/R/F per label before and after (the component's scorer on dev), and
    the threshold each label got."""
    key = next(k for k in report.before if k.endswith("_per_type") and k.startswith("spans_"))
    before: Dict = report.before[key] or {}
    after: Dict = report.after[key] or {}
    rows: List = []
    for result in report.labels:
        b = before.get(result.label, {"p": 0.0, "r": 0.0, "f": 0.0})
        a = after.get(result.label, {"p": 0.0, "r": 0.0, "f": 0.0})
        threshold = "fallback" if result.threshold is None else f"{result.threshold:.3f}"
        rows.append((result.label, result.n_gold, threshold,
                     *(f"{100 * b[m]:.1f}" for m in "prf"), *(f"{100 * a[m]:.1f}" for m in "prf")))
    total = key[: -len("_per_type")]
    rows.append(("(all)", sum(r.n_gold for r in report.labels), "",
                 *(f"{100 * (report.before[f'{total}_{m}'] or 0.0):.1f}" for m in "prf"),
                 *(f"{100 * (report.after[f'{total}_{m}'] or 0.0):.1f}" for m in "prf")))
    header = ("label", "gold", "threshold", "P before", "R before", "F before", "P after", "R after", "F after")
    msg.divider(f"Calibrated '{name}' on dev ({total})")
    msg.table(rows, header=header, divider=True)
