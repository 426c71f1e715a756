import type { ProbeRunLookup } from "../probes/probe-results-store";

/**
 * The report's note on the probe results `post-deploy-probes` judged: which run (what ran it,
 * when, against which endpoint, from which file), or why there are none. `shownPath` is the file
 * as the reader should see it (relative to the working directory where possible).
 */
export function probeResultsNote(lookup: ProbeRunLookup, shownPath: string): string {
  if (lookup.found) {
    const r = lookup.run;
    return `post-deploy-probes judges the last probe run (${shownPath}): \`${r.command}\` finished ${r.finishedAt} against ${r.endpoint}, ${r.results.length} result(s)`;
  }
  if (lookup.reason === "missing") {
    return `post-deploy-probes has no probe results to judge: ${shownPath} does not exist yet (\`stackwarden probe\`, \`apply --probe\` and \`npm start\` write it)`;
  }
  return `post-deploy-probes has no probe results to judge: ${shownPath}: ${lookup.detail ?? "unreadable"} (\`stackwarden probe\` writes it again)`;
}
