# The two commands of the README, and a few more for developers.
# Everything installs itself into ./.venv on first use; nothing is installed by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
REPORT ?= harness-report

.PHONY: run test test-slow test-fast typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## run: the scenario catalogue against the bundled reference control plane; report in ./harness-report
run: $(STAMP)
	$(BIN)/durable-harness run --candidate reference --report $(REPORT)

# Workers for the suite: twice the cores. Part of the suite waits in real time (candidates served as
# processes, whose scenario time is compressed, not skipped), so with one worker per core the cores
# sit partly idle; measured on 2 cores, the whole suite: 677 s with 2 workers, 548 s with 4.
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print(2 * (os.cpu_count() or 1))")

## test: the test suite: every driver at least once, each run made once (4 to 6 minutes on two cores); an idle
## worker takes tests queued for another (worksteal), so that no worker ends its share while another
## still has long runs queued. It leaves out the sweeps marked slow: `make test-slow` (CI runs both)
test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -q -n $(TEST_WORKERS) --dist worksteal

## test-slow: the slow sweeps alone (every scenario and promise as a process, the strangers' designs as
## processes, crash points, properties, the tests make test runs inside, forked): 18 to 21 minutes on
## two cores; CI runs it after `make test`
test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow -q -n $(TEST_WORKERS) --dist worksteal

## test-fast: the fast tests only (a bare `pytest` runs the same, in one process), on every core
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n auto

typecheck: $(STAMP)
	$(BIN)/python -m mypy

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_runs.py
	$(BIN)/python benchmarks/bench_report.py
	$(BIN)/python benchmarks/bench_process.py

clean:
	rm -rf $(VENV) $(REPORT) .pytest_cache .mypy_cache *.egg-info
