#!/usr/bin/env bash
# Placeholder until the QEMU harness lands (issue 3).
echo "qemu: harness not yet present"
