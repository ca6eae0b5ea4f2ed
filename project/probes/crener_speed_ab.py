"""A/B of a `crener` speed change in one process: the code as it is against
the formula it replaced (kept here), training updates and prediction, one
torch thread, CPU time (process_time).

    python project/probes/crener_speed_ab.py TRAIN_SPACY DEV_SPACY [--config configs/crener.cfg]
        [--lever biases] [--passes 4] [--updates 5] [--words 1000]

Two pipelines are built from the config with the same seed; in one the
scorer runs the replaced formula (`--lever`). Both are trained on the same
batches (about `--words` words, spacy.batch_by_words.v1, as `spacy train`
batches): in each pass each pipeline runs `--updates` updates, the two taking
turns at going first; then the first pipeline predicts the first 1,000 dev
docs (nlp.pipe, batch 256) once with each formula. Prints words/s of each,
summed over the passes.

Levers (the replaced formula of each):
- biases: the pooled relation enhancement materialises grid + rows + columns,
  which the co-predictor reads (before the biases were kept apart, and before
  `joint`).
- joint: the biases kept apart, but the co-predictor's first layer and the
  enhancement's tag projection read the grid in two products in training too
  (before CRENERScorer._grid_products).
- phases: every dilated convolution runs dilated in training too (before
  dilated_convolution.depthwise_convolution ran it as its d x d phases).
- lstm: the BiLSTM runs on packed sequences, native kernels (before
  BiLSTMContext ran one oneDNN LSTM per direction on CPU).
"""
import argparse
import time
from functools import partial
from types import MethodType

import torch
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.training.batchers import minibatch_by_words
from spacy.util import load_config, load_model_from_config
from thinc.api import fix_random_seed
from torch.nn import functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from spacy_globalner.ml.layers.pytorch_wrapper import wrapped_module
from spacy_globalner.ml.torch.crener.co_predictor import fold_tag_projection


def materialised_forward(self, X: torch.Tensor, lengths: torch.Tensor, materialise: bool = True) -> torch.Tensor:
    """CRENERScorer.forward with the pooled enhancement's grid materialised
    (the pooled path only, as configs/crener.cfg runs it); materialise=False:
    kept as biases, but each linear layer reads the grid in a product of its own."""
    n = X.shape[1]
    token_mask = torch.arange(n, device=X.device)[None, :] < lengths.to(X.device)[:, None]
    cell_mask = token_mask[:, :, None] & token_mask[:, None, :]
    tokens = self.input_dropout(self.input(X))
    if self.context is not None:
        tokens = self.context(tokens, lengths)
    if self.transformer is not None:
        tokens = self.transformer(tokens, token_mask)
    embeddings = [self.position(n, X.device)[None]]
    if self.attention_embedding is not None:
        embeddings.append(self.attention_embedding(tokens, token_mask))
    grid = self._convolve(self.subject(tokens), self.object(tokens), embeddings, cell_mask)
    rows = columns = None
    for enhancement in self.enhancements:
        if materialise:
            grid = enhancement(grid, tokens, cell_mask, token_mask)
        else:
            rows, columns = enhancement.biases(grid, tokens, cell_mask, token_mask, rows, columns)
    first_layer = None
    if self.settings.predictor_input != "grid":
        grid_width = self.convolutions.width if self.settings.predictor_input == "grid+tags" else 0
        first_layer = fold_tag_projection(self.predictor.grid_mlp[0], self.tags, grid_width)
    scores = self.predictor(tokens, grid, first_layer, rows, columns)
    if not self.learned_threshold:
        scores = torch.cat((torch.zeros_like(scores[..., :1]), scores), dim=-1)
    return scores


def use_biases_before(scorer) -> None:
    if scorer.paper_enhancement:
        raise SystemExit("the biases lever is the pooled enhancement's")
    scorer.forward = MethodType(materialised_forward, scorer)


def use_joint_before(scorer) -> None:
    if scorer.paper_enhancement:
        raise SystemExit("the joint lever is the pooled enhancement's")
    scorer.forward = MethodType(partial(materialised_forward, materialise=False), scorer)


def dilated_forward(self, grid: torch.Tensor, cell_mask: torch.Tensor) -> torch.Tensor:
    """DilatedConvolutions.forward with every convolution run dilated."""
    inside = cell_mask[..., None].to(grid.dtype)
    x = grid
    outputs = []
    for convolution in self.convolutions:
        source = grid if self.parallel else x
        y = convolution(source.permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last))
        x = F.gelu(y.permute(0, 2, 3, 1)) * inside
        outputs.append(x)
    return torch.cat(outputs, dim=-1)


