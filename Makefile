# The two commands a newcomer needs: `make run` and `make test`. Everything else is optional.
SHELL := /bin/bash
PYTHON ?= python3
PORT ?= 8000
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

export PORT

.PHONY: run test install password demo bench check-deploy clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py ensure_organiser
	$(PY) manage.py banner
	@# config.server: daphne, refusing a request body over the limit before reading it (docs/security.md).
	@# No --proxy-headers: with no proxy in front, a phone would choose the address the join limit counts
	$(PY) -m config.server -b 0.0.0.0 -p $(PORT) --websocket_timeout 86400 config.asgi:application

test: $(STAMP)
	$(PY) -m pytest

password: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py ensure_organiser --reset

demo: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_drive

bench: $(STAMP)
	$(PY) bench/run.py

check-deploy: $(STAMP)
	DEBUG=0 HTTPS=1 SECRET_KEY=check-deploy-$$RANDOM-$$RANDOM-a-long-enough-secret-key-for-django-check ALLOWED_HOSTS=drive.example $(PY) manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) data/test-*.sqlite3*
