# Neural NLP from scratch — two commands for a fresh machine with Python 3.11+:
#   make book   install, execute every chapter in $(COURSE_PROFILE), build the offline HTML book
#   make test   install, unit tests, every notebook under nbval (smoke), the book build check
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2
# The course's data sets: a local mirror is looked at first (CI points it at ../shared/data).
ifneq ($(wildcard ../shared/data),)
COURSE_LIB_DATA ?= $(abspath ../shared/data)
endif
export COURSE_LIB_DATA
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: help install book book-all chapter _chapter gpu-check seeds checkpoints test-newest test unit notebooks notebooks-sync diagrams duplicates book-check lint clean

help:
	@echo "make book   build the HTML book (profile: COURSE_PROFILE=smoke|cpu|gpu, default gpu with CUDA else cpu)"
	@echo "make book-all   the same, executing every chapter again"
	@echo "make chapter N=09   build one chapter's page (and the book's other pages)"
	@echo "make gpu-check   every chapter with the gpu sizes, a few steps each, on the CPU"
	@echo "make seeds N=09   a chapter (or N=all) again with seeds 1 and 2: the asserts and verdicts that do not hold"
	@echo "make checkpoints   make the committed checkpoints again with their recipes (an hour each on a CPU thread)"
	@echo "make test   unit tests, notebooks under nbval (smoke profile) and the book build check"
	@echo "make diagrams   draw the book's diagrams into book/diagrams/*.svg"
	@echo "make duplicates   the duplicates command over course_lib, tests, tools and the chapters' code"
	@echo "make notebooks-sync   format each chapter's text source (notebooks/NN_*.md) and write its .ipynb"

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed, found " + sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -r requirements.txt -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

install: $(STAMP)

_vendor/.done: $(STAMP) tools/vendor_assets.py
	$(BIN)/python tools/vendor_assets.py _vendor
	touch $@

# The book's pages are executed through jupyter-cache, and tools/book_cache.py re-executes a page
# only when its code, a course_lib module it imports, the profile, the widget mode or the pins
# changed since the last build (it prints what ran and how long each chapter took).
BOOK_ARGS ?= -W -n --keep-going --path-output .
CACHE_ARGS ?=
# The stale chapters are executed $(BOOK_JOBS) at a time (one thread each) before Sphinx reads them.
BOOK_JOBS ?= 2
BUILD_BOOK = $(BIN)/python tools/book_cache.py stale $(CACHE_ARGS); status=0; \
	$(BIN)/python tools/book_cache.py execute --jobs $(BOOK_JOBS) $(CACHE_ARGS); \
	$(BIN)/jupyter-book build . $(BOOK_ARGS) || status=$$?; \
	$(BIN)/python tools/book_cache.py commit $(CACHE_ARGS); exit $$status
book book-all book-check chapter: export COURSE_WIDGET_MODE := html
# One torch thread per kernel: the chapters' models are too small to split an operation across
# threads, and a second thread only waits on the first (benchmarks/book_threads.py measures it:
# 2.5-3x fewer tokens per second with both cores of a busy 2-core machine).
BOOK_THREADS ?= 1
book book-all book-check chapter: export OMP_NUM_THREADS := $(BOOK_THREADS)
book-check: export COURSE_PROFILE := smoke

book: $(STAMP) _vendor/.done
	$(BUILD_BOOK)
	@echo "Book: file://$(abspath _build/html/index.html)"

# Forget every executed page, then build: every chapter runs again.
book-all: $(STAMP) _vendor/.done
	rm -rf _build/.jupyter_cache _build/.book_keys.json
	$(BUILD_BOOK)

# One chapter's page, with the book's other pages but no other chapter: make chapter N=09
# (without -W: the reference pages' links to the other chapters cannot resolve)
chapter: $(STAMP) _vendor/.done
	@test -n "$(N)" || { echo "usage: make chapter N=09"; exit 2; }
	mkdir -p _build
	$(BIN)/python tools/book_cache.py toc $(N) > _build/toc-$(N).yml
	$(MAKE) --no-print-directory _chapter N=$(N) \
		BOOK_ARGS="-n --toc _build/toc-$(N).yml --path-output _build/chapter-$(N)" \
		CACHE_ARGS="--toc _build/toc-$(N).yml --out _build/chapter-$(N)"
	@echo "Chapter: file://$(abspath _build/chapter-$(N)/_build/html/notebooks)"

_chapter:
	$(BUILD_BOOK)

# -n $(JOBS) workers share the cores: one thread each, or torch oversubscribes them (3-10x slower).
# Unit tests draw with Agg (no display); the book's kernels keep Jupyter's inline backend, so
# every figure a chapter draws is on its page.
unit: $(STAMP)
	MPLBACKEND=Agg OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -n $(JOBS) --ignore=tests/book

