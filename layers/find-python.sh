#!/usr/bin/env bash
# Print the path of a local CPython X.Y interpreter (default: the Lambda runtime's
# version), or nothing. Used to pre-compile .pyc files for the target version:
# /opt and /var/task are read-only in Lambda, so without shipped .pyc files every
# cold start compiles every imported module again.
set -u
want="${1:-3.12}"
for c in "python${want}" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"${want}"*/bin/python"${want}" \
         /usr/local/bin/python"${want}" /usr/bin/python"${want}"; do
    [ -x "$(command -v "$c" 2>/dev/null)" ] || continue
    got="$("$c" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" || continue
    if [ "$got" = "$want" ]; then command -v "$c"; exit 0; fi
done
exit 0
