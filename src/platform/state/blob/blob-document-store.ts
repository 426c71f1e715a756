import { readBlob, statusOf, storageCodeOf, type BlobContainer } from "./blob-container";

/**
 * Named documents as blobs under `<prefix><area>/` of the container. Writes are whole-blob uploads
 * (atomic: a reader sees the old blob or the new one); conditional writes use the blob's ETag
 * (`ifMatch`) or create-only (`ifNoneMatch: *`); appended lines go to an append blob.
 */
export class BlobDocumentStore {
  private readonly root: string;

  constructor(
    private readonly c: BlobContainer,
    area: string,
  ) {
    this.root = `${c.prefix}${area}/`;
  }

  where(name: string): string {
    return `${this.c.base}/${this.root}${name}`;
  }

  async get(name: string): Promise<{ text: string; etag: string } | undefined> {
    try {
      return await readBlob(this.c.client.getBlobClient(this.root + name));
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      throw this.c.failure(`read ${this.where(name)}`, e);
    }
  }

  async put(name: string, text: string, condition?: { ifMatch?: string; ifNoneMatch?: "*" }): Promise<string | undefined> {
    const body = Buffer.from(text, "utf8");
    try {
      const r = await this.c.client.getBlockBlobClient(this.root + name).upload(body, body.length, {
        conditions: condition?.ifNoneMatch ? { ifNoneMatch: "*" } : condition?.ifMatch ? { ifMatch: condition.ifMatch } : undefined,
      });
      return r.etag ?? "";
    } catch (e) {
      const status = statusOf(e);
      if (condition && (status === 412 || (status === 409 && storageCodeOf(e) === "BlobAlreadyExists"))) return undefined;
      throw this.c.failure(`write ${this.where(name)}`, e);
    }
  }

  async delete(name: string): Promise<void> {
    try {
      await this.c.client.getBlobClient(this.root + name).deleteIfExists();
    } catch (e) {
      throw this.c.failure(`delete ${this.where(name)}`, e);
    }
  }

  async list(prefix: string): Promise<{ name: string; size: number; modifiedMs: number }[]> {
    const out: { name: string; size: number; modifiedMs: number }[] = [];
    try {
      for await (const item of this.c.client.listBlobsFlat({ prefix: this.root + prefix })) {
        const name = item.name.slice(this.root.length);
        // As a directory listing: what is directly under the prefix, not in a folder below it.
        if (name.slice(prefix.length).includes("/")) continue;
        out.push({ name, size: item.properties.contentLength ?? 0, modifiedMs: item.properties.lastModified?.getTime() ?? 0 });
      }
    } catch (e) {
      throw this.c.failure(`list ${this.where(prefix)}`, e);
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async appendLine(name: string, line: string): Promise<void> {
    const body = Buffer.from(`${line}\n`, "utf8");
    try {
      const blob = this.c.client.getAppendBlobClient(this.root + name);
      await blob.createIfNotExists();
      await blob.appendBlock(body, body.length);
    } catch (e) {
      throw this.c.failure(`append to ${this.where(name)}`, e);
    }
  }

  async touch(name: string): Promise<void> {
    try {
      const blob = this.c.client.getBlobClient(this.root + name);
      await blob.setMetadata({ usedat: String(Date.now()) });
    } catch (e) {
      if (statusOf(e) !== 404) throw this.c.failure(`touch ${this.where(name)}`, e);
    }
  }
}
