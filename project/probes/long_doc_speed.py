"""Per-word time and peak memory of a trained `crener` on one long doc without
sentence boundaries, against the same tokens as sentence-split docs, at
several `unsegmented_window` settings.

    python project/probes/long_doc_speed.py MODEL OUT.json [--dev DEV.jsonl]
        [--tokens 20000] [--windows 256,128,96,64] [--rounds 3]

Text: the GENIA dev sentences in order, whole sentences until --tokens tokens.
The cases:
- "sentences": each sentence a doc of its own (nlp.make_doc), run through
  nlp.pipe at the pipeline's batch size;
- "long@W": the sentences' texts joined by spaces into one doc (nlp.make_doc,
  so it has no sentence boundaries), with the component's
  unsegmented_window = W. W at or above max_grid_length (256) gives the
  windows crener used before the setting existed;
- "upstream": the long doc through the components before crener alone (the
  tok2vec): the floor under the long doc's time and memory.

Time: one process, one torch thread, CPU time (time.process_time), which other
processes on a shared machine inflate less than wall time. The cases take
turns, in a rotated order, in each of --rounds rounds; each case's median
seconds per word is reported with its ratio to "sentences". Peak memory: each
case again in a fresh process (this script with --peak CASE): the process's
peak resident memory (VmHWM, which, unlike ru_maxrss, a process started by
another does not inherit) after the run, and its growth during the run (the
pipeline's loading left out).
"agrees" is the share of the spans found in the sentence-split docs that the
long doc also has, at the same tokens and label. Writes OUT.json and prints it.
"""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from typing import List, Tuple  # noqa: E402

import spacy  # noqa: E402
import torch  # noqa: E402
from spacy.language import Language  # noqa: E402
from spacy.tokens import Doc  # noqa: E402

from spacy_globalner.corpora import read_nested_jsonl  # noqa: E402

DEV = "../shared/data/genia/dev.jsonl"  # 1,669 sentences, about 45,000 tokens
COMPONENT = "crener"


def texts(nlp: Language, path: str, n_tokens: int) -> List[str]:
    """Whole dev sentences, in order, until n_tokens tokens."""
    out, total = [], 0
    for doc in read_nested_jsonl(path, nlp.vocab):
        out.append(doc.text)
        total += len(doc)
        if total >= n_tokens:
            break
    return out


def run_case(nlp: Language, sentences: List[str], case: str) -> Tuple[List[Doc], int]:
    """Run one case; RETURNS the docs and their number of tokens."""
    pipe = nlp.get_pipe(COMPONENT)
    if case == "sentences":
        docs = list(nlp.pipe([nlp.make_doc(text) for text in sentences]))
    elif case == "upstream":
        with nlp.select_pipes(disable=[COMPONENT]):
            docs = list(nlp.pipe([nlp.make_doc(" ".join(sentences))]))
    else:
        pipe.unsegmented_window = int(case.split("@")[1])
        doc = nlp.make_doc(" ".join(sentences))
        assert not doc.has_annotation("SENT_START")
        docs = list(nlp.pipe([doc]))
    return docs, sum(len(doc) for doc in docs)


def spans_at(docs: List[Doc], key: str) -> set:
    """(start, end, label) in the offsets of the docs laid end to end."""
    found, offset = set(), 0
    for doc in docs:
        found.update((span.start + offset, span.end + offset, span.label_) for span in doc.spans[key])
        offset += len(doc)
    return found


def peak_rss_kib() -> int:
    with open("/proc/self/status", encoding="utf8") as file_:
        return next(int(line.split()[1]) for line in file_ if line.startswith("VmHWM:"))


def peak(model: str, dev: str, n_tokens: int, case: str) -> None:
    torch.set_num_threads(1)
    nlp = spacy.load(model)
    sentences = texts(nlp, dev, n_tokens)
    before = peak_rss_kib()
    run_case(nlp, sentences, case)
    after = peak_rss_kib()
    print(json.dumps({"peak_rss_mib": round(after / 1024), "peak_growth_mib": round((after - before) / 1024)}))


def main(args: argparse.Namespace) -> None:
    torch.set_num_threads(1)
    nlp = spacy.load(args.model)
    pipe = nlp.get_pipe(COMPONENT)
    key = pipe.cfg["spans_key"]
    sentences = texts(nlp, args.dev, args.tokens)
    cases = ["sentences"] + [f"long@{window}" for window in args.windows.split(",")] + ["upstream"]
    run_case(nlp, sentences[:20], "sentences")  # warm-up: lazy allocations, caches
    seconds = {case: [] for case in cases}
    words, spans = {}, {}
    for round_ in range(args.rounds):
        for case in cases[round_ % len(cases):] + cases[: round_ % len(cases)]:
            start = time.process_time()
            docs, words[case] = run_case(nlp, sentences, case)
            seconds[case].append(time.process_time() - start)
            spans[case] = spans_at(docs, key) if case != "upstream" else set()
    base = statistics.median(seconds["sentences"]) / words["sentences"]
    results = []
    for case in cases:
        per_word = statistics.median(seconds[case]) / words[case]
        memory = subprocess.run(
            [sys.executable, __file__, args.model, "-", "--dev", args.dev, "--tokens", str(args.tokens),
             "--peak", case],
            capture_output=True, text=True, check=True,
        ).stdout.strip().splitlines()[-1]
        shared = len(spans[case] & spans["sentences"])
        results.append({
            "case": case,
            "words": words[case],
            "cpu_s": [round(s, 2) for s in seconds[case]],
            "words_per_cpu_s": round(1.0 / per_word),
            "per_word_vs_sentences": round(per_word / base, 2),
            "spans": len(spans[case]),
            "agrees": round(shared / len(spans["sentences"]), 3) if spans["sentences"] and spans[case] else None,
            **json.loads(memory),
        })
    out = {
        "command": " ".join(["python", "project/probes/long_doc_speed.py"] + sys.argv[1:]),
        "model": args.model,
        "max_grid_length": pipe.cfg["max_grid_length"],
        "torch_threads": torch.get_num_threads(),
        "machine": {"cpus": os.cpu_count(), "load_average": os.getloadavg(), "processor": platform.processor()},
        "cases": results,
    }
    with open(args.out, "w", encoding="utf8") as file_:
        json.dump(out, file_, indent=2)
        file_.write("\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--dev", default=DEV)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--windows", default="256,128,96,64")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peak", help="run one case in this process and print its peak memory")
    parsed = parser.parse_args()
    if parsed.peak:
        peak(parsed.model, parsed.dev, parsed.tokens, parsed.peak)
    else:
        main(parsed)
