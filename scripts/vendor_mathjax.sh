#!/bin/sh
# Vendor MathJax into the documentation (docs/_static/mathjax) from the npm registry, so that the
# built docs show their formulas offline: the TeX-to-CHTML component, its web fonts and the licence.
# Run from the repository's top; needs npm.  The version is pinned; docs/conf.py names the file.
set -eu
VERSION=3.2.2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent "mathjax@$VERSION" >/dev/null && tar xzf "mathjax-$VERSION.tgz")
DEST=docs/_static/mathjax
rm -rf "$DEST"
mkdir -p "$DEST/output/chtml/fonts"
cp "$TMP/package/es5/tex-chtml.js" "$DEST/"
cp -r "$TMP/package/es5/output/chtml/fonts/woff-v2" "$DEST/output/chtml/fonts/"
cp "$TMP/package/LICENSE" "$DEST/LICENSE"
echo "MathJax $VERSION in $DEST"
