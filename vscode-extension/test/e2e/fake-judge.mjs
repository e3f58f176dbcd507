// Tiny OpenAI-compatible judge on 127.0.0.1 for the e2e when tests/judge_server.py is absent.
// Every chat completion answers MET with an explanation, except where the request carries a
// marker of grading-formats.mjs's rules ("[judge:UNMET]" …: the same rules the Python judge gets
// with --when). Usage: node fake-judge.mjs PORT
import http from "node:http";
import { JUDGE_RULES } from "./grading-formats.mjs";
const port = Number(process.argv[2] || 0);
let calls = 0;
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (req.method === "GET" && req.url.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ object: "list", data: [{ id: "fake-judge", object: "model" }] }));
    }
    if (!req.url.endsWith("/chat/completions")) { res.writeHead(404); return res.end("{}"); }
    console.log(`REQUEST ${req.method} ${req.url} ${body.replace(/\n/g, " ")}`);
    calls++;
    const rule = JUDGE_RULES.find(([marker]) => body.includes(marker));
    const verdict = JSON.stringify(rule ? rule[1] : { criterion_status: "MET", verdict: "MET", status: "MET", explanation: "The response satisfies the criterion.", reason: "The response satisfies the criterion." });
    res.writeHead(200, { "content-type": "application/json" });
    const delay = /\[judge:slow\]/.test(body) ? 1500 : 0;
    setTimeout(() => res.end(JSON.stringify({
      id: `chatcmpl-${calls}`, object: "chat.completion", created: Math.floor(Date.now() / 1000), model: "fake-judge",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: verdict } }],
      usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
    })), delay);
  });
});
server.listen(port, "127.0.0.1", () => console.log(`fake judge listening on ${server.address().port}`));
