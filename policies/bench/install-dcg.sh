#!/usr/bin/env bash
# Installs destructive_command_guard (dcg) 0.16.0 from crates.io into target/dcg-0.16.0, for
# examples/quality.rs. Its published Cargo.lock pins webpki-roots 1.0.11, which crates.io no
# longer serves, and its .cargo/config.toml asks for a nightly-only rustc flag: the script
# builds the published source with the lock moved to webpki-roots 1.0.10 and without that
# flag, on the nightly toolchain its dependencies need (vergen 10 requires rustc 1.96).
# Its licence is MIT with a rider that withholds every right, running and benchmarking
# included, from named AI companies and anyone acting for them: read LICENSE in the crate
# (printed below) and make sure it lets you run it before using what this builds.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="$root/target/dcg-0.16.0"
[ -x "$dest/bin/dcg" ] && { echo "dcg already at $dest/bin/dcg"; exit 0; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
cargo new --quiet fetch && cd fetch
cargo add --quiet destructive_command_guard@=0.16.0
cargo fetch --quiet
src="$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -maxdepth 1 -mindepth 1 -type d | while read -r d; do [ -d "$d/destructive_command_guard-0.16.0" ] && echo "$d/destructive_command_guard-0.16.0"; done | head -1)"
cp -r "$src" "$work/dcg" && cd "$work/dcg"
sed -n '1,/^THE SOFTWARE IS PROVIDED/p' LICENSE >&2
rm -rf .cargo rust-toolchain.toml
cargo +nightly update --quiet -p webpki-roots --precise 1.0.10
nice -n 10 cargo +nightly install --locked --path . --root "$dest"
