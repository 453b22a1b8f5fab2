// GET /docs: a readable API reference rendered by Redoc from /openapi.json. The renderer is Redoc's
// standalone bundle from node_modules (the `redoc` npm package), served by this server: the page
// works offline and loads nothing from a CDN.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
export const REDOC_BUNDLE_PATH = "/docs/redoc.standalone.js";

const bundlePath = () => require.resolve("redoc/bundles/redoc.standalone.js");

export function redocBundle(): Response {
  return new Response(Bun.file(bundlePath()), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" } });
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>txray API reference</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="redoc"></div>
  <script src="${REDOC_BUNDLE_PATH}"></script>
  <script>
    Redoc.init("/openapi.json", {
      hideDownloadButton: false,
      expandResponses: "200",
      jsonSampleExpandLevel: 3,
      theme: { typography: { fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", headings: { fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif" } } }
    }, document.getElementById("redoc"));
  </script>
</body>
</html>
`;

/**
 * Nothing but this server: the renderer would otherwise fetch its vendor's logo from a CDN (it
 * hides the image when the load is refused). Inline script and styles are the page's own and
 * Redoc's (styled-components); its search runs in a blob: worker.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
].join("; ");

export function docsPage(): Response {
  return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP } });
}
