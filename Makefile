# Two commands from a clean clone: `make demo` and `make test`. Each creates the
# virtualenv in .venv on first use (safe to run again: the install is stamped).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench ranks data lint clean bytecode

# The package byte-compiled, as pip compiles an installed one: where PYTHONDONTWRITEBYTECODE
# is set (many containers), an editable install would compile every module again in each
# of the processes the demo and the tests start. Up-to-date files are not compiled again.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q promptlint rules

# setuptools maps top-level rules/ to promptlint.rules in an editable install with a
# finder and says so on every install ("Editable installation.", information only):
# that one message is filtered out; every other warning still shows.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip install --quiet -e '.[test,local,lint]'
	touch $(STAMP)

# The demo exits 0 when it ran: findings (exit 1) are the point of it.
demo: bytecode
	$(BIN)/promptlint check fixtures/agents/ || [ $$? -eq 1 ]
	$(BIN)/promptlint probe fixtures/agents/templates/system.j2 --provider local --model tiny --block-size 1 --compare-fix

test: bytecode
	$(BIN)/python -m pytest

# Types (mypy --strict) of the package and the rules; undefined names and syntax errors
# (ruff's F and E9) everywhere. CI runs it after the tests.
lint: $(STAMP)
	$(BIN)/python -m mypy --strict promptlint rules
	$(BIN)/python -m ruff check --select F,E9 promptlint rules tools bench tests

bench: $(STAMP)
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/accuracy.py

# The pre-built BPE rank tables (promptlint/data/*.ranks), from the shipped .tiktoken files.
ranks: $(STAMP)
	$(BIN)/python tools/build_rank_tables.py

# Every generated file in promptlint/data: the rank tables, and the context windows of the
# installed genai-prices' models (promptlint/data/context_windows.json).
data: ranks
	$(BIN)/python tools/build_context_windows.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
