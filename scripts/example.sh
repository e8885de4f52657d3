#!/usr/bin/env bash
# The README's first-run example: mtool on the embedded SQLite default, in a fresh project folder:
# init, new, migrate, status, history, rollback.
#   npm run example                  # builds, then runs this in a temporary folder
#   MTOOL_EXAMPLE_DIR=./try npm run example   # keep the project to look at it afterwards
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mtool() { node "$root/dist/cli/bin.js" "$@"; }

if [[ -n "${MTOOL_EXAMPLE_DIR:-}" ]]; then
  project="$MTOOL_EXAMPLE_DIR"
  mkdir -p "$project"
else
  project="$(mktemp -d "${TMPDIR:-/tmp}/mtool-example.XXXXXX")"
  trap 'rm -rf "$project"' EXIT
fi
cd "$project"
step() { printf '\n$ mtool'; printf ' %q' "$@"; printf '\n'; mtool "$@"; }

step init
step new "create users"
file="migrations/default/default__0001_create_users.sql"
# Fill the scaffold's sections: one table up, dropped again on rollback.
sed -i.bak -e '/^-- upgrade$/a\
CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);' \
  -e '/^-- rollback$/a\
DROP TABLE users;' "$file" && rm -f "$file.bak"
printf '\n$ cat %s\n' "$file"; cat "$file"
step new "refresh stats" --type ra
step settings show
step database list --json
step migrate
step status
step history
step rollback
step status --json
step version
if [[ -n "${MTOOL_EXAMPLE_DIR:-}" ]]; then
  printf '\nexample project: %s (kept)\n' "$project"
else
  printf '\nexample project: %s (removed now; MTOOL_EXAMPLE_DIR=./try npm run example keeps it)\n' "$project"
fi
