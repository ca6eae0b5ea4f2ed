"""Annotate a corpus with a spaCy pipeline on Ray Data: one pipeline per worker,
batches of documents, spans and scores written to JSON lines or Parquet.

    from spacy_globalner.scale import ray_annotate
    ray_annotate("en_genia_gp", "corpus.jsonl", "out.jsonl", num_workers=4)

With `address=None` this starts (or joins) a local Ray instance; pass
`address="auto"` or "ray://head:10001" to run the same code on a cluster, whose
workers must have spaCy, spacy-globalner and the pipeline installed (or pass a
loaded pipeline, which is shipped to them through Ray's object store).

Needs the optional `ray` extra: pip install "spacy-globalner[ray]".
"""
import math
import os
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from spacy import util
from spacy.language import Language

from ..errors import Errors
from ..validation import check_int
from .reader import read_lines
from .records import PathLike, doc_to_record, write_jsonl

Model = Union[str, Path, Language]
OUTPUT_FORMATS = ("jsonl", "parquet")


def _arrow_schema():
    import pyarrow as pa

    offsets = [
        ("label", pa.string()),
        ("start", pa.int64()),
        ("end", pa.int64()),
        ("start_char", pa.int64()),
        ("end_char", pa.int64()),
    ]
    span = pa.struct([("key", pa.string())] + offsets + [("score", pa.float64())])
    return pa.schema(
        [
            ("id", pa.string()),
            ("text", pa.string()),
            ("spans", pa.list_(span)),
            ("ents", pa.list_(pa.struct(offsets))),
        ]
    )


def _serialize_pipeline(nlp: Language) -> Tuple[Dict[str, Any], bytes]:
    return nlp.config.interpolate(), nlp.to_bytes()


def _deserialize_pipeline(config: Dict[str, Any], data: bytes) -> Language:
    lang_cls = util.get_lang_class(config["nlp"]["lang"])
    nlp = lang_cls.from_config(config, auto_fill=False, validate=False)
    return nlp.from_bytes(data)


class PipelineWorker:
    """A Ray Data actor: loads the pipeline once, then annotates batches.

    model (Union[str, Tuple[dict, bytes]]): A package name or path for
        spacy.load, or (config, bytes) of a pipeline serialized by the driver.
    batch_size (int): Docs per nlp.pipe batch inside a Ray batch.
    spans_keys (Optional[Sequence[str]]): The doc.spans keys to write (None: all).
    """

    def __init__(
        self,
        model: Union[str, Tuple[Dict[str, Any], bytes]],
        batch_size: int,
        spans_keys: Optional[Sequence[str]],
    ) -> None:
        import spacy

        if isinstance(model, str):
            self.nlp = spacy.load(model)
        else:
            self.nlp = _deserialize_pipeline(*model)
        self.batch_size = batch_size
        self.spans_keys = spans_keys
        self.schema = _arrow_schema()

    def __call__(self, batch):
        import pyarrow as pa

        columns = batch.column_names
        texts = [str(text) for text in batch.column("text").to_pylist()]
        if "id" in columns:
            ids = [None if i is None else str(i) for i in batch.column("id").to_pylist()]
        else:
            ids = [None] * len(texts)
        docs = self.nlp.pipe(texts, batch_size=self.batch_size)
        records = [
            doc_to_record(doc, doc_id=doc_id, spans_keys=self.spans_keys)
            for doc, doc_id in zip(docs, ids)
        ]
        return pa.Table.from_pylist(records, schema=self.schema)


