"""Where a `crener` training update (or prediction) spends its time: a torch
profile of a few updates, one torch thread, by op and by module.

    python project/probes/crener_profile.py TRAIN_SPACY [--config configs/crener.cfg]
        [--updates 10] [--words 1000] [--predict DEV_SPACY] [--max-span-width N]

The pipeline is built from the config, initialised on 400 train docs and
warmed up for 5 updates; then `--updates` updates run under torch.profiler, in
batches of about `--words` words (spacy.batch_by_words.v1, as `spacy train`
batches; crener.cfg's batcher grows from 100 to 1,000 words and sits at 1,000
for most of its run). With `--predict` it profiles `nlp.pipe` over the first
1,000 docs of DEV_SPACY (batch 256) instead, decoding included, on the band
of the longest gold span the pipe learned from those 400 docs, or of
`--max-span-width` (0: the whole grid).

By module: every op's self time goes to the innermost region around it: the
scorer's modules (wrapped in record_function), the tok2vec's Thinc forward and
backprop, get_loss, the optimizer. A backward op goes to the region of the
forward op that made its autograd node (matched by sequence number), so a
module's figure is its forward and its backward. "update (spaCy/Thinc)" is the
rest of nlp.update. Profiled times are wall-clock times on one thread.
"""
import argparse
import functools
import time
from collections import defaultdict
from typing import Callable, Dict, Optional

import torch
from spacy.tokens import DocBin
from spacy.training import Example
from spacy.training.batchers import minibatch_by_words
from spacy.util import load_config, load_model_from_config
from thinc.api import fix_random_seed
from torch.autograd.profiler import record_function

import spacy_globalner.ml.torch.crener.scorer as scorer_module
from spacy_globalner.decoding.crener.windows import END, START
from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.models.crener import _chunks, plan_doc_windows

PREFIX = "R:"
BACKWARD = "autograd::engine::evaluate_function: "


def in_region(name: str, fn: Callable, backprop: bool = False) -> Callable:
    """fn run inside a profiler region; with backprop, fn is a Thinc forward
    whose returned backprop callback is wrapped as NAME.backward too."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with record_function(PREFIX + name):
            result = fn(*args, **kwargs)
        if backprop:
            output, callback = result
            return output, in_region(name + ".backward", callback)
        return result

    return wrapped


def instrument(nlp) -> None:
    crener = nlp.get_pipe("crener")
    tok2vec_model = nlp.get_pipe(nlp.pipe_names[0]).model
    tok2vec_model._func = in_region("tok2vec (Thinc)", tok2vec_model._func, backprop=True)
    head = crener.model.get_ref("head")
    head._func = in_region("head: windows, padding (Thinc)", head._func, backprop=True)
    scorer = wrapped_module(head.layers[0])
    scorer.forward = in_region("scorer: masks, glue", scorer.forward)
    scorer._convolve = in_region("grid: CLN + embeddings + reduce", scorer._convolve)
    names = {
        "input": "tokens: input projection",
        "context": "tokens: BiLSTM",
        "transformer": "tokens: adapted Transformer",
        "subject": "tokens: subject/object",
        "object": "tokens: subject/object",
        "position": "grid: distance/region embedding",
        "attention_embedding": "grid: attention embedding",
        "convolutions": "grid: dilated convolutions",
        "enhancements": "relation enhancement",
        "predictor": "co-predictor",
    }
    for attribute, name in names.items():
        module = getattr(scorer, attribute, None)
        if module is None:
            continue
        targets = list(module) if isinstance(module, torch.nn.ModuleList) else [module]
        for target in targets:
            target.forward = in_region(name, target.forward)
            if hasattr(target, "blocks"):  # the convolutions, at prediction
                target.blocks = in_region(name, target.blocks)
    for enhancement in getattr(scorer, "enhancements", []):
        if hasattr(enhancement, "biases"):
            enhancement.biases = in_region("relation enhancement", enhancement.biases)
    if hasattr(scorer, "_block_products"):
        scorer._block_products = in_region("co-predictor + enhancement: joint grid product", scorer._block_products)
    if hasattr(scorer, "_grid_products"):
        scorer._grid_products = in_region("co-predictor + enhancement: joint grid product", scorer._grid_products)
    scorer.predictor.biaffine.forward = in_region("co-predictor: biaffine", scorer.predictor.biaffine.forward)
    scorer_module.fold_tag_projection = in_region("co-predictor", scorer_module.fold_tag_projection)
    crener.get_loss = in_region("loss (gold grids + loss)", crener.get_loss)
    crener._gold_grids = in_region("loss: gold grids (numpy)", crener._gold_grids)
    crener._decode_at = in_region("decoding", crener._decode_at)
    for _, pipe in nlp.pipeline:
        pipe.finish_update = in_region("optimizer", pipe.finish_update)


def owner_of(event, regions_of_sequence: Dict[int, str]) -> Optional[str]:
    """The region an event's self time belongs to."""
    node = event
    while node is not None:
        if node.name.startswith(BACKWARD) and node.sequence_nr in regions_of_sequence:
            return regions_of_sequence[node.sequence_nr]
        if node.name.startswith(PREFIX):
            return node.name[len(PREFIX):]
        node = node.cpu_parent
    return None


