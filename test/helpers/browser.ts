import { existsSync, readFileSync } from "node:fs";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

// Headless Chromium for the tests that load a page in a real browser: Debian's `chromium` package
// (`apt-get install -y chromium`; .ci/run installs it when missing), driven by puppeteer-core, which
// downloads no browser. A missing browser is an error, never a skipped test.

/** Where Chromium is: STACKWARDEN_CHROMIUM when set (and then only there), else Debian's /usr/bin/chromium. Throws when it is missing. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const path = env.STACKWARDEN_CHROMIUM || "/usr/bin/chromium";
  if (!existsSync(path))
    throw new Error(
      `no Chromium at ${path}${env.STACKWARDEN_CHROMIUM ? " (STACKWARDEN_CHROMIUM)" : ""}: the browser tests need it. Install Debian's package (apt-get update && apt-get install -y chromium; .ci/run does) or point STACKWARDEN_CHROMIUM at a Chromium binary`,
    );
  return path;
}

/** Starts headless Chromium (`--no-sandbox` when running as root, as in CI containers). */
export async function launchChromium(): Promise<Browser> {
  const args = ["--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--lang=en-US"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return puppeteer.launch({ executablePath: chromiumPath(), headless: true, args, defaultViewport: { width: 1600, height: 900 } });
}

/** An accessibility violation as axe-core reports it (the fields the tests print). */
export interface AxeViolation {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

let axeSource: string | undefined;

// The function given to page.evaluate runs in the page; tests compile without the DOM library.
declare const document: unknown;

/**
 * Runs axe-core (its own axe.min.js, evaluated through the DevTools protocol, which a page's CSP
 * does not govern) on the page, and returns the violations of at least `minImpact`.
 */
export async function axeViolations(page: Page, minImpact: "serious" | "moderate" = "serious"): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  const levels = minImpact === "serious" ? ["serious", "critical"] : ["moderate", "serious", "critical"];
  return violations.filter((v) => v.impact !== null && levels.includes(v.impact));
}
