import { test } from "node:test";
import * as assert from "node:assert/strict";
import { OPEN_MESSAGE, frameHtml } from "../../src/labelFrame";

const URL_ = 'http://127.0.0.1:41234/?token=a"b<c&item=x';

test("the frame loads the labelling page and nothing else", () => {
  const html = frameHtml(URL_, "n0nce");
  const policy = /content="([^"]*)"/.exec(html)?.[1] ?? "";
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /frame-src http:\/\/127\.0\.0\.1:41234;/);
  assert.match(policy, /script-src 'nonce-n0nce'/);
  assert.doesNotMatch(policy, /unsafe|\*/);
  assert.ok(html.includes('src="http://127.0.0.1:41234/?token=a&quot;b&lt;c&amp;item=x"'), "the URL is attribute-escaped");
  assert.equal((html.match(/nonce="n0nce"/g) ?? []).length, 2);
});

test("only the page's own 'open' message is passed on", () => {
  const html = frameHtml(URL_, "n0nce");
  assert.ok(html.includes('const origin = "http://127.0.0.1:41234";'));
  assert.ok(html.includes("event.origin !== origin"));
  assert.ok(html.includes(JSON.stringify(OPEN_MESSAGE)));
});
