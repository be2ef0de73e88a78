#!/bin/bash
# Hook: tool:pre_execute:bash (Code-Forge's blocking hook, seed 001 "Blocking Hooks")
# Exit 0 to allow, non-zero to block

COMMAND="$FORGE_TOOL_ARGS"

# Block certain commands
if echo "$COMMAND" | grep -q "sudo"; then
    echo "Blocked: sudo commands not allowed"
    exit 1
fi

# Allow everything else
exit 0
