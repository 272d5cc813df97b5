#!/bin/sh
# A driver that supports nothing: every case is UNSUPPORTED.
exit 127