def use_phases_before(scorer) -> None:
    scorer.convolutions.forward = MethodType(dilated_forward, scorer.convolutions)


def packed_forward(self, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """BiLSTMContext.forward on the packed sequences, native kernels."""
    packed = pack_padded_sequence(X, lengths.cpu(), batch_first=True, enforce_sorted=False)
    with torch.backends.mkldnn.flags(enabled=False):
        output, _ = self.lstm(packed)
    output, _ = pad_packed_sequence(output, batch_first=True, total_length=X.shape[1])
    return X + output.to(X.dtype)


def use_lstm_before(scorer) -> None:
    scorer.context.forward = MethodType(packed_forward, scorer.context)


LEVERS = {
    "biases": use_biases_before,
    "joint": use_joint_before,
    "phases": use_phases_before,
    "lstm": use_lstm_before,
}


def undo_levers(scorer) -> None:
    for module in scorer.modules():
        module.__dict__.pop("forward", None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("train")
    parser.add_argument("dev")
    parser.add_argument("--config", default="configs/crener.cfg")
    parser.add_argument("--lever", default="biases", choices=sorted(LEVERS))
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--updates", type=int, default=5)
    parser.add_argument("--words", type=int, default=1000)
    args = parser.parse_args()
    torch.set_num_threads(1)
    pipelines = {}
    for name in ("now", "before"):
        fix_random_seed(0)
        nlp = load_model_from_config(load_config(args.config), auto_fill=True)
        docs = list(DocBin().from_disk(args.train).get_docs(nlp.vocab))
        examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
        optimizer = nlp.initialize(lambda examples=examples: examples[:400])
        if name == "before":
            LEVERS[args.lever](wrapped_module(nlp.get_pipe("crener").model.get_ref("head").layers[0]))
        pipelines[name] = (nlp, optimizer, examples)
    batches = list(minibatch_by_words(pipelines["now"][2][400:], size=args.words, tolerance=0.2))
    dev = list(DocBin().from_disk(args.dev).get_docs(pipelines["now"][0].vocab))[:1000]
    dev_words = [[t.text for t in doc] for doc in dev]
    seconds = {(name, mode): 0.0 for name in pipelines for mode in ("train", "predict")}
    words = {(name, mode): 0 for name in pipelines for mode in ("train", "predict")}
    for nlp, optimizer, _ in pipelines.values():
        for batch in batches[:3]:
            nlp.update(batch, sgd=optimizer)
    for p in range(args.passes):
        timed = batches[3 + p * args.updates : 3 + (p + 1) * args.updates]
        order = ["now", "before"] if p % 2 == 0 else ["before", "now"]
        for name in order:
            nlp, optimizer, _ = pipelines[name]
            start = time.process_time()
            for batch in timed:
                nlp.update(batch, sgd=optimizer)
            seconds[name, "train"] += time.process_time() - start
            words[name, "train"] += sum(len(eg.x) for batch in timed for eg in batch)
        # Prediction with one pipeline's weights, so that both formulas
        # decode the same grids (the two pipelines' weights drift apart in
        # float rounding, and with them the candidates the decoder walks).
        nlp = pipelines["now"][0]
        scorer = wrapped_module(nlp.get_pipe("crener").model.get_ref("head").layers[0])
        for name in order:
            if name == "before":
                LEVERS[args.lever](scorer)
            inputs = [Doc(nlp.vocab, words=w) for w in dev_words]
            start = time.process_time()
            list(nlp.pipe(inputs, batch_size=256))
            seconds[name, "predict"] += time.process_time() - start
            undo_levers(scorer)
            words[name, "predict"] += sum(len(doc) for doc in inputs)
        print(
            f"pass {p}: "
            + ", ".join(f"{key[0]} {key[1]} {words[key] / seconds[key]:.0f}" for key in sorted(seconds))
            + " words/s (cumulative)",
            flush=True,
        )
    for mode in ("train", "predict"):
        now = words["now", mode] / seconds["now", mode]
        before = words["before", mode] / seconds["before", mode]
        print(f"{mode}: now {now:.0f} words/s, before ({args.lever}) {before:.0f} words/s: {now / before:.3f}x")


if __name__ == "__main__":
    main()
