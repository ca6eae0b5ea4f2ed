"""Corpus readers, converter (spacy_globalner.corpora) and `spacy globalner convert`."""
import json
import subprocess
import sys
import warnings
from itertools import islice
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from typer.testing import CliRunner

from spacy_globalner.cli import globalner_cli
from spacy_globalner.corpora import (
    FORMATS,
    convert,
    corpus_stats,
    infer_format,
    read_bmes,
    read_char_conll,
    read_cluener,
    read_conll_bio,
    read_germeval,
    read_nested_jsonl,
)
from spacy_globalner.corpora.docs import Record, Repairs, make_doc
from tests.helpers import REPO_ROOT
from tests.helpers.spacy_commands import invoke_spacy


@pytest.fixture(scope="module")
def en_vocab():
    return spacy.blank("en").vocab


@pytest.fixture(scope="module")
def zh_nlp():
    return spacy.blank("zh")  # the character segmenter is spaCy's default


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf8")
    return path


def spans_of(doc: Doc, key: str = "sc"):
    return [(s.start, s.end, s.label_) for s in doc.spans[key]]


def ents_of(doc: Doc):
    return [(s.start, s.end, s.label_) for s in doc.ents]


def read_quietly(reader, path, vocab, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any repair here would be a test bug
        return list(reader(path, vocab, **kwargs))


# CoNLL BIO (WNUT-17)


def test_conll_bio_reads_sentences_adjacent_entities_and_spaces(tmp_path, en_vocab):
    path = write(
        tmp_path, "tiny.conll",
        "Empire\tB-location\nState\tI-location\nBuilding\tI-location\n"
        "Paris\tB-location\nBerlin\tB-location\n.\tO\n\t\n"
        "hi\tO\nBob\tB-person\n\n\n",
    )
    docs = read_quietly(read_conll_bio, path, en_vocab)
    assert len(docs) == 2
    assert docs[0].text == "Empire State Building Paris Berlin ."
    assert [t.whitespace_ for t in docs[0]] == [" "] * 5 + [""]
    assert spans_of(docs[0]) == [(0, 3, "location"), (3, 4, "location"), (4, 5, "location")]
    assert ents_of(docs[0]) == spans_of(docs[0])
    assert spans_of(docs[1]) == [(1, 2, "person")]


def test_conll_bio_repairs_i_without_b_and_counts_it(tmp_path, en_vocab):
    path = write(
        tmp_path, "broken.conll",
        "a\tO\nNew\tI-location\nYork\tI-location\nAcme\tI-corporation\n\n"
        "b\tB-person\nc\tI-group\n",
    )
    with pytest.warns(UserWarning, match=r"W300.*3 x I-/M- tag.*first at line 2") as record:
        docs = list(read_conll_bio(path, en_vocab))
    assert len(record) == 1  # one warning per file
    assert spans_of(docs[0]) == [(1, 3, "location"), (3, 4, "corporation")]
    # "I-group" after "B-person" is the third repair
    assert spans_of(docs[1]) == [(0, 1, "person"), (1, 2, "group")]


def test_conll_bio_malformed_line_names_file_and_line(tmp_path, en_vocab):
    path = write(tmp_path, "bad.conll", "a\tO\nb\tO\n\nlonely\n")
    with pytest.raises(ValueError, match=r"E302.*bad\.conll, line 4.*'lonely'"):
        list(read_conll_bio(path, en_vocab))


def test_conll_bio_unknown_tag_raises(tmp_path, en_vocab):
    path = write(tmp_path, "tag.conll", "a\tO\nb\tX-person\n")
    with pytest.raises(ValueError, match=r"E304.*line 2.*'X-person'"):
        list(read_conll_bio(path, en_vocab))


def test_limit_and_arguments_are_checked(tmp_path, en_vocab):
    path = write(tmp_path, "three.conll", "a\tO\n\nb\tO\n\nc\tO\n")
    assert len(read_quietly(read_conll_bio, path, en_vocab, limit=2)) == 2
    with pytest.raises(ValueError, match="E309"):
        read_conll_bio(path, en_vocab, limit=0)
    with pytest.raises(ValueError, match="E308"):
        read_conll_bio(path, en_vocab, spans_key="")
    with pytest.raises(ValueError, match="E307"):
        read_conll_bio(tmp_path / "missing.conll", en_vocab)


# GermEval 2014


GERMEVAL_IOB2 = (
    "Die\tO\tO\nBerliner\tB-ORG\tB-LOCderiv\nMorgenpost\tI-ORG\tO\nberichtet\tO\tO\n\n"
    "Bonn\tB-LOC\tO\n"
)
GERMEVAL_TSV = (
    "#\thttp://example.org/a b\t[2010-07-04]\t\n"
    "1\tDie\tO\tO\n2\tBerliner\tB-ORG\tB-LOCderiv\n3\tMorgenpost\tI-ORG\tO\n"
    "4\tberichtet\tO\tO\n\n#\thttp://example.org/b\t[2010-07-05]\t\n1\tBonn\tB-LOC\tO\n"
)


def test_germeval_reads_both_levels_in_both_variants(tmp_path, en_vocab):
    iob2 = read_quietly(read_germeval, write(tmp_path, "germ.x.iob2", GERMEVAL_IOB2), en_vocab)
    tsv = read_quietly(read_germeval, write(tmp_path, "NER-de-x.tsv", GERMEVAL_TSV), en_vocab)
    for docs in (iob2, tsv):
        assert [doc.text for doc in docs] == ["Die Berliner Morgenpost berichtet", "Bonn"]
        assert spans_of(docs[0]) == [(1, 2, "LOCderiv"), (1, 3, "ORG")]
        assert ents_of(docs[0]) == [(1, 3, "ORG")]
        assert spans_of(docs[1]) == [(0, 1, "LOC")]


def test_germeval_tsv_line_without_index_raises(tmp_path, en_vocab):
    path = write(tmp_path, "NER-de-y.tsv", "#\tsrc\t[d]\t\n1\tDie\tO\tO\nx\tBonn\tB-LOC\tO\n")
    with pytest.raises(ValueError, match=r"E302.*line 3"):
        list(read_germeval(path, en_vocab))


# Nested JSON lines (GENIA)


def test_nested_jsonl_keeps_nested_and_two_label_spans(tmp_path, en_vocab):
    lines = [
        {"tokens": ["IL-2", "gene", "expression"],
         "entities": [[0, 2, "DNA"], [0, 1, "protein"], [0, 2, "RNA"]]},
        {"tokens": ["T", "cell", "line"], "entities": [[0, 2, "cell_type"], [0, 3, "cell_line"]]},
    ]
    path = write(tmp_path, "g.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    docs = read_quietly(read_nested_jsonl, path, en_vocab)
    assert spans_of(docs[0]) == [(0, 1, "protein"), (0, 2, "DNA"), (0, 2, "RNA")]
    assert ents_of(docs[0]) == [(0, 2, "DNA")]  # same span: the first label in the file
    assert spans_of(docs[1]) == [(0, 2, "cell_type"), (0, 3, "cell_line")]
    assert ents_of(docs[1]) == [(0, 3, "cell_line")]


def test_nested_jsonl_skips_and_counts_bad_offsets_and_empty_sentences(tmp_path, en_vocab):
    path = write(
        tmp_path, "g.jsonl",
        '{"tokens": ["a", "b"], "entities": [[0, 3, "DNA"], [1, 1, "RNA"], [1, 2, "RNA"]]}\n'
        '{"tokens": [], "entities": []}\n'
        '{"tokens": ["c"], "entities": [[0, 1, "DNA"], [0, 1, "DNA"]]}\n',
    )
    with pytest.warns(UserWarning) as record:
        docs = list(read_nested_jsonl(path, en_vocab))
    message = str(record[0].message)
    assert len(record) == 1
    assert "2 x entity with offsets outside its sentence (skipped), first at line 1" in message
    assert "1 x empty sentence (skipped), first at line 2" in message
    assert "1 x entity listed twice" in message
    assert [spans_of(doc) for doc in docs] == [[(1, 2, "RNA")], [(0, 1, "DNA")]]


@pytest.mark.parametrize(
    "line,match",
    [
        ('{"tokens": ["a"], "entities": [[0, 1, "DNA"]]\n', r"E305.*line 2"),
        ('{"tokens": "a b", "entities": []}\n', r"E306.*line 2.*'tokens'"),
        ('{"tokens": ["a"], "entities": [[0, "1", "DNA"]]}\n', r"E306.*line 2.*\[0, '1', 'DNA'\]"),
    ],
)
def test_nested_jsonl_malformed_line_raises(tmp_path, en_vocab, line, match):
    path = write(tmp_path, "g.jsonl", '{"tokens": ["a"], "entities": []}\n' + line)
    with pytest.raises(ValueError, match=match):
        list(read_nested_jsonl(path, en_vocab))


# The outermost layer in doc.ents


@pytest.mark.parametrize(
    "entities,ents",
    [
        # the longest span wins over the spans it overlaps, on either side
        ([(0, 2, "A"), (1, 4, "B"), (3, 5, "C")], [(1, 4, "B")]),
        # equal lengths: the earliest wins; a later disjoint span is kept too
        ([(1, 3, "B"), (0, 2, "A"), (3, 4, "C")], [(0, 2, "A"), (3, 4, "C")]),
        # nested: only the outer span, at the edges of the doc
        ([(4, 5, "I"), (0, 5, "O"), (0, 1, "I")], [(0, 5, "O")]),
        ([], []),
    ],
)
def test_ents_are_the_outermost_non_overlapping_layer(en_vocab, entities, ents):
    record = Record(list("abcde"), [True] * 5, entities, 1)
    doc = make_doc(en_vocab, record, "sc", Repairs())
    assert ents_of(doc) == ents
    assert spans_of(doc) == sorted(entities, key=lambda e: (e[0], e[1]))


# Chinese, one token per character


def assert_like_chinese_tokenizer(docs, zh_nlp):
    for doc in docs:
        predicted = zh_nlp.make_doc(doc.text)
        assert [t.text for t in doc] == [t.text for t in predicted]
        assert [t.whitespace_ for t in doc] == [t.whitespace_ for t in predicted]


def test_cluener_reads_character_offsets(tmp_path, zh_nlp):
    lines = [
        {"text": "浙商银行叶老桂说",
         "label": {"company": {"浙商银行": [[0, 3]]}, "name": {"叶老桂": [[4, 6]]}}},
        {"text": "《浙商银行传》",
         "label": {"book": {"《浙商银行传》": [[0, 6]]}, "company": {"浙商银行": [[1, 4]]}}},
        {"text": "CS OL好玩", "label": {"game": {"CS OL": [[0, 4]]}}},
    ]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path = write(tmp_path, "c.json", text)
    docs = read_quietly(read_cluener, path, zh_nlp.vocab)
    assert [doc.text for doc in docs] == [line["text"] for line in lines]
    assert len(docs[0]) == 8
    assert spans_of(docs[0]) == [(0, 4, "company"), (4, 7, "name")]
    assert spans_of(docs[1]) == [(0, 7, "book"), (1, 5, "company")]
    assert ents_of(docs[1]) == [(0, 7, "book")]
    assert [s.text for s in docs[2].spans["sc"]] == ["CS OL"]
    assert_like_chinese_tokenizer(docs, zh_nlp)


def test_cluener_skips_and_counts_bad_offsets(tmp_path, zh_nlp):
    path = write(
        tmp_path, "c.json",
        '{"text": "北京", "label": {"address": '
        '{"北京": [[0, 1]], "京城": [[0, 1]], "北京市": [[0, 2]]}}}\n',
    )
    with pytest.warns(UserWarning) as record:
        docs = list(read_cluener(path, zh_nlp.vocab))
    message = str(record[0].message)
    assert "1 x entity with offsets outside its sentence (skipped), first at line 1" in message
    assert "1 x entity whose surface string differs" in message
    assert spans_of(docs[0]) == [(0, 2, "address")]


@pytest.mark.parametrize(
    "line,match",
    [
        ('{"text": "北京", "label": {}\n', r"E305.*line 3"),
        ('["北京"]\n', r"E306.*line 3.*'text'"),
        ('{"text": "北京", "label": {"city": {"北京": [0, 1]}}}\n', r"E306.*line 3.*'city' '北京'"),
    ],
)
def test_cluener_malformed_line_raises(tmp_path, zh_nlp, line, match):
    """Blank lines are skipped but counted: the error names the file's line."""
    path = write(tmp_path, "c.json", '{"text": "北京"}\n\n' + line)
    with pytest.raises(ValueError, match=match):
        list(read_cluener(path, zh_nlp.vocab))


def test_bmes_reads_single_multi_and_unclosed_spans(tmp_path, zh_nlp):
    path = write(
        tmp_path, "r.char.bmes",
        "高 S-NAME\n勇 O\n中 B-ORG\n国 M-ORG\n银 M-ORG\n行 E-ORG\n\n"
        "北 B-LOC\n京 M-LOC\n人 O\n",
    )
    with pytest.warns(UserWarning, match=r"1 x span not closed by an E- tag.*first at line 9"):
        docs = list(read_bmes(path, zh_nlp.vocab))
    assert [doc.text for doc in docs] == ["高勇中国银行", "北京人"]
    assert spans_of(docs[0]) == [(0, 1, "NAME"), (2, 6, "ORG")]
    assert spans_of(docs[1]) == [(0, 2, "LOC")]
    assert_like_chinese_tokenizer(docs, zh_nlp)


def test_bmes_malformed_line_raises(tmp_path, zh_nlp):
    path = write(tmp_path, "r.char.bmes", "高 S-NAME\n勇\n")
    with pytest.raises(ValueError, match=r"E302.*line 2.*'勇'"):
        list(read_bmes(path, zh_nlp.vocab))


def test_char_conll_strips_segment_digits_and_splits_broken_emoji(tmp_path, zh_nlp):
    path = write(
        tmp_path, "weiboNER.x",
        "我0\tO\n北0\tB-GPE.NAM\n京1\tI-GPE.NAM\n112\tO\ne12\tO\n\n"
        "\ufffd\ufffd0\tO\n小0\tI-PER.NOM\n王1\tI-PER.NOM\n",
    )
    with pytest.warns(UserWarning) as record:
        docs = list(read_char_conll(path, zh_nlp.vocab))
    message = str(record[0].message)
    assert "1 x I-/M- tag without an open span of its label (read as B-), " \
        "first at line 8" in message
    assert "1 x line with several characters (one token per character), first at line 7" in message
    assert [doc.text for doc in docs] == ["我北京1e", "\ufffd\ufffd小王"]
    assert spans_of(docs[0]) == [(1, 3, "GPE.NAM")]
    assert spans_of(docs[1]) == [(2, 4, "PER.NOM")]
    assert_like_chinese_tokenizer(docs, zh_nlp)


def test_char_conll_line_without_segment_digit_raises(tmp_path, zh_nlp):
    path = write(tmp_path, "weiboNER.y", "我0\tO\n北\tB-GPE.NAM\n")
    with pytest.raises(ValueError, match=r"E302.*line 2.*--format bmes|E302.*line 2.*bmes format"):
        list(read_char_conll(path, zh_nlp.vocab))


# Stats, conversion and the command line


def test_corpus_stats_counts_nested_same_span_and_crossing(en_vocab):
    record = Record(list("abcdef"), [True] * 6,
                    [(0, 4, "A"), (1, 2, "B"), (1, 2, "C"), (3, 6, "D")], 1)
    stats = corpus_stats([make_doc(en_vocab, record, "sc", Repairs())], "sc")
    assert (stats.n_docs, stats.n_tokens, stats.n_entities) == (1, 6, 4)
    assert (stats.n_nested, stats.n_same_span, stats.n_crossing) == (2, 1, 2)
    assert (stats.n_ents, stats.max_length) == (1, 4)
    assert stats.labels == {"A": 1, "B": 1, "C": 1, "D": 1}


def test_convert_writes_a_docbin_that_round_trips(tmp_path):
    source = REPO_ROOT / "project" / "assets" / "genia" / "dev.jsonl"
    output = tmp_path / "out" / "dev.spacy"
    stats = convert(source, output, format="auto", limit=40)
    assert (stats.format, stats.lang, stats.n_docs) == ("genia", "en", 40)
    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(output).get_docs(nlp.vocab))
    originals = list(read_nested_jsonl(source, nlp.vocab, limit=40))
    assert [spans_of(d) for d in docs] == [spans_of(d) for d in originals]
    assert [ents_of(d) for d in docs] == [ents_of(d) for d in originals]
    assert [d.text for d in docs] == [d.text for d in originals]
    assert corpus_stats(docs).n_entities == stats.n_entities
    assert stats.n_nested > 0 and stats.max_length >= 2


@pytest.mark.parametrize(
    "name,format",
    [("train.jsonl", "genia"), ("dev.json", "cluener"), ("germ.train.iob2", "germeval"),
     ("NER-de-dev.tsv", "germeval"), ("train.char.bmes", "bmes"),
     ("weiboNER_2nd_conll.dev", "weibo"), ("emerging.dev.conll", "conll")],
)
def test_infer_format(name, format):
    assert infer_format(Path("/x") / name) == format


def test_infer_format_refuses_to_guess():
    with pytest.raises(ValueError, match="E301"):
        infer_format("corpus.txt")
    with pytest.raises(ValueError, match="E300"):
        convert("corpus.txt", "out.spacy", format="xml")


# `spacy globalner convert`, through spaCy's spacy_cli entry point
CONVERT = [sys.executable, "-m", "spacy", "globalner", "convert"]


def test_cli_converts_and_prints_counts_and_the_tokenizer_note(tmp_path):
    """No --format: the default, auto, infers bmes from the file name."""
    source = write(tmp_path, "r.char.bmes", "高 S-NAME\n勇 O\n中 B-ORG\n国 E-ORG\n")
    done = subprocess.run(
        [*CONVERT, str(source), str(tmp_path / "r.spacy")],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = " ".join(done.stdout.split())  # wasabi wraps long lines
    assert "Wrote 1 docs" in printed and "format bmes" in printed and "lang zh" in printed
    assert "entities 2" in printed and "max entity length (tokens) 2" in printed
    assert 'segmenter = "char"' in printed
    written = DocBin().from_disk(tmp_path / "r.spacy")
    assert len(list(written.get_docs(spacy.blank("zh").vocab))) == 1


def test_cli_reports_bad_data_and_fails(tmp_path):
    # In-process: one subprocess above is enough to test the entry point.
    bad = write(tmp_path, "bad.conll", "a\tO\nlonely\n")
    result = CliRunner().invoke(globalner_cli, ["convert", str(bad), str(tmp_path / "bad.spacy"), "--format", "conll"])
    assert result.exit_code == 1
    printed = " ".join(result.output.split())
    assert "E302" in printed and "bad.conll, line 2" in printed
    assert not (tmp_path / "bad.spacy").exists()


def test_cli_gives_catalogue_errors_for_bad_options(tmp_path):
    # The command line as a user types it, through spaCy's CLI in this process
    # (which raises what would be a traceback); the entry point's subprocess
    # case is the test above.
    source = write(tmp_path, "r.char.bmes", "高 S-NAME\n")
    for options, code in [(["--format", "xml"], "E300"), (["--format", "bmes", "--limit", "0"], "E309"),
                          (["--format", "bmes", "--spans-key", ""], "E308")]:
        returncode, output = invoke_spacy(["globalner", "convert", source, tmp_path / "r.spacy", *options])
        printed = " ".join(output.split())
        assert returncode == 1 and code in printed, (options, output)
    assert not (tmp_path / "r.spacy").exists()


# The real corpora: the first sentences, against a count made here from the raw file

N_REAL = 200


def raw_blocks(path: Path):
    block = []
    for line in path.read_text(encoding="utf8").split("\n"):
        if line.strip():
            block.append(line)
        elif block:
            yield block
            block = []
    if block:
        yield block


def count_tag_starts(tags):
    """Entities in a tag column: B-/S- tags, and I-/M-/E- not continuing their label."""
    count = 0
    previous = "O"
    for tag in tags:
        continues = previous[:2] in ("B-", "I-", "M-") and previous[2:] == tag[2:]
        if tag[:2] in ("B-", "S-") or (tag != "O" and not continues):
            count += 1
        previous = tag
    return count


def raw_count(format: str, path: Path) -> int:
    name = path.name
    if format in ("genia", "cluener"):
        lines = path.read_text(encoding="utf8").splitlines()[:N_REAL]
        if format == "genia":
            return sum(len(json.loads(line)["entities"]) for line in lines)
        return sum(
            len(offsets)
            for line in lines
            for surfaces in json.loads(line)["label"].values()
            for offsets in surfaces.values()
        )
    total = 0
    for block in islice(raw_blocks(path), N_REAL):
        comments = name.endswith(".tsv")
        rows = [line.split() for line in block if not (comments and line.startswith("#"))]
        if format == "germeval":
            columns = (-2, -1)
        else:
            columns = (-1,)
        for column in columns:
            total += count_tag_starts([row[column] for row in rows])
    return total


REAL_FILES = [
    ("genia", "genia/train.jsonl"),
    ("genia", "genia/dev.jsonl"),
    ("conll", "wnut17/wnut17train.conll"),
    ("conll", "wnut17/emerging.dev.conll"),
    ("germeval", "germeval2014/germ.train.iob2"),
    ("germeval", "germeval2014/NER-de-dev.tsv"),
    ("weibo", "weibo/weiboNER_2nd_conll.train"),
    ("weibo", "weibo/weiboNER_2nd_conll.dev"),
    ("bmes", "resume/train.char.bmes"),
    ("bmes", "resume/dev.char.bmes"),
    ("cluener", "cluener/train.json"),
    ("cluener", "cluener/dev.json"),
]


@pytest.mark.parametrize("format,name", REAL_FILES)
def test_real_corpus_entity_counts(shared_data, zh_nlp, en_vocab, format, name):
    path = shared_data / name
    assert infer_format(path) == format
    chinese = FORMATS[format].per_char
    vocab = zh_nlp.vocab if chinese else en_vocab
    reader = {
        "genia": read_nested_jsonl, "conll": read_conll_bio, "germeval": read_germeval,
        "weibo": read_char_conll, "bmes": read_bmes, "cluener": read_cluener,
    }[format]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # weibo's repairs are counted in the raw count too
        docs = list(reader(path, vocab, limit=N_REAL))
    assert len(docs) == N_REAL
    stats = corpus_stats(docs)
    assert stats.n_entities == raw_count(format, path)
    assert stats.n_entities > 0
    for doc in docs:
        assert list(doc.spans["sc"]) == sorted(doc.spans["sc"], key=lambda s: (s.start, s.end))
        assert not any(a.end > b.start for a, b in zip(doc.ents, doc.ents[1:]))
    if chinese:
        assert_like_chinese_tokenizer(docs, zh_nlp)
