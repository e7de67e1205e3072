#!/bin/sh
# hang.sh — a command judge that never answers, for the timeout test.
exec sleep 30
