// The labelling webview's own page (no vscode import: unit-tested): the server's labelling page in a frame, and
// the one message from it the webview passes on to the extension (open a file at a line).
export const OPEN_MESSAGE = "rubric-label-open";

/** The webview's page: the labelling page in a frame, and the one message it passes on. */
export function frameHtml(url: string, nonce: string): string {
  const origin = new URL(url).origin;
  const attr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; frame-src ${attr(origin)}; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}';">
<style nonce="${nonce}">html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; } iframe { border: 0; width: 100%; height: 100vh; }</style>
</head><body>
<iframe id="rubric-label-page" title="Rubric labelling page" src="${attr(url)}"></iframe>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const origin = ${JSON.stringify(origin)};
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.origin !== origin || !data || data.type !== ${JSON.stringify(OPEN_MESSAGE)}) return;
    vscode.postMessage({ type: data.type, path: String(data.path), line: Number(data.line), column: Number(data.column) });
  });
</script>
</body></html>`;
}

