import { join } from "node:path";
import { loadSeedFile, type SeedDocument } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import type { CertificateRecordSeed, CertificatesSeed } from "../../../src/emulator/services/certificates/seed-schema";
import { CertificatesClient, type CertificatesClientOptions } from "../../../src/services/certificates/client";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

/** The example estate (stacks/dev.estate.yaml), parsed with the real seed validation. */
export function devEstate(): SeedDocument {
  return loadSeedFile(join(PROJECT_ROOT, "stacks", "dev.estate.yaml"), LOCAL_SERVICES);
}

/** The certificate records of the example estate. */
export function devRecords(): CertificateRecordSeed[] {
  return (devEstate().certificates as CertificatesSeed).records ?? [];
}

/** An emulator serving only the certificate section of a seed (default: the example estate's). */
export async function startCertificateEmulator(seed: SeedDocument = { certificates: devEstate().certificates }): Promise<TestEmulator> {
  return startTestEmulator({ seed });
}

/** A client against an emulator's issuers, with fast retries and any keys. */
export function clientFor(t: TestEmulator, opts: Partial<CertificatesClientOptions> = {}): CertificatesClient {
  return new CertificatesClient({
    endpoint: `${t.url}/apisetu`,
    apiKey: "test-api-key-1234",
    clientId: "test-client",
    retry: FAST_RETRY,
    ...opts,
  });
}

/** The text of each page of a PDF, read back with unpdf. */
export async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const { extractText, getDocumentProxy } = await import("unpdf");
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    return (await extractText(pdf, { mergePages: false })).text;
  } finally {
    await pdf.loadingTask.destroy(); // pdf.js 6 (unpdf 1.8) has no PDFDocumentProxy.destroy()
  }
}

/** Whitespace collapsed, for comparing text extracted from a PDF. */
export function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
