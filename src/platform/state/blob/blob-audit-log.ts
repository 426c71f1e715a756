import { mapBounded } from "../../bounded-map";
import { stackFileKey } from "../../settings/state-dirs";
import { readBlob, statusOf, storageCodeOf, type BlobContainer } from "./blob-container";

/** Width of the sequence number in an entry's blob name, so names sort in chain order. */
const SEQ_WIDTH = 12;

/**
 * Audit trails on Blob Storage: one blob per entry, `<prefix>audit/<stack>/<seq>.json`, created
 * only if absent (`If-None-Match: *`). Two writers chaining onto the same entry race for the same
 * name: exactly one creates it, the other gets a conflict, re-reads the end and chains after the
 * winner. The chain never forks and no entry is lost, with no lock held. An entry, once written,
 * is never rewritten (make the container immutable on Azure to have the service refuse it too).
 */
export class BlobAuditLog {
  constructor(private readonly c: BlobContainer) {}

  where(name: string): string {
    return `${this.c.base}/${this.folder(name)}`;
  }

  async read(name: string): Promise<string | undefined> {
    const names = await this.entries(name);
    if (names.length === 0) return undefined;
    const lines = await mapBounded(names, 16, (n) => this.line(n));
    return lines.map((l) => `${l}\n`).join("");
  }

  async end(name: string): Promise<{ line: string } | undefined> {
    const names = await this.entries(name);
    return names.length ? { line: await this.line(names[names.length - 1]) } : undefined;
  }

  async recent(name: string, count: number): Promise<string[]> {
    const names = (await this.entries(name)).slice(-count);
    return mapBounded(names, 16, (n) => this.line(n));
  }

  async readPending(name: string): Promise<string | undefined> {
    try {
      return (await readBlob(this.c.client.getBlobClient(`${this.folder(name)}pending.json`))).text;
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      throw this.c.failure(`read ${this.where(name)}pending.json`, e);
    }
  }

  async writePending(name: string, text: string | undefined): Promise<void> {
    const blob = this.c.client.getBlockBlobClient(`${this.folder(name)}pending.json`);
    try {
      if (text === undefined) await blob.deleteIfExists();
      else await blob.upload(text, Buffer.byteLength(text));
    } catch (e) {
      throw this.c.failure(`write ${this.where(name)}pending.json`, e);
    }
  }

  async append(name: string, seq: number, line: string, previous: string | undefined): Promise<"appended" | "conflict"> {
    // The entry before must be the one the writer chained onto (entries are never rewritten); a
    // writer that chained onto a stale end then races for a name that is already taken, and loses.
    if (seq === 1 ? previous !== undefined : previous === undefined) return "conflict";
    if (seq > 1 && (await this.line(this.blobName(name, seq - 1)).catch(() => undefined)) !== previous) return "conflict";
    const body = Buffer.from(line, "utf8");
    const blob = this.c.client.getBlockBlobClient(this.blobName(name, seq));
    try {
      await blob.upload(body, body.length, { conditions: { ifNoneMatch: "*" }, blobHTTPHeaders: { blobContentType: "application/json" } });
      return "appended";
    } catch (e) {
      if (statusOf(e) === 409 || statusOf(e) === 412 || storageCodeOf(e) === "BlobAlreadyExists") return "conflict";
      throw this.c.failure(`append entry ${seq} to ${this.where(name)}`, e);
    }
  }

  private folder(name: string): string {
    return `${this.c.prefix}audit/${stackFileKey(name)}/`;
  }

  private blobName(name: string, seq: number): string {
    return `${this.folder(name)}${String(seq).padStart(SEQ_WIDTH, "0")}.json`;
  }

  /** The entries' blob names, in chain order. */
  private async entries(name: string): Promise<string[]> {
    const out: string[] = [];
    try {
      for await (const item of this.c.client.listBlobsFlat({ prefix: this.folder(name) })) {
        if (/\/\d+\.json$/.test(item.name)) out.push(item.name);
      }
    } catch (e) {
      throw this.c.failure(`list ${this.where(name)}`, e);
    }
    return out.sort();
  }

  private async line(blobName: string): Promise<string> {
    try {
      return (await readBlob(this.c.client.getBlobClient(blobName))).text;
    } catch (e) {
      throw this.c.failure(`read ${this.c.base}/${blobName}`, e);
    }
  }
}
