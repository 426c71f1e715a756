import type { Command } from "commander";
import { ARM_RESOURCE, runWhoami, type ImdsView } from "../../../usecases/whoami";
import { readAttestedDocument } from "../../../services/imds/attested-document";
import type { ImdsAttestedContent } from "../../../services/imds/types";
import { REDACTED } from "../../../platform/redaction";
import { choiceOption } from "../option-parsers";
import type { CommandIO } from "../command-io";
import { describeError } from "../cli-error";
import { renderKeyValues } from "../render/key-values";
import { serviceClients } from "../service-clients";

export function registerWhoami(program: Command, io: CommandIO): void {
  program
    .command("whoami")
    .description(
      "show which credential of the chain answered and whom its ARM token names, and what IMDS says of this machine and its managed identity (STACKWARDEN_IMDS_ENDPOINT, AZURE_CLIENT_ID) (exit 0, 1 when no credential works: one line naming what was tried)",
    )
    .option(
      "--output <format>",
      "table or json (json prints the credential and the raw IMDS documents, tokens redacted)",
      choiceOption(["table", "json"] as const),
      "table",
    )
    .action(async (flags: { output: "table" | "json" }) => {
      const { answer, armToken, claims, endpoint, imds, imdsNotRead, imdsError } = await runWhoami(await serviceClients(io));
      const imdsProblem = imdsNotRead ? `not read (${imdsNotRead})` : imdsError ? `not readable: ${describeError(imdsError)}` : undefined;
      const clientId = io.env.AZURE_CLIENT_ID?.trim() || undefined;
      const credentialView = {
        id: answer.id,
        label: answer.label,
        tenantId: claims?.tid ?? null,
        objectId: claims?.oid ?? null,
        appId: claims?.appid ?? null,
        expiresOn: knownExpiry(armToken.expiresOnTimestamp) ? new Date(armToken.expiresOnTimestamp).toISOString() : null,
      };
      if (flags.output === "json") {
        const token = imds && { ...imds.token, access_token: imds.token.access_token ? REDACTED : imds.token.access_token };
        io.out(
          JSON.stringify(
            {
              credential: credentialView,
              endpoint,
              instance: imds?.instance ?? null,
              identityInfo: imds?.identityInfo ?? null,
              attestedDocument: imds?.attested ?? null,
              token: token ?? null,
              ...(imdsProblem ? { imdsProblem } : {}),
            },
            null,
            2,
          ),
        );
        return;
      }
      const principal = claims
        ? [claims.oid && `object id ${claims.oid}`, claims.appid && `app id ${claims.appid}`, claims.tid && `tenant ${claims.tid}`]
            .filter(Boolean)
            .join(", ") || "the token names no tenant, object or app id"
        : "the token is not a JWT (nothing to read from it)";
      io.out(
        renderKeyValues([
          ["Credential", answer.label.startsWith(answer.id) ? answer.label : `${answer.label} (${answer.id})`],
          ["Principal", principal],
          ["ARM token", `for ${ARM_RESOURCE}, ${expiry(armToken.expiresOnTimestamp)}`],
          ...(imds ? imdsRows(imds, imds.nonce, clientId) : []),
          ["IMDS", imdsProblem ? `${endpoint}: ${imdsProblem}` : endpoint],
        ]),
      );
    });
}

/** Whether a token's expiry is a real time (a static token that is not a JWT has none). */
function knownExpiry(ms: number): boolean {
  return Number.isFinite(ms) && ms < Number.MAX_SAFE_INTEGER;
}

/** `expires 2026-01-01T00:00:00.000Z (in 59 min)`, or `expires ?` for a token without a readable expiry. */
function expiry(ms: number): string {
  if (!knownExpiry(ms)) return "expires ? (not a JWT, or no exp claim)";
  return `expires ${new Date(ms).toISOString()} (in ${Math.round((ms - Date.now()) / 60_000)} min)`;
}

/** The machine, its managed identity and the attested document's check, as IMDS gave them. */
function imdsRows({ instance, identityInfo, attested, token }: ImdsView, nonce: string, clientId?: string): [string, string | undefined][] {
  const c = instance.compute ?? {};
  const ip = instance.network?.interface?.[0]?.ipv4;
  let attestation = `${attested.encoding ?? "?"}`;
  if (attested.signature) {
    try {
      const doc = readAttestedDocument(attested.signature);
      const content = JSON.parse(doc.content) as ImdsAttestedContent;
      attestation += `, signed by ${doc.signer || "?"}, ${content.nonce === nonce ? "nonce verified" : "NONCE MISMATCH"}, vmId ${content.vmId}`;
    } catch (e) {
      attestation += `, unreadable signature (${(e as Error).message})`;
    }
  }
  return [
    ["Machine", `${c.name ?? "?"} (${[c.vmSize, c.osType, c.location, c.zone ? `zone ${c.zone}` : undefined].filter(Boolean).join(", ")})`],
    ["VM id", c.vmId],
    ["Resource", c.resourceId],
    ["Subscription", c.subscriptionId],
    ["Resource group", c.resourceGroupName],
    ["Image", [c.publisher, c.offer, c.sku, c.version].filter(Boolean).join(" / ")],
    [
      "Network",
      ip?.ipAddress?.[0]?.privateIpAddress
        ? `${ip.ipAddress[0].privateIpAddress}${ip.subnet?.[0] ? ` (subnet ${ip.subnet[0].address}/${ip.subnet[0].prefix})` : ""}`
        : undefined,
    ],
    ["Identity", `${clientId ? "user-assigned" : "system-assigned"}, client id ${token.client_id ?? "?"}`],
    ["Tenant", identityInfo.tenantId],
    ["Attested", attestation],
  ];
}
