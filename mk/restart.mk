# The local stack's repeatability check (scripts/restart-check.sh; samdocs/local-stack.md):
# `make demo` twice, up/down/up, kill -9 of the node, an interrupted up, reset. About ten
# minutes on a busy 2-core machine (four node starts, two demos), so not part of `make test`
# (six minutes today); `.ci/run` runs it after `make test`.
.PHONY: restart-check

restart-check: setup
	bash scripts/restart-check.sh