def forward_region(event) -> Optional[str]:
    node = event.cpu_parent
    while node is not None:
        if node.name.startswith(BACKWARD):
            return None
        if node.name.startswith(PREFIX):
            return node.name[len(PREFIX):].replace(".backward", "")
        node = node.cpu_parent
    return None


def by_region(events) -> Dict[str, float]:
    regions_of_sequence: Dict[int, str] = {}
    for event in events:
        sequence = event.sequence_nr
        if sequence >= 0 and not event.name.startswith(BACKWARD) and sequence not in regions_of_sequence:
            region = forward_region(event)
            if region is not None:
                regions_of_sequence[sequence] = region
    totals: Dict[str, float] = defaultdict(float)
    for event in events:
        region = owner_of(event, regions_of_sequence)
        if region is not None:
            # A Thinc callback's own Python time counts with its forward's.
            totals[region.replace(".backward", "")] += event.self_cpu_time_total
    return totals


def padding_share(nlp, batches) -> str:
    """How many of the grid cells the scorer runs are padding: each batch's
    windows in the head's chunks (ml.models.crener._chunks), each chunk
    padded to its longest window."""
    crener = nlp.get_pipe("crener")
    max_cells = crener.model.get_ref("head").attrs["max_batch_cells"]
    real = padded = chunks = 0
    for batch in batches:
        windows = plan_doc_windows([eg.x for eg in batch], crener.model.attrs["max_grid_length"])
        lengths = windows[:, END] - windows[:, START]
        for chunk in _chunks(windows, max_cells):
            real += int((lengths[chunk].astype("int64") ** 2).sum())
            padded += len(chunk) * int(lengths[chunk].max()) ** 2
            chunks += 1
    return (
        f"{chunks / len(batches):.1f} chunks per update; {padded / len(batches):.0f} grid cells per update, "
        f"{100 * (1 - real / padded):.1f}% of them padding"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("train")
    parser.add_argument("--config", default="configs/crener.cfg")
    parser.add_argument("--updates", type=int, default=10)
    parser.add_argument("--words", type=int, default=1000)
    parser.add_argument("--predict", default=None, help="profile nlp.pipe over these docs instead")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--max-span-width", type=int, default=None, help="0: the whole grid")
    args = parser.parse_args()
    torch.set_num_threads(1)
    fix_random_seed(0)
    nlp = load_model_from_config(load_config(args.config), auto_fill=True)
    docs = list(DocBin().from_disk(args.train).get_docs(nlp.vocab))
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
    optimizer = nlp.initialize(lambda: examples[:400])
    batches = list(minibatch_by_words(examples[400:], size=args.words, tolerance=0.2))
    for batch in batches[:5]:
        nlp.update(batch, sgd=optimizer)
    if args.max_span_width is not None:
        nlp.get_pipe("crener").max_span_width = args.max_span_width or None
    instrument(nlp)
    if args.predict:
        dev = list(DocBin().from_disk(args.predict).get_docs(nlp.vocab))[:1000]
        inputs = [nlp.make_doc(doc.text) for doc in dev]
        words = sum(len(doc) for doc in inputs)

        def run():
            with record_function(PREFIX + "nlp.pipe (spaCy)"):
                list(nlp.pipe(inputs, batch_size=256))

    else:
        timed = batches[5 : 5 + args.updates]
        words = sum(len(eg.x) for batch in timed for eg in batch)

        def run():
            for batch in timed:
                with record_function(PREFIX + "update (spaCy/Thinc)"):
                    nlp.update(batch, sgd=optimizer)

    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        start = time.process_time()
        run()
        seconds = time.process_time() - start
    print(f"{words} words in {seconds:.2f} CPU s under the profiler: {words / seconds:.0f} words/s")
    if not args.predict:
        print(padding_share(nlp, timed))
    totals = by_region(profile.events())
    all_self = sum(event.self_cpu_time_total for event in profile.events())
    print(f"\nBy module (forward + backward, self time), {all_self / 1e6:.2f} s profiled:")
    for region, microseconds in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"  {100 * microseconds / all_self:5.1f}%  {microseconds / 1e6:7.3f} s  {region}")
    print(f"\nTop {args.top} ops by self time:")
    averages = [a for a in profile.key_averages() if not a.key.startswith(PREFIX)]
    for average in sorted(averages, key=lambda a: -a.self_cpu_time_total)[: args.top]:
        share = 100 * average.self_cpu_time_total / all_self
        print(f"  {share:5.1f}%  {average.self_cpu_time_total / 1e6:7.3f} s  {average.count:6d}x  {average.key}")


if __name__ == "__main__":
    main()
