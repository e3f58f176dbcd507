// `npm run package` (and the other scripts that need the dev tools) on a fresh clone: the tools
// (vsce, esbuild, typescript) are devDependencies, so run `npm ci` first when they are missing,
// instead of failing with "vsce: not found". Runs as the `prepackage` hook.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const needed = ["vsce", "esbuild", "tsc"].map((bin) => join(root, "node_modules", ".bin", bin));
if (needed.every((path) => existsSync(path))) process.exit(0);
console.log("rubric-lsp: installing the extension's build tools first (npm ci)");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const done = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
process.exit(done.status ?? 1);
