#!/usr/bin/env bash
# Train the LCRF_NER paper's arms on one corpus and evaluate each model-last on dev.
# usage (from project/): bash scripts/arms.sh CORPUS_DIR OUT_DIR STEPS "SEEDS" "ARMS" [LANG]
#   CORPUS_DIR holds train.spacy and dev.spacy; ARMS from: ner softmax crf crf_pen crf_bioes
#   crf_pen_bioes cse. One torch thread per run; a finished run (scores.json) is skipped.
set -euo pipefail
corpus=$1; out_dir=$2; steps=$3; seeds=$4; arms=$5; lang=${6:-}
lang_args=(); [ -n "$lang" ] && lang_args=(--nlp.lang "$lang")
mkdir -p "$out_dir"
python scripts/arms.py ner-config ../configs/lcrf_ner.cfg configs/benchmark/heads/ner.cfg "$out_dir/ner.cfg"
for seed in $seeds; do
  for arm in $arms; do
    out=$out_dir/$arm/s$seed
    [ -f "$out/scores.json" ] && continue
    cfg=../configs/lcrf_ner.cfg; extra=()
    case $arm in
      ner) cfg=$out_dir/ner.cfg ;;
      softmax) extra=(--components.lcrf_ner.model.transitions none) ;;
      crf) extra=(--components.lcrf_ner.model.transitions crf) ;;
      crf_pen) extra=(--components.lcrf_ner.model.transitions penalised) ;;
      crf_bioes) extra=(--components.lcrf_ner.model.transitions crf --components.lcrf_ner.model.tag_scheme bioes) ;;
      crf_pen_bioes) extra=(--components.lcrf_ner.model.transitions penalised --components.lcrf_ner.model.tag_scheme bioes) ;;
      cse) cfg=../configs/cse_ner.cfg ;;
      *) echo "unknown arm $arm" >&2; exit 2 ;;
    esac
    mkdir -p "$out"
    OMP_NUM_THREADS=1 python -m spacy train "$cfg" "${lang_args[@]}" --paths.train "$corpus/train.spacy" \
      --paths.dev "$corpus/dev.spacy" --training.max_steps "$steps" --training.eval_frequency "$steps" \
      --system.seed "$seed" "${extra[@]}" --output "$out" > "$out/train.log" 2>&1
    OMP_NUM_THREADS=1 python scripts/arms.py evaluate "$out/model-last" "$corpus/dev.spacy" "$out/scores.json"
  done
done
