#!/usr/bin/env bash
# axe-core for the browser tests, pinned here (its npm integrity checked), unpacked into .cache/ once:
# tests/support/axe.py injects it into the page. axe-playwright-python bundles an older axe-core (4.12),
# which misses rules the 4.14 line checks (label-content-name-mismatch on the chart points, issue 44).
set -euo pipefail
VERSION=4.14.1
INTEGRITY="sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
cd "$(dirname "$0")/.."
dest=".cache/axe-core-$VERSION"
if [ -s "$dest/axe.min.js" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack "axe-core@$VERSION" --silent >/dev/null)
tarball="$work/axe-core-$VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
  echo "axe-core $VERSION: integrity $got is not the pinned $INTEGRITY" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work" package/axe.min.js package/LICENSE
mkdir -p "$dest"
mv "$work/package/axe.min.js" "$work/package/LICENSE" "$dest/"
