#!/bin/sh
# Example job submission of the dev stack: runs train.py on the gpu-nc6 cluster's nodes.
# Scanned by the artifact gate like every file of stackwarden:artifacts; it is clean.
set -eu
exec python3 "$(dirname "$0")/train.py" --epochs "${EPOCHS:-90}" "$@"
