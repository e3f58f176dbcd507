#!/usr/bin/env bash
# Installs code-server from the npm registry into a cache folder, offline-safe:
# code-server's own postinstall would download ripgrep from GitHub, so we replay its
# steps with --ignore-scripts, point @vscode/ripgrep at Debian's rg, then rebuild the
# native modules (node-gyp against the system node headers).
# Usage: install-code-server.sh CACHE_DIR VERSION   (prints the code-server binary path)
set -euo pipefail
CACHE="$1"; VERSION="$2"
DIR="$CACHE/code-server-$VERSION"
OUT="$DIR/node_modules/.bin/code-server"
if [ -f "$DIR/.installed" ]; then echo "$OUT"; exit 0; fi
command -v rg >/dev/null || { echo "ripgrep is required (apt-get install -y ripgrep)" >&2; exit 1; }
rm -rf "$DIR"; mkdir -p "$DIR"
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_audit=false npm_config_fund=false

install_steps() {
  set -euxo pipefail
  cd "$DIR"
  echo '{"name":"rubric-e2e-code-server","private":true}' > package.json
  npm i --ignore-scripts "code-server@$VERSION"
  npm rebuild argon2
  cd node_modules/code-server/lib/vscode
  npm install --omit=dev --ignore-scripts
  mkdir -p node_modules/@vscode/ripgrep/bin
  ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  npm rebuild
  rm -rf node_modules.asar && ln -s node_modules node_modules.asar
  (cd bin/remote-cli && rm -f code-server && ln -s code-linux.sh code-server)
  (cd bin/helpers && rm -f browser.sh && ln -s browser-linux.sh browser.sh)
  cd extensions
  npm install --omit=dev
}
if ! (install_steps) >"$DIR/install.log" 2>&1; then
  echo "code-server install failed; see $DIR/install.log" >&2
  grep -v "Unknown .*config" "$DIR/install.log" | tail -40 >&2
  exit 1
fi
"$OUT" --version >/dev/null 2>&1 || { echo "code-server installed but does not run; see $DIR/install.log" >&2; exit 1; }
touch "$DIR/.installed"
echo "$OUT"
