#!/usr/bin/env bash
# readme_test.py from the runfiles root, where README.md and bench/ lie as in the checkout.
cd "${TEST_SRCDIR}/${TEST_WORKSPACE}" && exec /usr/bin/python3 bench/readme_test.py
