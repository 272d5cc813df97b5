#!/bin/sh
# A client slower to start than the case deadline, within the start-up budget: it waits $1
# seconds, then runs the driver given after it.
sleep "$1"
shift
exec "$@"
