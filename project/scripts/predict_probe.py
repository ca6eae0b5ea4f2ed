"""One prediction measurement in a fresh process; prints one JSON line.

python scripts/predict_probe.py MODEL DEV_SPACY --mode full|encoder
    (--docs N [--repeats 3] | --length TOKENS) [--threads 1] [--gpu-id -1]

--docs N: throughput on the first N dev sentences, as a batch through
nlp.pipe (tokenization done beforehand, so it is not timed); the best of
--repeats runs, which is the least disturbed by other processes.
--length L: one doc of L tokens made of dev sentences one after another.
--mode encoder runs only the encoder component (tok2vec or transformer);
--mode both alternates whole-pipeline and encoder-only runs in one process,
so both see the same load and full minus encoder is the head's own cost.
Peak memory: growth of the process's peak RSS (ru_maxrss) over its peak after
loading and a warm-up on one short doc; on GPU also torch's peak allocation.
"""
import argparse
import json
import os
import resource
import sys
import time

THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model")
    parser.add_argument("dev")
    parser.add_argument("--mode", choices=["full", "encoder", "both"], default="full")
    parser.add_argument("--docs", type=int, default=0)
    parser.add_argument("--length", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--gpu-id", type=int, default=-1)
    args = parser.parse_args()
    for name in THREAD_VARS:
        os.environ[name] = str(args.threads)
    import spacy
    import spacy_globalner  # noqa: F401 (registers the components)
    import torch
    from spacy.tokens import Doc, DocBin

    torch.set_num_threads(args.threads)
    if args.gpu_id >= 0:
        spacy.require_gpu(args.gpu_id)
    nlp = spacy.load(args.model)
    encoder = nlp.pipe_names[0]
    references = list(DocBin().from_disk(args.dev).get_docs(nlp.vocab))
    words = [[t.text for t in doc] for doc in references]
    spaces = [[bool(t.whitespace_) for t in doc] for doc in references]

    def make_docs():
        if args.length:
            flat_words, flat_spaces = [], []
            while len(flat_words) < args.length:
                for w, s in zip(words, spaces):
                    flat_words.extend(w)
                    flat_spaces.extend(s[:-1] + [True])
                    if len(flat_words) >= args.length:
                        break
            return [Doc(nlp.vocab, words=flat_words[: args.length], spaces=flat_spaces[: args.length])]
        return [Doc(nlp.vocab, words=w, spaces=s) for w, s in zip(words[: args.docs], spaces[: args.docs])]

    def run(docs, mode=args.mode):
        if mode == "encoder":
            with nlp.select_pipes(enable=[encoder]):
                return list(nlp.pipe(docs, batch_size=args.batch_size))
        return list(nlp.pipe(docs, batch_size=args.batch_size))

    run([Doc(nlp.vocab, words=words[0][:10])])  # lazy initialisation out of the figures
    base_rss = peak_rss_mb()
    if args.gpu_id >= 0:
        torch.cuda.reset_peak_memory_stats()
    times = []
    encoder_times = []
    n_tokens = 0
    for _ in range(1 if args.length >= 5000 else args.repeats):
        docs = make_docs()
        n_tokens = sum(len(doc) for doc in docs)
        start = time.perf_counter()
        run(docs, "encoder" if args.mode == "encoder" else "full")
        times.append(time.perf_counter() - start)
        if args.mode == "both":
            docs = make_docs()
            start = time.perf_counter()
            run(docs, "encoder")
            encoder_times.append(time.perf_counter() - start)
    result = {
        "mode": args.mode,
        "encoder": encoder,
        "pipeline": nlp.pipe_names,
        "n_docs": len(make_docs()),
        "n_tokens": n_tokens,
        "seconds": round(min(times), 4),
        "seconds_all": [round(t, 4) for t in times],
        "words_per_second": round(n_tokens / min(times), 1),
        "base_peak_rss_mb": round(base_rss, 1),
        "peak_rss_growth_mb": round(peak_rss_mb() - base_rss, 1),
        "threads": torch.get_num_threads(),
    }
    if encoder_times:
        result["encoder_seconds"] = round(min(encoder_times), 4)
        result["encoder_seconds_all"] = [round(t, 4) for t in encoder_times]
        result["encoder_words_per_second"] = round(n_tokens / min(encoder_times), 1)
    if args.gpu_id >= 0:
        result["gpu_peak_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
