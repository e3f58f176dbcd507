// The oracle for tests/test_js_yaml.py: js-yaml 5.4.1 as promptfoo 0.123.1 loads a config.
// Usage: node js_yaml_oracle.mjs NODE_MODULES < texts.json > verdicts.json
// For each text: `parse` is what js-yaml's parser (parseEvents) throws, `load` what promptfoo's
// loadYaml throws (src/util/yamlLoad.ts: loadAll with CORE_SCHEMA plus merge, binary, timestamp,
// omap, pairs and a legacy set; more than one document refused); null when it loads.
// Positions are js-yaml's own: UTF-16 offsets, 0-based line and column.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const yaml = await import(pathToFileURL(path.join(process.argv[2], "js-yaml", "dist", "js-yaml.mjs")).href);
const legacySetTag = yaml.defineMappingTag("tag:yaml.org,2002:set", {
  ...yaml.legacyMapTag,
  identify: yaml.setTag.identify,
  represent: yaml.setTag.represent,
  addPair: (container, key, value) =>
    value !== null ? "cannot resolve a set item" : yaml.legacyMapTag.addPair(container, key, null),
});
const schema = yaml.CORE_SCHEMA.withTags(
  yaml.mergeTag, yaml.binaryTag, yaml.timestampTag, yaml.omapTag, yaml.pairsTag, legacySetTag);

function verdict(run) {
  try {
    run();
    return null;
  } catch (e) {
    return { reason: e.reason ?? String(e.message), position: e.mark?.position ?? null,
      line: e.mark?.line ?? null, column: e.mark?.column ?? null };
  }
}

const texts = JSON.parse(fs.readFileSync(0, "utf-8"));
const out = texts.map((text) => ({
  parse: verdict(() => yaml.parseEvents(text)),
  load: verdict(() => {
    const documents = yaml.loadAll(text, { schema });
    if (documents.length > 1) throw new yaml.YAMLException("expected a single document in the stream, but found more");
  }),
}));
process.stdout.write(JSON.stringify(out));
