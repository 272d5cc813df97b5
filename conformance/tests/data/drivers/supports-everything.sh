#!/bin/sh
# A driver that never exits 127: the pre-check must refuse it.
exit 0
