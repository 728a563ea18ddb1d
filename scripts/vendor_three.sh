#!/bin/sh
# Vendor three.js into phmech/io/_vendor/three from the npm registry, so that the HTML viewer
# (phmech.io.html_viewer) draws its WebGL scene offline: the minified ES module build, the
# orbit controls and the licence.  Run from the repository's top; needs npm.  The version is pinned.
set -eu
VERSION=0.170.0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent "three@$VERSION" >/dev/null && tar xzf "three-$VERSION.tgz")
DEST=phmech/io/_vendor/three
rm -rf "$DEST"
mkdir -p "$DEST"
cp "$TMP/package/build/three.module.min.js" "$DEST/"
cp "$TMP/package/examples/jsm/controls/OrbitControls.js" "$DEST/"
cp "$TMP/package/LICENSE" "$DEST/LICENSE"
cat > "$DEST/README" <<END
three.js $VERSION (MIT licence, LICENSE), from the npm registry package three@$VERSION
(https://www.npmjs.com/package/three): build/three.module.min.js and
examples/jsm/controls/OrbitControls.js, unchanged.  Refresh with scripts/vendor_three.sh.
END
echo "three.js $VERSION in $DEST"