def ray_annotate(
    model: Model,
    input_path: PathLike,
    output_path: PathLike,
    *,
    address: Optional[str] = None,
    num_workers: int = 2,
    batch_size: int = 64,
    output_format: Optional[str] = None,
    spans_keys: Optional[Sequence[str]] = None,
    num_cpus_per_worker: float = 1,
    num_gpus_per_worker: float = 0,
    **ray_remote_args: Any,
) -> int:
    """Map a pipeline over a corpus with ray.data and write one record per document
    (see spacy_globalner.scale.records).

    model (Union[str, Path, Language]): A pipeline package name or path, loaded
        by each worker, or a loaded pipeline, serialized once and shipped.
    input_path (Union[str, Path]): A .jsonl file with "text" (and optional "id")
        fields, or a plain text file with one document per line. It is read once
        on the driver first: a malformed line raises its error (see reader.py).
    output_path (Union[str, Path]): A .jsonl file, written in corpus order through
        the driver with the same writer as the nlp.pipe path; or, for "parquet",
        a folder that the workers write in parallel (rows in no set order: use "id").
    address (Optional[str]): The Ray cluster to join; None starts a local one.
    num_workers (int): Pipelines (Ray actors) to run.
    batch_size (int): Documents per Ray batch and per nlp.pipe batch.
    output_format (Optional[str]): "jsonl" or "parquet"; None: "jsonl" when
        output_path ends in .jsonl, else "parquet".
    spans_keys (Optional[Sequence[str]]): The doc.spans keys to write (None: all).
    num_cpus_per_worker (float): CPUs Ray reserves per worker.
    num_gpus_per_worker (float): GPUs Ray reserves per worker (the pipeline
        must then be loaded with spacy.require_gpu() in the worker, e.g. from
        a package whose config sets it).
    ray_remote_args: Passed on to Dataset.map_batches (e.g. runtime_env).
    RETURNS (int): The number of documents written.
    """
    import ray
    import ray.data

    output_path = Path(output_path)
    if output_format is None:
        output_format = "jsonl" if output_path.suffix == ".jsonl" else "parquet"
    if output_format not in OUTPUT_FORMATS:
        raise ValueError(Errors.E402.format(value=output_format, formats=OUTPUT_FORMATS))
    check_int(num_workers, "num_workers", "annotate_with_ray", error=Errors.E403)
    check_int(batch_size, "batch_size", "annotate_with_ray", error=Errors.E403)
    input_path = Path(input_path)
    # Ray's readers stop at a malformed line with a traceback that names neither
    # the line nor its number: one pass here reports it as the local job does.
    for line in read_lines(input_path):
        if line.error is not None:
            raise ValueError(line.error)
    if not ray.is_initialized():
        init_args: Dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
        if address is None:
            # A local instance with only os.cpu_count() CPUs deadlocks when the
            # actors take them all: the read tasks need one more.
            needed = math.ceil(num_workers * num_cpus_per_worker) + 1
            init_args.update(num_cpus=max(os.cpu_count() or 1, needed), include_dashboard=False)
        ray.init(address=address, **init_args)
    # Ray puts a large constructor argument in its object store, so a loaded
    # pipeline travels as bytes to each worker; a name or path is loaded there.
    shipped = _serialize_pipeline(model) if isinstance(model, Language) else str(model)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    if input_path.suffix == ".jsonl":
        dataset = ray.data.read_json(str(input_path), lines=True)
    else:
        dataset = ray.data.read_text(str(input_path), drop_empty_lines=False)
    annotated = dataset.map_batches(
        PipelineWorker,
        fn_constructor_kwargs={
            "model": shipped,
            "batch_size": batch_size,
            "spans_keys": None if spans_keys is None else list(spans_keys),
        },
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=num_workers),
        num_cpus=num_cpus_per_worker,
        num_gpus=num_gpus_per_worker,
        **ray_remote_args,
    )
    if output_format == "jsonl":
        batches = annotated.iter_batches(batch_size=None, batch_format="pyarrow")
        return write_jsonl(output_path, (row for table in batches for row in table.to_pylist()))
    annotated.write_parquet(str(output_path))
    # Counting from the files' metadata: counting `annotated` would run it again.
    return ray.data.read_parquet(str(output_path)).count()