# A chapter is edited as notebooks/NN_name.md (a MyST markdown notebook); this formats its code
# with ruff and writes the .ipynb that Colab opens and nbval runs (tools/notebooks_sync.py).
# tests/test_notebooks_sync.py fails while the two disagree.
notebooks-sync: $(STAMP)
	$(BIN)/python tools/notebooks_sync.py $(N)

# The book's diagrams (course_lib/diagrams): each drawing written to book/diagrams/<name>.svg.
diagrams: $(STAMP)
	$(BIN)/python -m course_lib.diagrams

# The `duplicates` command over the course's code with each chapter's code cells beside it (as a
# py:percent script each, in a folder of its own, since it reads no notebook or markdown).
MOST ?= 40
duplicates: $(STAMP)
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	git ls-files -z course_lib tests tools benchmarks | xargs -0 cp --parents -t "$$tmp"; \
	mkdir "$$tmp/notebooks"; \
	for f in notebooks/[0-9][0-9]_*.md; do \
		$(BIN)/jupytext --quiet --to py:percent -o "$$tmp/$${f%.md}.py" "$$f"; done; \
	duplicates --repo "$$tmp" --most $(MOST) --seconds 120

notebooks: $(STAMP)
	OMP_NUM_THREADS=1 COURSE_PROFILE=smoke $(BIN)/python -m pytest -q --nbval-lax --nbval-current-env \
		-n $(JOBS) --dist loadfile -p no:randomly notebooks

book-check: $(STAMP) _vendor/.done
	$(BUILD_BOOK)
	$(BIN)/python -m pytest -q tests/book

LINT_STAMP := $(VENV)/.lint-installed
$(LINT_STAMP): $(STAMP) requirements-lint.txt
	$(BIN)/python -m pip install -q -r requirements-lint.txt
	touch $@

# ruff on the code; actionlint and zizmor (offline audits) on the GitHub workflows.
lint: $(STAMP) $(LINT_STAMP)
	$(BIN)/ruff check course_lib tests tools notebooks benchmarks
	$(BIN)/ruff format --check course_lib tests tools notebooks benchmarks
	$(BIN)/actionlint .github/workflows/*.yml
	$(BIN)/zizmor --offline --no-progress .github/workflows

# Every chapter with the gpu profile's sizes and code paths, a handful of steps, on the CPU
# (tools/gpu_check.py): a shape or configuration error in the gpu sizes fails here first.
gpu-check: $(STAMP)
	OMP_NUM_THREADS=1 COURSE_DEVICE=cpu $(BIN)/python tools/gpu_check.py --jobs $(JOBS) $(N)

# A chapter (N=09, or N=all) in the cpu profile with COURSE_SEED 0, 1 and 2, each into its own
# folder under _build/seeds (tools/seeds.py): every assert that fails and every glued verdict
# that differs from seed 0's is printed, and any of them fails the target.
SEEDS ?= 1 2
seeds: $(STAMP)
	@test -n "$(N)" || { echo "usage: make seeds N=09 (or N=all)"; exit 2; }
	$(BIN)/python tools/seeds.py $(N) --seeds $(SEEDS) --jobs $(BOOK_JOBS)

# The checkpoints a chapter loads where its budget cannot train them (course_lib/checkpoints/):
# each made again by its recipe on this machine's device, the weights and their record written
# into course_lib/checkpoints/weights/. About an hour each on one CPU thread, minutes on a GPU.
checkpoints: $(STAMP)
	for name in $$($(BIN)/python -c 'from course_lib.checkpoints import RECIPES; print(*RECIPES)'); do \
	  $(BIN)/python -m course_lib.checkpoints train $$name; \
	done

# What a Colab user's first cell installs: `pip install .` into a fresh environment, with the
# newest versions pyproject.toml's ranges allow (not requirements.txt's pins), then the unit
# tests and one chapter in smoke against the installed package. Run weekly (weekly.yml).
NEWEST := .venv-newest
# torch's CPU wheels (a few hundred MB, not the CUDA build's few GB); empty it to take PyPI's build
NEWEST_INDEX ?= --extra-index-url https://download.pytorch.org/whl/cpu
test-newest:
	rm -rf $(NEWEST)
	$(PYTHON) -m venv $(NEWEST)
	$(NEWEST)/bin/python -m pip install -q --upgrade pip
	$(NEWEST)/bin/python -m pip install -q --upgrade $(NEWEST_INDEX) ".[test]"
	mkdir -p _build && $(NEWEST)/bin/python -m pip freeze > _build/newest-dependencies.txt
	$(NEWEST)/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	cd tests && MPLBACKEND=Agg OMP_NUM_THREADS=1 ../$(NEWEST)/bin/pytest -q -n $(JOBS) \
		--rootdir .. -c ../pyproject.toml --ignore=book .
	OMP_NUM_THREADS=1 COURSE_PROFILE=smoke $(NEWEST)/bin/pytest -q --nbval-lax \
		--nbval-current-env -p no:randomly notebooks/03_backprop.ipynb

test: lint unit notebooks book-check

clean:
	rm -rf _build _vendor .jupyter_cache
