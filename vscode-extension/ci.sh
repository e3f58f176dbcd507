#!/usr/bin/env bash
# CI for the VS Code extension: npm deps, typecheck, build, unit tests, .vsix.
# With RUBRIC_E2E_VSCODE=1 also the end-to-end test in code-server + headless Chromium.
# Idempotent; on a warm machine (node_modules matching the lock, code-server cached)
# it skips the installs.
set -euo pipefail
cd "$(dirname "$0")"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
T0=$SECONDS

if [ ! -f node_modules/.ci-lock ] || ! cmp -s package-lock.json node_modules/.ci-lock; then
  echo "== npm ci"
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.ci-lock
fi

echo "== typecheck"
npm run --silent typecheck
echo "== unit tests"
npm test
echo "== package"
npm run --silent package
ls -l rubric-lsp.vsix

if [ "${RUBRIC_E2E_VSCODE:-0}" = "1" ]; then
  missing=()
  [ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || missing+=(chromium)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
  command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  e2e_start=$SECONDS
  echo "== e2e: the extension against a stand-in server (checks the extension and the harness)"
  node test/e2e/run.mjs --fake-server
  node test/e2e/run.mjs --fake-server --untrusted
  echo "== e2e: the extension against the rubric-lsp server (python3 -m rubric_lsp serve)"
  node test/e2e/run.mjs
  node test/e2e/run.mjs --untrusted
  echo "== e2e: a profile with no Python package installed: the extension installs the server from the .vsix"
  node test/e2e/run.mjs --install
  echo "e2e took $((SECONDS - e2e_start))s"
fi
echo "vscode-extension CI done in $((SECONDS - T0))s"
