// Builds the rubric-lsp wheel (pure Python, base install: linter + language server) from the
// repository root into bundled/, which the .vsix ships: the extension installs it into its
// private environment when no server is found (src/install.ts). Dependencies are not bundled.
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readdirSync, rmSync, copyFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const extRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(extRoot, "..");
const python = process.env.RUBRIC_PYTHON || "python3";
const out = mkdtempSync(path.join(os.tmpdir(), "rubric-wheel-"));
try {
  execFileSync(python, ["-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q", "-w", out, repoRoot], { stdio: "inherit" });
  const wheels = readdirSync(out).filter((f) => /^rubric_lsp-.*-py3-none-any\.whl$/.test(f));
  if (wheels.length !== 1) throw new Error(`expected one rubric_lsp wheel, got ${JSON.stringify(readdirSync(out))}`);
  const bundled = path.join(extRoot, "bundled");
  rmSync(bundled, { recursive: true, force: true });
  mkdirSync(bundled);
  copyFileSync(path.join(out, wheels[0]), path.join(bundled, wheels[0]));
  console.log(`bundled/${wheels[0]}`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
