import type { ApplyEvent } from "../../../domain/reconcile/tde-apply";
import { databaseLabel } from "../../../platform/arm/resource-id";
import type { CommandIO } from "../command-io";

interface Row {
  label: string;
  text: string;
}

/**
 * Shows apply progress: on a terminal, one live line per database redrawn in place; otherwise
 * plain lines when a scan starts, crosses each quarter, finishes or fails.
 */
export class ApplyProgress {
  private readonly rows = new Map<string, Row>();
  private readonly lastQuarter = new Map<string, number>();
  private drawn = 0;
  private timer?: NodeJS.Timeout;

  /** Live when stdout is a terminal the IO can redraw on. */
  private readonly live: boolean;

  constructor(private readonly io: CommandIO) {
    this.live = io.isTTY && io.write !== undefined;
  }

  readonly onEvent = (e: ApplyEvent): void => {
    const label = databaseLabel(e.item.ref);
    const verb = e.item.desired.transparentDataEncryption === "Enabled" ? "encrypt" : "decrypt";
    let text: string;
    switch (e.kind) {
      case "started":
        text = `${verb}ion requested`;
        break;
      case "progress":
        text = `${e.activity.toLowerCase()} ${bar(e.percentComplete)} ${Math.floor(e.percentComplete)}%`;
        break;
      case "converged":
        text = `done: TDE ${e.item.desired.transparentDataEncryption} (${(e.elapsedMs / 1000).toFixed(1)} s)`;
        break;
      case "failed":
        // Stopped by the lock's loss, the change is not failed: it may be under way (the summary says).
        text = e.code === "SW_LOCK_LOST" ? "stopped: the lock was lost" : `FAILED: ${e.error}`;
        break;
    }
    if (this.live) {
      this.rows.set(label, { label, text });
      this.schedule();
      return;
    }
    if (e.kind === "progress") {
      const q = Math.floor(e.percentComplete / 25);
      if (this.lastQuarter.get(label) === q) return;
      this.lastQuarter.set(label, q);
    }
    this.io.out(`${label}: ${text}`);
  };

  /** Draws the final state and stops redrawing. */
  finish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.live) this.draw();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, 80);
  }

  private draw(): void {
    const rows = [...this.rows.values()];
    const width = Math.max(0, ...rows.map((r) => r.label.length));
    let out = this.drawn > 0 ? `\x1b[${this.drawn}A` : "";
    for (const r of rows) out += `\x1b[2K  ${r.label.padEnd(width)}  ${r.text}\n`;
    this.io.write?.(out);
    this.drawn = rows.length;
  }
}

function bar(percent: number): string {
  const filled = Math.max(0, Math.min(20, Math.round(percent / 5)));
  return `[${"#".repeat(filled)}${".".repeat(20 - filled)}]`;
}
