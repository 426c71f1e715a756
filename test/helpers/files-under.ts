import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Every file under a directory, as text (symbolic links, which lead to the checkout, are not followed): for grepping a Pulumi backend. */
export function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) out.push(...filesUnder(p));
    else out.push({ path: p, text: readFileSync(p, "utf8") });
  }
  return out;
}
