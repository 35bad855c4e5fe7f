# Two commands for a fresh machine (see README):
#   make run    installs the app into .venv and starts it on the embedded default (./data)
#   make test   installs the app, the test tools and Chromium, then lints and runs every test
#               (three pytest-xdist workers, a module to one worker; PYTEST_WORKERS=0 runs in one process)
#   make test-busy  the same beside a busy-looping process (scripts/with_cpu_hog.py): run it before a push
#   make harness-fixtures  (not part of make test) installs lmms-eval 0.7.3, VLMEvalKit (ms-vlmeval) and inspect-ai
#               0.3.285 each in its own environment under .harness/, runs them against the toy endpoint and rewrites
#               tests/fixtures/harness/ (scripts/harness-fixtures/same_as_fixtures.py compares a new run with the old)
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_WORKERS ?= 3
PYTEST := $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25

.PHONY: run test test-busy lint format bench chromium axe bytecode harness-fixtures

$(VENV)/.app: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt pyproject.toml $(VENV)/.app
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

run: $(VENV)/.app
	$(PY) app.py

chromium:
	bash scripts/install-chromium.sh

# the pinned axe-core the browser tests inject (tests/support/axe.py), from npm, its integrity checked
axe:
	bash scripts/install-axe.sh

lint: $(VENV)/.dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) scripts/check_function_length.py

# The project's own modules compiled once before the tests, as pip compiles an installed package: the
# hundreds of processes the tests start (the app, the CLI, scoring workers) then read bytecode instead of
# each compiling ~150 modules where PYTHONDONTWRITEBYTECODE is set: 0.1 s of CPU less per app or CLI
# start (perf/bytecode_cost.py at 3860df9). Where it is not set, the first process would have written the same files.
bytecode: $(VENV)/.dev
	$(PY) -m compileall -q -j 0 app.py ui leaderboard submissions store scoring tests

test: $(VENV)/.dev chromium axe lint bytecode
	$(PYTEST)

test-busy: $(VENV)/.dev chromium axe lint bytecode
	$(PY) scripts/with_cpu_hog.py -- $(PYTEST)

format: $(VENV)/.dev
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

bench: $(VENV)/.dev
	$(PY) perf/bench_scoring.py
	$(PY) perf/bench_table.py
	$(PY) perf/bench_rescore.py
	$(PY) perf/bench_app.py
	$(PY) perf/load_test.py

# Fixtures of other tools' files, written by the real tools (outside `make test`: each installs its
# tool into its own venv and runs it against scoring.harness.runner.fake_endpoint). Every script in the folder runs.
harness-fixtures: $(VENV)/.dev
	for script in scripts/harness-fixtures/*.sh; do PY=$(abspath $(PY)) APP_PY=$(abspath $(PY)) bash "$$script" || exit 1; done
