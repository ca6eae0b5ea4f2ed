"""GermEval 2014 slices for the learning tests."""
import spacy
from spacy.tokens import Doc
from spacy.training import Example, biluo_tags_to_spans, iob_to_biluo
from thinc.api import fix_random_seed

from tests.helpers.trained_pipelines import one_torch_thread


def read_outer_level(path, vocab, limit):
    """Docs with the outer-level entities of a germ.*.iob2 file in doc.ents."""
    docs, words, tags = [], [], []
    with open(path, encoding="utf8") as file_:
        for line in file_:
            columns = line.rstrip("\n").split("\t")
            if len(columns) >= 2:
                words.append(columns[0])
                tags.append(columns[1])
                continue
            if words:
                doc = Doc(vocab, words=words)
                doc.ents = biluo_tags_to_spans(doc, iob_to_biluo(tags))
                docs.append(doc)
                words, tags = [], []
            if len(docs) == limit:
                break
    return docs


# The floors the learning tests assert sit well below what seeds 0 and 1
# reach after N_EPOCHS (project/probes/learning_floors.py measures the curves,
# project/benchmarks/learning_floors.jsonl).
N_TRAIN, N_DEV, N_EPOCHS, BATCH = 2000, 500, 4, 32


def learn_outer_level(folder, factory, config=None, seed=0):
    """Train `factory` on the first N_TRAIN sentences of GermEval's outer
    level for N_EPOCHS, on one torch thread as the other learning tests, and
    return the pipeline and its dev scores (first N_DEV sentences).
    """
    with one_torch_thread():
        fix_random_seed(seed)
        nlp = spacy.blank("de")
        nlp.add_pipe(factory, config=config or {})
        train = [Example(nlp.make_doc(doc.text), doc)
                 for doc in read_outer_level(folder / "germ.train.iob2", nlp.vocab, N_TRAIN)]
        dev = [Example(nlp.make_doc(doc.text), doc)
               for doc in read_outer_level(folder / "germ.dev.iob2", nlp.vocab, N_DEV)]
        optimizer = nlp.initialize(lambda: train)
        for _ in range(N_EPOCHS):
            for start in range(0, len(train), BATCH):
                nlp.update(train[start : start + BATCH], sgd=optimizer, drop=0.1)
        return nlp, nlp.evaluate(dev)
