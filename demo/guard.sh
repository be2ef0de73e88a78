#!/usr/bin/env bash
# A PreToolUse guard written the way people write them: read the event JSON on stdin,
# match the command, answer with a verdict on stdout.
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command": *"sudo '; then
  echo '{"action":"block","reason":"no sudo in this project"}'
else
  echo '{"action":"allow"}'
fi
