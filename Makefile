# simkit course: `make book` builds the site, `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready
PORT   ?= 8000

.PHONY: book test serve lab bench lock clean

$(READY): pyproject.toml requirements.lock tests/requirements-oracle.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -r tests/requirements-oracle.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

book: $(READY)  ## execute the chapters (cached) and build _build/html; FORCE=1 re-executes all
	$(BIN)/python scripts/build_book.py $(if $(FORCE),--force)

TEST_WORKERS ?= auto
test: $(READY)  ## library, utils, chapter, build and browser tests, on every core (TEST_WORKERS=1: serial)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder

serve:  ## the built site on http://localhost:$(PORT)
	$(BIN)/python -m http.server --directory _build/html $(PORT)

lab: $(READY)  ## Jupyter Lab on the chapters, with the course environment
	$(BIN)/jupyter lab --notebook-dir=book

bench: $(READY)  ## print the library, 3D, FEM, contact, reduced-model, render, video and MPM benchmarks (SIMKIT_UPSTREAM=dir adds upstream ratios)
	$(BIN)/python benchmarks/bench_simkit.py
	$(BIN)/python benchmarks/bench_3d.py
	$(BIN)/python benchmarks/bench_step.py
	$(BIN)/python benchmarks/bench_loop.py
	$(BIN)/python benchmarks/bench_fem.py
	$(BIN)/python benchmarks/bench_contact_primitives.py
	$(BIN)/python benchmarks/bench_reduced.py
	$(BIN)/python benchmarks/bench_video.py
	$(BIN)/python benchmarks/bench_render.py
	$(BIN)/python benchmarks/bench_intersections.py
	$(BIN)/python benchmarks/bench_contact.py
	$(BIN)/python benchmarks/bench_mpm.py

lock: $(READY)  ## re-pin requirements.lock from the current environment
	$(BIN)/python -m pip freeze --exclude-editable --exclude ipctk > requirements.lock

clean:  ## remove everything the build and the tests generate
	rm -rf _build results .pytest_cache
