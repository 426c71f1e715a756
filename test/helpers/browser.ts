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

// The functions given to page.evaluate run in the page; tests compile without the DOM library.
declare const document: any;
declare const window: any;

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

/**
 * What in the elements matching `selector` (and their descendants) is painted green: text,
 * background or border whose hue is green (75°–165°) and not grey. Returns "text: colour" lines.
 */
export async function greenIn(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (roots) => {
    const green = (css: string) => {
      const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(css);
      if (!m || m[4] === "0") return false;
      const [r, g, b] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      if (max - min < 10 || max !== g) return false;
      const hue = 60 * ((b - r) / (max - min)) + 120;
      return hue >= 75 && hue <= 165;
    };
    const found: string[] = [];
    for (const root of roots)
      for (const el of [root, ...root.querySelectorAll("*")]) {
        const st = window.getComputedStyle(el);
        for (const c of [st.color, st.backgroundColor, st.borderTopColor])
          if (green(c)) found.push(`${(el.textContent ?? "").trim().slice(0, 40)}: ${c}`);
      }
    return found;
  });
}

/** Whether anything scrolls sideways: the page itself, or any element that scrolls (the table's region). */
export async function sidewaysScroll(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const over: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) over.push(`the page: ${doc.scrollWidth} > ${window.innerWidth}`);
    for (const el of document.querySelectorAll("*"))
      if (el.scrollWidth > el.clientWidth && ["auto", "scroll"].includes(window.getComputedStyle(el).overflowX))
        over.push(`${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
    return over;
  });
}
