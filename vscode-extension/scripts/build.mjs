// esbuild bundle of the extension (dist/extension.js); with --tests, the unit tests (out-test/).
import * as esbuild from "esbuild";
import { readdirSync, rmSync } from "node:fs";

const production = process.argv.includes("--production");
const tests = process.argv.includes("--tests");

if (tests) {
  rmSync("out-test", { recursive: true, force: true });
  const entryPoints = readdirSync("test/unit").filter((f) => f.endsWith(".test.ts")).map((f) => `test/unit/${f}`);
  await esbuild.build({
    entryPoints,
    outdir: "out-test",
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    sourcemap: "inline",
    external: ["vscode"],
    logLevel: "warning",
  });
} else {
  await esbuild.build({
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode"],
    minify: production,
    sourcemap: !production,
    logLevel: "warning",
  });
}
