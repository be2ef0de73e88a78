#!/bin/bash
# An audit line per event, from Code-Forge's FORGE_* variables (set by the agent per event)
# and the name of the hooks.toml entry that ran it (HOOKHOST_HOOK).
mkdir -p .forge
echo "${FORGE_EVENT:-$HOOKHOST_EVENT} tool=${FORGE_TOOL_NAME:--} session=${FORGE_SESSION_ID:--} hook=$HOOKHOST_HOOK" >> .forge/events.log
