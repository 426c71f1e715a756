/**
 * The Node.js lines stackwarden runs on (engines.node `>=22`): Node 20 reached its end of life on
 * 2026-04-30 and gets no security fixes, and a compliance gate on an unsupported runtime is itself a
 * finding. Loaded by bin/stackwarden.js before anything else, so it imports nothing and uses no
 * syntax or API newer than the runtimes it refuses.
 */
export const MIN_NODE_MAJOR = 22;

/**
 * The refusal of a Node older than MIN_NODE_MAJOR: its error line and, when the arguments ask for
 * JSON (`--output json` / `--format json`), the error document; undefined on a supported Node.
 */
export function runtimeRefusal(nodeVersion: string, argv: readonly string[]): { line: string; json?: string } | undefined {
  const major = Number(nodeVersion.replace(/^v/, "").split(".")[0]);
  if (major >= MIN_NODE_MAJOR) return undefined;
  const message = `Node v${nodeVersion.replace(/^v/, "")} is not supported: stackwarden needs Node ${MIN_NODE_MAJOR} or later (engines.node >=${MIN_NODE_MAJOR}); run \`npm run node:install\` in the project and put the bin directory it prints first on PATH, or install Node ${MIN_NODE_MAJOR} or 24`;
  const code = "SW_RUNTIME_UNSUPPORTED";
  const asksJson = argv.some(
    (a, i) => ((a === "--output" || a === "--format") && argv[i + 1] === "json") || a === "--output=json" || a === "--format=json",
  );
  return { line: `stackwarden: ${code}: ${message}`, ...(asksJson ? { json: JSON.stringify({ error: { code, message } }) } : {}) };
}
