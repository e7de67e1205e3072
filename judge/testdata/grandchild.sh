#!/bin/sh
# grandchild.sh DIR — a command judge that starts a grandchild (a sleep
# in the background), writes its PID to DIR/grandchild.pid and waits for
# it: for the tests that a timeout or a cancellation kills the whole
# process group, not only the program.
sleep 1000 &
echo $! > "$1/grandchild.pid.tmp"
mv "$1/grandchild.pid.tmp" "$1/grandchild.pid"
wait
